import type { Timestamp } from './columns.js';
import type { Severity } from './interactions.js';

export type Granularity = 'hour' | 'day' | 'month';

/** Columns both count tables share: what an aggregate row counts. */
interface CountedDimensions {
  tenant_id: string;
  /** '' counts every interaction; another value counts the interactions having that type. */
  classification_type: string;
  platform_id: string;
  source: string;
  direction: string;
  risk_bucket: number;
  /** bigint: a string from `pg`, a number from PGlite. */
  count: string | number;
}

/** Compacted counts: one row per tenant, granularity, bucket start and dimensions. */
export interface InteractionCountsTable extends CountedDimensions {
  granularity: Granularity;
  bucket: Timestamp;
}

/** What writes added (or removed: negative) per hour, until the compaction moves it. */
export interface InteractionCountDeltasTable extends CountedDimensions {
  bucket: Timestamp;
}

/** Open alerts created in a bucket, by severity (resolving one takes it out). */
export interface AlertCountsTable {
  tenant_id: string;
  granularity: Granularity;
  bucket: Timestamp;
  severity: Severity;
  count: string | number;
}

/** What writes to alerts added or removed per hour, until the compaction moves it. */
export type AlertCountDeltasTable = Omit<AlertCountsTable, 'granularity'>;

export interface CountsTables {
  interaction_counts: InteractionCountsTable;
  interaction_count_deltas: InteractionCountDeltasTable;
  alert_counts: AlertCountsTable;
  alert_count_deltas: AlertCountDeltasTable;
}
