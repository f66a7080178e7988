import { type Kysely, type RawBuilder, sql, type Transaction } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import type { Severity } from '../../kernel/tables/interactions.js';
import type { DateRange } from '../../kernel/dates.js';
import { splitTime } from './buckets.js';
import { ALERT_COUNTS, currentCounts, equalities, unfolded } from './current.js';

type Db = Kysely<Database> | Transaction<Database>;

/** The equality filters alert_counts can answer. */
export interface AlertDimensions {
  status?: 'open' | 'resolved' | undefined;
  severity?: Severity | undefined;
  policyId?: string | undefined;
}

/**
 * The alerts created within the range and matching `dims`, by severity, as rows (severity,
 * count) to sum in the caller's statement: the whole hours from alert_counts and its deltas not
 * yet folded, the partial hours at the range's ends counted from their rows.
 */
function alertRows(tenantId: string, dims: AlertDimensions, range: DateRange): RawBuilder<unknown> {
  const time = splitTime(range.start, range.end);
  const matching = (alias: string) => equalities(alias, {
    tenant_id: tenantId, status: dims.status, severity: dims.severity, policy_id: dims.policyId,
  });
  const parts: RawBuilder<unknown>[] = time.edges.map((edge) => sql`
    select a.severity, count(*) as count from alerts a
    where ${matching('a')} and a.created_at >= ${new Date(edge.start)} and a.created_at <= ${new Date(edge.end)}
    group by a.severity`);
  const covered = time.covered;
  if (covered) {
    for (const bucket of time.buckets) {
      parts.push(sql`select c.severity, c.count from ${currentCounts(ALERT_COUNTS, tenantId, bucket.granularity,
        bucket.from === null ? null : new Date(bucket.from), bucket.to === null ? null : new Date(bucket.to), matching('c'))} as c`);
    }
    parts.push(sql`select d.severity, d.count from alert_count_deltas d where ${unfolded(ALERT_COUNTS)} and ${matching('d')}
      ${covered.from === null ? sql`` : sql`and d.bucket >= ${new Date(covered.from)}`}
      ${covered.to === null ? sql`` : sql`and d.bucket < ${new Date(covered.to)}`}`);
  }
  return parts.length ? sql.join(parts, sql` union all `) : sql`select null::text as severity, 0::bigint as count where false`;
}

/** The open alerts created within the range, by severity, in one statement. Severities without open alerts are absent. */
export async function openAlertsBySeverity(db: Db, tenantId: string, range: DateRange) {
  const { rows } = await sql<{ severity: Severity; count: string | number }>`
    select severity, sum(count) as count from (${alertRows(tenantId, { status: 'open' }, range)}) as part
    group by severity having sum(count) <> 0`.execute(db);
  return rows;
}

/** The number of alerts created within the range and matching `dims`, as a scalar subquery. */
export function alertTotal(tenantId: string, dims: AlertDimensions, range: DateRange) {
  return sql<string>`(select coalesce(sum(count), 0) from (${alertRows(tenantId, dims, range)}) as part)`;
}
