import { type Kysely, sql } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
// Every index starts with tenant_id; docs/interactions.md says which query each one serves.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('interactions')
    .addColumn('tenant_id', 'uuid', (c) => c.notNull().references('tenants.id'))
    .addColumn('id', 'uuid', (c) => c.notNull())
    .addColumn('timestamp', 'timestamptz', (c) => c.notNull())
    .addColumn('platform_id', 'text', (c) => c.notNull().check(sql`platform_id ~ '^[a-z0-9][a-z0-9._-]{0,99}$'`))
    .addColumn('content_hash', 'text', (c) => c.notNull().check(sql`content_hash ~ '^[0-9a-f]{64}$'`))
    .addColumn('interaction_type', 'text', (c) =>
      c.notNull().check(sql`interaction_type in ('prompt', 'completion', 'tool_call', 'embedding')`))
    .addColumn('content_metadata', 'jsonb', (c) => c.notNull())
    .addColumn('classifications', 'jsonb', (c) => c.notNull())
    .addColumn('risk_score', 'float8', (c) => c.notNull().check(sql`risk_score >= 0 and risk_score <= 1`))
    .addColumn('direction', 'text', (c) => c.notNull().check(sql`direction in ('outbound', 'inbound')`))
    .addColumn('source', 'text', (c) =>
      c.notNull().check(sql`source in ('browser_extension', 'proxy', 'endpoint_agent', 'api')`))
    .addColumn('user_id', 'uuid')
    .addColumn('policy_decisions', 'jsonb', (c) => c.notNull())
    .addPrimaryKeyConstraint('interactions_pk', ['tenant_id', 'id'])
    .execute();
  // Default sort (-timestamp) and date ranges; each filter column below is followed by the sort
  // key so that "filter + newest first + LIMIT" reads the index in order and stops early.
  const interactionIndexes: Record<string, string[]> = {
    interactions_time_idx: ['tenant_id', 'timestamp', 'id'],
    interactions_risk_idx: ['tenant_id', 'risk_score', 'timestamp', 'id'],
    interactions_platform_idx: ['tenant_id', 'platform_id', 'timestamp', 'id'],
    interactions_user_idx: ['tenant_id', 'user_id', 'timestamp', 'id'],
    interactions_source_idx: ['tenant_id', 'source', 'timestamp', 'id'],
    interactions_direction_idx: ['tenant_id', 'direction', 'timestamp', 'id'],
    interactions_hash_idx: ['tenant_id', 'content_hash', 'timestamp', 'id'],
  };
  for (const [name, columns] of Object.entries(interactionIndexes)) {
    await db.schema.createIndex(name).on('interactions').columns(columns).execute();
  }

  await db.schema
    .createTable('interaction_classification_types')
    .addColumn('tenant_id', 'uuid', (c) => c.notNull())
    .addColumn('interaction_id', 'uuid', (c) => c.notNull())
    .addColumn('classification_type', 'text', (c) => c.notNull())
    .addColumn('timestamp', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('interaction_classification_types_pk', ['tenant_id', 'interaction_id', 'classification_type'])
    .addForeignKeyConstraint('interaction_classification_types_interaction_fk', ['tenant_id', 'interaction_id'],
      'interactions', ['tenant_id', 'id'], (fk) => fk.onDelete('cascade'))
    .execute();
  await db.schema
    .createIndex('interaction_classification_types_type_idx')
    .on('interaction_classification_types')
    .columns(['tenant_id', 'classification_type', 'timestamp', 'interaction_id'])
    .execute();

  await db.schema
    .createTable('policies')
    .addColumn('tenant_id', 'uuid', (c) => c.notNull().references('tenants.id'))
    .addColumn('id', 'uuid', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull().check(sql`action in ('block', 'coach', 'log')`))
    .addColumn('severity', 'text', (c) => c.notNull().check(sql`severity in ('low', 'medium', 'high', 'critical')`))
    .addColumn('enabled', 'boolean', (c) => c.notNull())
    .addColumn('conditions', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('policies_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema.createIndex('policies_created_idx').on('policies').columns(['tenant_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('policy_versions')
    .addColumn('tenant_id', 'uuid', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('alerts')
    .addColumn('tenant_id', 'uuid', (c) => c.notNull())
    .addColumn('id', 'uuid', (c) => c.notNull())
    .addColumn('interaction_id', 'uuid', (c) => c.notNull())
    .addColumn('policy_id', 'uuid', (c) => c.notNull())
    .addColumn('policy_name', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull().check(sql`severity in ('low', 'medium', 'high', 'critical')`))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('open', 'resolved')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('resolved_at', 'timestamptz')
    .addColumn('resolved_by', 'text')
    .addPrimaryKeyConstraint('alerts_pk', ['tenant_id', 'id'])
    .execute();
  const alertIndexes: Record<string, string[]> = {
    alerts_created_idx: ['tenant_id', 'created_at', 'id'],
    alerts_status_idx: ['tenant_id', 'status', 'created_at', 'id'],
    alerts_severity_idx: ['tenant_id', 'severity', 'created_at', 'id'],
    alerts_policy_idx: ['tenant_id', 'policy_id', 'created_at', 'id'],
    alerts_interaction_idx: ['tenant_id', 'interaction_id'],
  };
  for (const [name, columns] of Object.entries(alertIndexes)) {
    await db.schema.createIndex(name).on('alerts').columns(columns).execute();
  }
  // The dashboard's "open alerts by severity".
  await sql`create index alerts_open_severity_idx on alerts (tenant_id, severity, created_at) where status = 'open'`.execute(db);

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('tenant_id', 'uuid', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer', (c) => c.notNull())
    .addColumn('response_body', 'json', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['tenant_id', 'key'])
    .execute();
  await db.schema
    .createIndex('idempotency_keys_created_idx')
    .on('idempotency_keys')
    .columns(['tenant_id', 'created_at'])
    .execute();
}
