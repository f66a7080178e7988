import { sql, type Kysely } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// Who does a job that one process at a time does (a tenant's retention, the table upkeep, the
// first start's bootstrap), as a row with an expiry instead of a session advisory lock: a session
// lock stays with the server connection that took it, which a transaction-pooling PgBouncer hands
// to another client after each statement, and it is gone after a failover. A holder that dies
// leaves its row to expire. Global by nature, like rate_limit_windows: no tenant_id, no row-level
// security. The migrations' own bookkeeping creates it before the first migration (they run under
// one of its leases): here it exists already, unless this migration runs by itself.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table if not exists service_leases (
    name text not null,
    key text not null,
    holder uuid not null,
    expires_at timestamptz not null,
    constraint service_leases_pk primary key (name, key)
  )`.execute(db);
}
