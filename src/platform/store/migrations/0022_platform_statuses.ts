import { type Kysely, sql } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// Each tenant's status of the AI platforms its staff use (sanctioned, unsanctioned, blocked), with
// a note and the tenant's own name, category and risk tier of the platform where they differ
// from the catalog's (which lives in the code, not here). Policies may match on the status, so a
// change bumps the tenant's `policies` counter (0006's function) like a policy change: every
// replica's policy cache reloads on its next create. Policies gain the message their client shows.
// Under row-level security like every tenant table (0017).
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table platform_statuses (
    tenant_id uuid not null references tenants (id) on delete cascade,
    platform_id text not null,
    status text not null constraint platform_statuses_status_check check (status in ('sanctioned', 'unsanctioned', 'blocked')),
    note text not null default '',
    name text,
    category text constraint platform_statuses_category_check
      check (category in ('assistant', 'code', 'media', 'search', 'agents', 'model_api', 'productivity')),
    risk_tier text constraint platform_statuses_risk_tier_check check (risk_tier in ('low', 'medium', 'high')),
    updated_at timestamptz not null,
    updated_by uuid,
    constraint platform_statuses_pk primary key (tenant_id, platform_id)
  )`.execute(db);
  await sql`create trigger platform_statuses_policies_version after insert or update or delete
    on platform_statuses for each row execute function bump_policies_version()`.execute(db);

  const visible = sql`(select ugs_scope_all()) or tenant_id = any ((select ugs_scope_tenants())::uuid[])`;
  await sql`alter table platform_statuses enable row level security`.execute(db);
  await sql`alter table platform_statuses force row level security`.execute(db);
  await sql`create policy tenant_scope on platform_statuses using (${visible}) with check (${visible})`.execute(db);
  await sql`grant select, insert, update, delete on platform_statuses to ugs_app`.execute(db);

  // Nullable, no default: no rewrite, and the previous release's inserts leave it null.
  await sql`alter table policies add column message text`.execute(db);
}
