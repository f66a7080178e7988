import { type Kysely, sql } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// The delivery engine of v0.2: events are fanned out to their subscribers in the transaction that
// emits them (no outbox row for an event nobody wants), each wanted event's envelope is stored
// once in webhook_messages, and webhook_jobs holds only unfinished work (finished jobs are
// deleted). Pending work of the v0.1 tables is carried over.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table webhook_messages (
    tenant_id uuid not null,
    id text not null,
    event_type text not null,
    payload text not null,
    created_at timestamptz not null,
    constraint webhook_messages_pk primary key (tenant_id, id))`.execute(db);
  await sql`create index webhook_messages_created_idx on webhook_messages (created_at)`.execute(db);

  await sql`alter table webhook_jobs rename to webhook_jobs_v1`.execute(db);
  await sql`alter index webhook_jobs_pk rename to webhook_jobs_v1_pk`.execute(db);
  await sql`create table webhook_jobs (
    tenant_id uuid not null,
    id bigint generated always as identity,
    webhook_id text not null,
    event_id text not null,
    event_type text not null,
    attempt integer not null,
    run_at timestamptz not null,
    lease_until timestamptz,
    lease_id uuid,
    created_at timestamptz not null,
    constraint webhook_jobs_pk primary key (tenant_id, id))
    with (fillfactor = 80, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,
          autovacuum_vacuum_cost_delay = 0)`.execute(db);
  // A lane is one webhook's queue: claims walk the lanes and take each one's due jobs in order.
  await sql`create index webhook_jobs_lane_idx on webhook_jobs (tenant_id, webhook_id, run_at, id)`.execute(db);
  // Retries apart, so that claiming them never walks a lane's backlog of first attempts.
  await sql`create index webhook_jobs_retry_lane_idx on webhook_jobs (tenant_id, webhook_id, run_at, id)
            where attempt > 1`.execute(db);
  // Heartbeats renew, and the dead-worker check finds, the jobs one worker holds.
  await sql`create index webhook_jobs_lease_idx on webhook_jobs (lease_id) where lease_id is not null`.execute(db);

  // Payloads of v0.1 jobs (redelivery of a past attempt needs them), then the unfinished jobs.
  await sql`insert into webhook_messages (tenant_id, id, event_type, payload, created_at)
    select distinct on (tenant_id, event_id) tenant_id, event_id, event_type, payload, created_at
    from webhook_jobs_v1 order by tenant_id, event_id, created_at`.execute(db);
  await sql`insert into webhook_jobs (tenant_id, webhook_id, event_id, event_type, attempt, run_at, created_at)
    select tenant_id, webhook_id, event_id, event_type, attempt, next_attempt_at, created_at
    from webhook_jobs_v1 where status = 'queued' order by next_attempt_at, id`.execute(db);
  // Undispatched v0.1 outbox events: fanned out as the v0.1 dispatcher would have done.
  await sql`insert into webhook_messages (tenant_id, id, event_type, payload, created_at)
    select o.tenant_id, o.id, o.event_type,
      json_build_object('id', o.id,
        'timestamp', to_char(o.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'event_type', o.event_type, 'tenant_id', o.tenant_id, 'data', o.data)::text,
      o.occurred_at
    from outbox_events o
    where o.dispatched_at is null and exists (
      select 1 from webhooks w where w.tenant_id = o.tenant_id and w.active
        and w.active_since <= o.occurred_at and w.events ? o.event_type)
    on conflict do nothing`.execute(db);
  await sql`insert into webhook_jobs (tenant_id, webhook_id, event_id, event_type, attempt, run_at, created_at)
    select o.tenant_id, w.id, o.id, o.event_type, 1, o.occurred_at, o.occurred_at
    from outbox_events o join webhooks w on w.tenant_id = o.tenant_id and w.active
      and w.active_since <= o.occurred_at and w.events ? o.event_type
    where o.dispatched_at is null order by o.occurred_at, o.id`.execute(db);
  await sql`drop table webhook_jobs_v1`.execute(db);
  await sql`drop table outbox_events`.execute(db);

  // The history's retention purge walks it by age; an event's envelope is kept while its history is.
  await sql`create index webhook_deliveries_attempted_idx on webhook_deliveries (attempted_at)`.execute(db);
  await sql`create index webhook_deliveries_event_idx on webhook_deliveries (tenant_id, event_id)`.execute(db);

  // Emitting events and changing webhooks are ordered by a per-tenant lock: emitters share it,
  // a webhook change holds it alone. So a webhook receives exactly the events committed after
  // its change committed. This function takes the shared lock, then reads the subscriptions in a
  // new snapshot (a volatile function's statements each take one), so that a change committed
  // while it waited for the lock is seen.
  await sql`create function webhook_subscriptions(p_tenant uuid)
    returns table (webhook_id text, events jsonb)
    language plpgsql volatile as $$
    begin
      perform pg_advisory_xact_lock_shared(7768, hashtext(p_tenant::text));
      return query select w.id, w.events from webhooks w where w.tenant_id = p_tenant and w.active;
    end $$`.execute(db);
}
