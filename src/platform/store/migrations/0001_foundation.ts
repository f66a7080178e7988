import { type Kysely, sql } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('service_meta')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('tenants')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('tenant_id', 'uuid', (c) => c.notNull().references('tenants.id'))
    .addColumn('id', 'uuid', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text')
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('admin', 'viewer')`))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'active', 'inactive')`))
    .addColumn('password_hash', 'text')
    .addColumn('invited_by', 'text')
    .addColumn('invitation_expires_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_login', 'timestamptz')
    .addPrimaryKeyConstraint('users_pk', ['tenant_id', 'id'])
    .execute();
  await sql`create unique index users_tenant_email_uq on users (tenant_id, lower(email))`.execute(db);
  await sql`create index users_login_email_idx on users (lower(email))`.execute(db);
  await db.schema.createIndex('users_tenant_created_idx').on('users').columns(['tenant_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('sessions')
    .addColumn('tenant_id', 'uuid', (c) => c.notNull())
    .addColumn('id', 'uuid', (c) => c.notNull())
    .addColumn('user_id', 'uuid', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('revoked_at', 'timestamptz')
    .addPrimaryKeyConstraint('sessions_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema.createIndex('sessions_user_idx').on('sessions').columns(['tenant_id', 'user_id']).execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('tenant_id', 'uuid', (c) => c.notNull().references('tenants.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('scopes', 'jsonb', (c) => c.notNull())
    .addColumn('created_by', 'uuid')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .addPrimaryKeyConstraint('api_keys_pk', ['tenant_id', 'id'])
    .execute();

  // Not tenant-scoped: a failed login may name no known account.
  await db.schema
    .createTable('login_failures')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('failed_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('login_failures_subject_idx').on('login_failures').columns(['subject', 'failed_at']).execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('tenant_id', 'uuid', (c) => c.notNull())
    .addColumn('id', 'uuid', (c) => c.notNull())
    .addColumn('occurred_at', 'timestamptz', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_label', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'text')
    .addColumn('details', 'jsonb', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('request_id', 'text')
    .addPrimaryKeyConstraint('audit_log_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema.createIndex('audit_log_time_idx').on('audit_log').columns(['tenant_id', 'occurred_at', 'id']).execute();
  await db.schema
    .createIndex('audit_log_action_idx')
    .on('audit_log')
    .columns(['tenant_id', 'action', 'occurred_at'])
    .execute();
  await db.schema
    .createIndex('audit_log_actor_idx')
    .on('audit_log')
    .columns(['tenant_id', 'actor_id', 'occurred_at'])
    .execute();

  await db.schema
    .createTable('outbox_events')
    .addColumn('tenant_id', 'uuid', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('data', 'jsonb', (c) => c.notNull())
    .addColumn('occurred_at', 'timestamptz', (c) => c.notNull())
    .addColumn('dispatched_at', 'timestamptz')
    .addColumn('lease_until', 'timestamptz')
    .addPrimaryKeyConstraint('outbox_events_pk', ['tenant_id', 'id'])
    .execute();
  // The worker's queue: only undispatched rows, oldest first.
  await sql`create index outbox_events_pending_idx on outbox_events (occurred_at, id) where dispatched_at is null`.execute(db);

  await db.schema
    .createTable('mail_outbox')
    .addColumn('tenant_id', 'uuid', (c) => c.notNull())
    .addColumn('id', 'uuid', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body_text', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull())
    .addColumn('lease_until', 'timestamptz')
    .addColumn('sent_at', 'timestamptz')
    .addColumn('last_error', 'text')
    .addPrimaryKeyConstraint('mail_outbox_pk', ['tenant_id', 'id'])
    .execute();
  await sql`create index mail_outbox_pending_idx on mail_outbox (next_attempt_at) where sent_at is null`.execute(db);
}
