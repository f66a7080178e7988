/**
 * PostgreSQL advisory lock ids the service takes, in one place so two jobs never share one by
 * accident. Two-key locks are `(class, key)`; the migrations that take them in SQL functions
 * write the same numbers (test/kernel/lock-ids.test.ts checks that they agree).
 */
export const LOCK_IDS = {
  /** (class, hashtext(tenant)): a tenant's webhook subscriptions; shared by emitters, alone by changes. */
  webhookSubscriptions: 7768,
  /** (class, n): one compaction of the counts at a time; n is COUNTS_COMPACTION_KEYS. */
  countsCompaction: 7769,
  /** (class, hashtext(tenant)): one transaction at a time writes a tenant's usage roll-ups (usage-rollups.job.ts). */
  usageRollups: 7773,
  /** Single key, held by each migration's transaction: a migration is applied once, whoever holds the lease. */
  migrations: 7772,
} as const;

/**
 * Jobs one process at a time does over many statements, as rows of `service_leases` (leases.ts):
 * session advisory locks do not survive a transaction pooler or a failover.
 */
export const LEASES = {
  /** Key: the tenant's id. One replica at a time applies a tenant's retention. */
  tenantRetention: 'retention',
  /** Key: the tenant's id. One replica at a time rolls up a tenant's closed days. */
  usageRollups: 'usage-rollups',
  /** One replica at a time analyzes and vacuums the tables. */
  storeUpkeep: 'upkeep',
  /** One process at a time creates the first tenant and admin. */
  bootstrap: 'bootstrap',
  /** One process at a time migrates: replicas starting together wait for the first. */
  migrations: 'migrations',
} as const;

/** The second key of the counts compaction lock, per table. */
export const COUNTS_COMPACTION_KEYS = { interactions: 0, alerts: 1 } as const;
