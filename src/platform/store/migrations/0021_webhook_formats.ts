import { sql, type Kysely } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// The body format of a webhook's deliveries (`standard`: the service's envelope; `ocsf`: an OCSF
// event), and the format each recorded attempt was sent in, since a webhook's format may change
// between two attempts. A constant default: PostgreSQL stores it in the catalog and rewrites no
// row, and the previous release, which writes neither column, keeps sending and recording
// `standard`. The API checks the values; no constraint, so a later format needs no migration.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table webhooks add column if not exists format text not null default 'standard'`.execute(db);
  await sql`alter table webhook_deliveries add column if not exists format text not null default 'standard'`.execute(db);
}
