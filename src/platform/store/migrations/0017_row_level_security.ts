import { type Kysely, sql } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// A second wall between tenants under the application's `where tenant_id = ...`: every table that
// holds tenant data gets row-level security, enabled and forced (so the tables' owner is held by
// it too), with one policy that lets a row be seen or written only when its tenant is in the
// setting `ugs.tenant_ids` (a comma-separated list, or `*` for work that spans tenants). The
// service's queries run as `ugs_app`, a role that owns nothing and cannot bypass the policies;
// the role that migrates owns the tables and keeps DDL and maintenance.
const TENANT_TABLES = [
  'alert_count_deltas', 'alert_counts', 'alerts', 'api_keys', 'audit_log', 'count_heads', 'idempotency_keys',
  'interaction_classification_types', 'interaction_count_deltas', 'interaction_counts', 'interaction_fingerprints',
  'interactions', 'invitations', 'mail_outbox', 'policies', 'sessions', 'tenant_keys', 'tenant_versions', 'users',
  'webhook_deliveries', 'webhook_jobs', 'webhook_messages', 'webhooks',
];

/**
 * The order the migration takes the tables' locks in, all at once before it changes any: the
 * order ingest writes them (tenants read first, interactions then the tables its triggers write,
 * then alerts and theirs), `tenant_versions` (written by the users', keys' and policies'
 * triggers) last. Taken table by table in name order, a writer holding `interactions` while its
 * trigger waited for `interaction_count_deltas` deadlocked with it, again at every try.
 */
const LOCK_ORDER = ['tenants', 'interactions', 'interaction_count_deltas', 'interaction_classification_types', 'interaction_fingerprints',
  'alerts', 'alert_count_deltas'];
const lockOrder = () => [...LOCK_ORDER, ...TENANT_TABLES.filter((table) => !LOCK_ORDER.includes(table) && table !== 'tenant_versions'),
  'tenant_versions'];

export async function up(db: Kysely<any>): Promise<void> {
  // Roles belong to the whole server: another database of it may have created this one already.
  await sql`do $$
    begin
      if not exists (select from pg_roles where rolname = 'ugs_app') then
        begin
          create role ugs_app nologin;
        exception when duplicate_object or unique_violation then null;
        end;
      end if;
      if exists (select from pg_roles where rolname = 'ugs_app' and (rolsuper or rolbypassrls)) then
        raise exception 'the role ugs_app exists and is a superuser or bypasses row-level security; it must do neither';
      end if;
      if not pg_has_role(current_user, 'ugs_app', 'member') then
        execute format('grant ugs_app to %I', current_user);
      end if;
      execute format('grant usage on schema %I to ugs_app', current_schema());
      execute format('grant select, insert, update, delete on all tables in schema %I to ugs_app', current_schema());
      execute format('grant usage, select, update on all sequences in schema %I to ugs_app', current_schema());
      execute format('alter default privileges in schema %I grant select, insert, update, delete on tables to ugs_app', current_schema());
      execute format('alter default privileges in schema %I grant usage, select, update on sequences to ugs_app', current_schema());
    end $$`.execute(db);

  // Read once per statement (the policies call them in a sub-select, an InitPlan), not per row.
  await sql`create function ugs_scope_all() returns boolean language sql stable parallel safe
    as $$ select coalesce(current_setting('ugs.tenant_ids', true), '') = '*' $$`.execute(db);
  await sql`create function ugs_scope_tenants() returns uuid[] language sql stable parallel safe
    as $$ select case when coalesce(current_setting('ugs.tenant_ids', true), '') in ('', '*') then '{}'::uuid[]
                      else string_to_array(current_setting('ugs.tenant_ids', true), ',')::uuid[] end $$`.execute(db);

  await sql`lock table ${sql.join(lockOrder().map((table) => sql.table(table)))} in access exclusive mode`.execute(db);
  for (const table of [...TENANT_TABLES, 'tenants']) {
    const column = table === 'tenants' ? 'id' : 'tenant_id';
    const visible = sql`(select ugs_scope_all()) or ${sql.ref(column)} = any ((select ugs_scope_tenants())::uuid[])`;
    await sql`alter table ${sql.table(table)} enable row level security`.execute(db);
    await sql`alter table ${sql.table(table)} force row level security`.execute(db);
    await sql`create policy tenant_scope on ${sql.table(table)} using (${visible}) with check (${visible})`.execute(db);
  }
}
