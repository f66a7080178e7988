import type { Timestamp } from '../../db/types.js';
import type { Granularity } from './buckets.js';

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

export interface CountsTables {
  interaction_counts: InteractionCountsTable;
  interaction_count_deltas: InteractionCountDeltasTable;
}
