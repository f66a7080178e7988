import { type Kysely, sql } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// Per-tenant version counters that let every replica cache a tenant's credentials and enabled
// policies and still see a change on its next request: a request reads the counters (one
// primary-key lookup, shared by concurrent requests) and reloads what changed. The counters are
// bumped by triggers, so no code path that changes a credential or a policy can forget them.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table tenant_versions (
    tenant_id uuid primary key,
    credentials bigint not null default 0,
    policies bigint not null default 0)`.execute(db);
  await sql`insert into tenant_versions (tenant_id, policies) select tenant_id, version from policy_versions`.execute(db);
  await sql`drop table policy_versions`.execute(db);

  for (const counter of ['credentials', 'policies']) {
    await sql`create function ${sql.raw(`bump_${counter}_version`)}() returns trigger language plpgsql as $$
      declare
        changed_tenant uuid;
      begin
        if tg_op = 'DELETE' then changed_tenant := old.tenant_id; else changed_tenant := new.tenant_id; end if;
        insert into tenant_versions (tenant_id, ${sql.raw(counter)}) values (changed_tenant, 1)
          on conflict (tenant_id) do update set ${sql.raw(counter)} = tenant_versions.${sql.raw(counter)} + 1;
        return null;
      end $$`.execute(db);
  }
  // Only the columns a cached credential depends on: a login (last_login) or an API key's
  // last_used_at must not empty every replica's cache of the tenant.
  await sql`create trigger users_credentials_version after update of role, status, email, password_hash or delete
    on users for each row execute function bump_credentials_version()`.execute(db);
  await sql`create trigger sessions_credentials_version after update of revoked_at, expires_at, user_id or delete
    on sessions for each row execute function bump_credentials_version()`.execute(db);
  await sql`create trigger api_keys_credentials_version after update of revoked_at, scopes, name, key_hash or delete
    on api_keys for each row execute function bump_credentials_version()`.execute(db);
  await sql`create trigger policies_version after insert or update or delete
    on policies for each row execute function bump_policies_version()`.execute(db);
}
