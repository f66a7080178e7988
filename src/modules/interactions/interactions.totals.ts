import { type Kysely, type RawBuilder, type Transaction, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import { type RiskSlice, splitRisk, splitTime } from '../counts/buckets.js';
import { bucketSum } from '../counts/sums.js';
import { filteredInteractions, type ListCriteria } from './interactions.list.js';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * The exact number of interactions matching a list's filters, in one statement (one snapshot):
 * the whole hours (as months, days and hours) and whole risk buckets are summed from
 * interaction_counts, the partial hours at the range's ends and the partial risk buckets are
 * counted row by row from the indexes (docs/interaction-counts.md). A `user_id` or `fingerprint`
 * filter, which no aggregate has, is counted from its own index.
 */
export function countQuery(db: Db, tenantId: string, criteria: ListCriteria) {
  if (criteria.user_id !== undefined || criteria.fingerprint !== undefined) {
    return db.selectNoFrom(rowCount(db, tenantId, criteria).as('total'));
  }
  const time = splitTime(criteria.range.start, criteria.range.end);
  const risk = splitRisk(criteria.risk_score_min, criteria.risk_score_max);
  const parts: RawBuilder<unknown>[] = time.edges.map((edge) =>
    rowCount(db, tenantId, { ...criteria, range: { start: new Date(edge.start), end: new Date(edge.end) } }));
  if (time.covered) {
    const dims = {
      classificationType: criteria.classification_type ?? '',
      platformId: criteria.platform_id, source: criteria.source, direction: criteria.direction,
    };
    const everyBucket = risk.whole?.from === 0 && risk.whole.to === 9;
    if (risk.whole) parts.push(bucketSum(db, tenantId, dims, time, everyBucket ? undefined : risk.whole));
    const { from, to } = time.covered;
    const coveredRange = { start: from === null ? undefined : new Date(from), end: to === null ? undefined : new Date(to - 1) };
    for (const slice of risk.partial) parts.push(rowCount(db, tenantId, { ...criteria, range: coveredRange }, slice));
  }
  const total = parts.length ? sql.join(parts, sql` + `) : sql`0`;
  return db.selectNoFrom(sql<string>`${total}`.as('total'));
}

/** `count(*)` of the rows matching the criteria (and within a risk slice), as a scalar subquery. */
function rowCount(db: Db, tenantId: string, criteria: ListCriteria, slice: RiskSlice = {}) {
  let query = filteredInteractions(db, tenantId, criteria);
  if (slice.min !== undefined) query = query.where('risk_score', '>=', slice.min);
  if (slice.below !== undefined) query = query.where('risk_score', '<', slice.below);
  return sql<string>`(${query.select((eb) => eb.fn.countAll().as('count'))})`;
}

export async function countInteractions(db: Db, tenantId: string, criteria: ListCriteria): Promise<number> {
  const row = await countQuery(db, tenantId, criteria).executeTakeFirstOrThrow();
  return Number(row.total);
}
