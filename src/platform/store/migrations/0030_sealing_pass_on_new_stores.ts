import { type Kysely, sql } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// The background pass that seals what releases before 0.8 stored in clear (0013) walks every
// interaction, webhook, queued event and idempotent response once. A store with no tenant yet
// holds none of those, and every row written from now on is sealed as it is written: its steps
// are recorded as done, so that a new store's first start with workers does not walk rows that
// this release wrote. A store upgraded with its data keeps the pass.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`insert into background_passes (name, position, completed_at, updated_at)
    select step, null, now(), now()
    from unnest(array['seal-webhook-secrets', 'seal-webhook-messages', 'seal-idempotency-responses',
      'seal-interaction-values']) as step
    where not exists (select 1 from tenants)
    on conflict (name) do nothing`.execute(db);
}
