import { sql, type Kysely } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// Detected values under lock. Each tenant gets keys of its own (a data key that encrypts its
// values and secrets, a fingerprint key that keys its fingerprints), stored wrapped by the
// master key; during a rotation the wrapping under the previous master key stays beside the new
// one until it is retired. Fingerprints get a table that finds a value's interactions by index.
// Rows written before this release are encrypted by a background pass that records its progress.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table tenants
    add column signal_values text not null default 'keep' check (signal_values in ('keep', 'mask'))`.execute(db);

  await sql`create table tenant_keys (
    tenant_id uuid primary key references tenants (id) on delete cascade,
    master_key_id text not null,
    data_key text not null,
    fingerprint_key text not null,
    previous_master_key_id text,
    previous_data_key text,
    previous_fingerprint_key text,
    created_at timestamptz not null,
    updated_at timestamptz not null
  )`.execute(db);

  await sql`create table interaction_fingerprints (
    tenant_id uuid not null,
    interaction_id uuid not null,
    fingerprint text not null,
    timestamp timestamptz not null,
    user_id uuid,
    constraint interaction_fingerprints_pk primary key (tenant_id, interaction_id, fingerprint),
    constraint interaction_fingerprints_interaction_fk foreign key (tenant_id, interaction_id)
      references interactions (tenant_id, id) on delete cascade
  )`.execute(db);
  await sql`create index interaction_fingerprints_lookup_idx
    on interaction_fingerprints (tenant_id, fingerprint, timestamp, interaction_id) include (user_id)`.execute(db);

  // Written by this release on: the secrets are sealed. Rows of earlier releases say false.
  await sql`alter table webhooks add column secrets_sealed boolean not null default false`.execute(db);

  await sql`create table background_passes (
    name text primary key,
    position text,
    completed_at timestamptz,
    updated_at timestamptz not null
  )`.execute(db);
}
