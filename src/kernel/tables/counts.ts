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

/**
 * Compacted counts, appended and never updated: a bucket's rows belong to a generation, and the
 * newest visible generation of a bucket is its count (several rows of one key add up).
 */
export interface InteractionCountsTable extends CountedDimensions {
  granularity: Granularity;
  bucket: Timestamp;
  generation: string | number;
  /** Written by a fold (false: by the merge that started the generation). */
  appended: boolean;
}

/**
 * A generation of interaction_counts summed over the dimensions a level leaves open ('' and -1 in
 * them), written by triggers on interaction_counts (docs/interaction-counts.md, "Levels").
 */
export interface InteractionCountLevelsTable extends CountedDimensions {
  granularity: Granularity;
  bucket: Timestamp;
  generation: string | number;
  level: 'platform_risk' | 'source_direction' | 'source_risk';
}

/** What writes added (or removed: negative) per hour, until the compaction folds it. */
export interface InteractionCountDeltasTable extends CountedDimensions {
  bucket: Timestamp;
  /** The writing transaction's id (xid8, as text). */
  position: string;
}

/** Alerts created in a bucket, by status, severity and policy, in generations as interaction_counts. */
export interface AlertCountsTable {
  tenant_id: string;
  granularity: Granularity;
  bucket: Timestamp;
  generation: string | number;
  status: 'open' | 'resolved';
  severity: Severity;
  policy_id: string;
  count: string | number;
  appended: boolean;
}

/** What writes to alerts added or removed per hour, until the compaction folds it. */
export interface AlertCountDeltasTable extends Omit<AlertCountsTable, 'granularity' | 'generation' | 'appended'> {
  position: string;
}

/** How far each family's deltas are folded: every delta whose position is below the newest mark. */
export interface CountFoldsTable {
  family: 'interactions' | 'alerts';
  position: string;
}

export interface CountsTables {
  interaction_counts: InteractionCountsTable;
  interaction_count_levels: InteractionCountLevelsTable;
  interaction_count_deltas: InteractionCountDeltasTable;
  alert_counts: AlertCountsTable;
  alert_count_deltas: AlertCountDeltasTable;
  count_folds: CountFoldsTable;
  count_heads: CountHeadsTable;
}

/** Each bucket's current generation and how many rows it holds, merged and appended: the fold decides merges from it. */
export interface CountHeadsTable {
  family: 'interactions' | 'alerts';
  tenant_id: string;
  granularity: Granularity;
  bucket: Timestamp;
  generation: string | number;
  merged: number;
  appended: number;
}
