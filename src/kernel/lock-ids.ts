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
  /** (class, hashtext(tenant)): one replica at a time applies a tenant's retention. */
  tenantRetention: 7770,
  /** Single key, held for a session: one replica at a time analyzes and vacuums the tables. */
  storeUpkeep: 7771,
  /** Single key: one process at a time creates the first tenant and admin. */
  bootstrap: 715517,
} as const;

/** The second key of the counts compaction lock, per table. */
export const COUNTS_COMPACTION_KEYS = { interactions: 0, alerts: 1 } as const;
