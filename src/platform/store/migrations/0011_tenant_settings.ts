import { sql, type Kysely } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// A tenant's own settings: how long its interactions (and their alerts) and its audit log are
// kept (null: forever), and whether the service checks the risk signals it receives.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table tenants
    add column retention_days integer check (retention_days >= 1),
    add column audit_retention_days integer check (audit_retention_days >= 365),
    add column validate_signals boolean not null default true,
    add column updated_at timestamptz not null default now()`.execute(db);
  await sql`update tenants set updated_at = created_at`.execute(db);
}
