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
 * filter, which no aggregate has, is counted from its own index (a fingerprint's alone when it
 * is the only filter besides the time range and the user).
 */
export function countQuery(db: Db, tenantId: string, criteria: ListCriteria) {
  if (criteria.fingerprint !== undefined && fingerprintRowsSuffice(criteria)) {
    return db.selectNoFrom(fingerprintCount(db, tenantId, { ...criteria, fingerprint: criteria.fingerprint }).as('total'));
  }
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
    if (risk.whole) parts.push(bucketSum(tenantId, dims, time, everyBucket ? undefined : risk.whole));
    const { from, to } = time.covered;
    const coveredRange = { start: from === null ? undefined : new Date(from), end: to === null ? undefined : new Date(to - 1) };
    for (const slice of risk.partial) parts.push(rowCount(db, tenantId, { ...criteria, range: coveredRange }, slice));
  }
  const total = parts.length ? sql.join(parts, sql` + `) : sql`0`;
  return db.selectNoFrom(sql<string>`${total}`.as('total'));
}

/** A fingerprint's rows hold its interactions' time and user id: with no other filter, they are counted alone. */
function fingerprintRowsSuffice(criteria: ListCriteria): boolean {
  return criteria.platform_id === undefined && criteria.risk_score_min === undefined && criteria.risk_score_max === undefined
    && criteria.classification_type === undefined && criteria.source === undefined && criteria.direction === undefined;
}

/**
 * The interactions holding a fingerprint, counted in its index alone (one row per interaction,
 * deleted with it), without joining each to its interaction.
 */
function fingerprintCount(db: Db, tenantId: string, criteria: ListCriteria & { fingerprint: string }) {
  let query = db.selectFrom('interaction_fingerprints').select((eb) => eb.fn.countAll().as('count'))
    .where('tenant_id', '=', tenantId).where('fingerprint', '=', criteria.fingerprint);
  if (criteria.user_id !== undefined) query = query.where('user_id', '=', criteria.user_id);
  if (criteria.range.start) query = query.where('timestamp', '>=', criteria.range.start);
  if (criteria.range.end) query = query.where('timestamp', '<=', criteria.range.end);
  return sql<string>`(${query})`;
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
