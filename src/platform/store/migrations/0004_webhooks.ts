import { type Kysely, sql } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('tenant_id', 'uuid', (c) => c.notNull().references('tenants.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'jsonb', (c) => c.notNull())
    .addColumn('active', 'boolean', (c) => c.notNull())
    .addColumn('active_since', 'timestamptz', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('headers', 'jsonb', (c) => c.notNull())
    .addColumn('auth_token', 'text', (c) => c.notNull())
    .addColumn('signing_secret', 'text', (c) => c.notNull())
    .addColumn('previous_signing_secret', 'text')
    .addColumn('previous_secret_expires_at', 'timestamptz')
    .addColumn('created_by', 'uuid')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_delivery_at', 'timestamptz')
    .addColumn('delivery_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('webhooks_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema.createIndex('webhooks_tenant_created_idx').on('webhooks').columns(['tenant_id', 'created_at', 'id']).execute();
  await db.schema
    .createIndex('webhooks_tenant_active_created_idx')
    .on('webhooks')
    .columns(['tenant_id', 'active', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('webhook_jobs')
    .addColumn('tenant_id', 'uuid', (c) => c.notNull())
    .addColumn('id', 'uuid', (c) => c.notNull())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull())
    .addColumn('lease_until', 'timestamptz')
    .addColumn('lease_id', 'uuid')
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('queued', 'succeeded', 'failed', 'dropped')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('finished_at', 'timestamptz')
    .addPrimaryKeyConstraint('webhook_jobs_pk', ['tenant_id', 'id'])
    .execute();
  // The workers' queue across all tenants (like outbox_events_pending_idx): only queued rows, by due time.
  await sql`create index webhook_jobs_due_idx on webhook_jobs (next_attempt_at, id) where status = 'queued'`.execute(db);
  // Per-webhook lanes: claim a webhook's next jobs, count its leases, drop its queue.
  await sql`create index webhook_jobs_webhook_idx on webhook_jobs (tenant_id, webhook_id, next_attempt_at)
            where status = 'queued'`.execute(db);

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('tenant_id', 'uuid', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('job_id', 'uuid')
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('is_test', 'boolean', (c) => c.notNull())
    .addColumn('attempted_at', 'timestamptz', (c) => c.notNull())
    .addColumn('status_code', 'integer', (c) => c.notNull())
    .addColumn('response_time_ms', 'integer', (c) => c.notNull())
    .addColumn('success', 'boolean', (c) => c.notNull())
    .addColumn('error', 'text')
    .addPrimaryKeyConstraint('webhook_deliveries_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_webhook_idx')
    .on('webhook_deliveries')
    .columns(['tenant_id', 'webhook_id', 'attempted_at', 'id'])
    .execute();
}
