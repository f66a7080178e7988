import { sql, type Kysely } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// Single sign-on with a tenant's OpenID provider: its settings (the client secret sealed with the
// tenant's key), the sign-ins under way (one row per authorization request, used once; the PKCE
// verifier sealed too), and the one-time codes the callback hands the console. Row-level security as on every tenant table.
const TABLES = ['tenant_sso', 'sso_flows', 'sso_exchanges'];

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table tenant_sso (
    tenant_id uuid primary key references tenants (id) on delete cascade,
    issuer text not null,
    client_id text not null,
    client_secret_sealed text not null,
    allowed_domains jsonb not null,
    role_claim text not null,
    admin_values jsonb not null,
    default_role text check (default_role in ('admin', 'viewer')),
    enforce boolean not null default false,
    created_at timestamptz not null,
    updated_at timestamptz not null,
    updated_by text
  )`.execute(db);

  await sql`create table sso_flows (
    tenant_id uuid not null references tenants (id) on delete cascade,
    state_hash text primary key,
    browser_hash text not null,
    nonce text not null,
    code_verifier text not null,
    return_to text not null,
    created_at timestamptz not null,
    expires_at timestamptz not null,
    used_at timestamptz
  )`.execute(db);
  await sql`create index sso_flows_expiry on sso_flows (expires_at)`.execute(db);

  await sql`create table sso_exchanges (
    tenant_id uuid not null references tenants (id) on delete cascade,
    code_hash text primary key,
    user_id uuid not null,
    created_at timestamptz not null,
    expires_at timestamptz not null,
    used_at timestamptz,
    foreign key (tenant_id, user_id) references users (tenant_id, id) on delete cascade
  )`.execute(db);
  await sql`create index sso_exchanges_expiry on sso_exchanges (expires_at)`.execute(db);

  for (const table of TABLES) {
    const visible = sql`(select ugs_scope_all()) or tenant_id = any ((select ugs_scope_tenants())::uuid[])`;
    await sql`alter table ${sql.table(table)} enable row level security`.execute(db);
    await sql`alter table ${sql.table(table)} force row level security`.execute(db);
    await sql`create policy tenant_scope on ${sql.table(table)} using (${visible}) with check (${visible})`.execute(db);
  }
}
