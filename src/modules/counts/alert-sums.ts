import { type Compilable, type Kysely, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import type { Severity } from '../../kernel/tables/interactions.js';
import type { DateRange } from '../../kernel/dates.js';
import { splitTime } from './buckets.js';

/**
 * The open alerts created within the range, by severity, in one statement: the whole hours from
 * alert_counts and its deltas, the partial hours at the range's ends counted from their rows
 * (alerts_open_severity_idx). Severities without open alerts are absent.
 */
export async function openAlertsBySeverity(db: Kysely<Database>, tenantId: string, range: DateRange) {
  const time = splitTime(range.start, range.end);
  const parts: Compilable[] = time.edges.map((edge) => db.selectFrom('alerts')
    .select(['severity', (eb) => eb.fn.countAll<string>().as('count')])
    .where('tenant_id', '=', tenantId).where('status', '=', 'open')
    .where('created_at', '>=', new Date(edge.start)).where('created_at', '<=', new Date(edge.end))
    .groupBy('severity'));
  const covered = time.covered;
  if (covered) {
    parts.push(...time.buckets.map((bucket) => db.selectFrom('alert_counts')
      .select(['severity', 'count'])
      .where('tenant_id', '=', tenantId).where('granularity', '=', bucket.granularity)
      .$if(bucket.from !== null, (q) => q.where('bucket', '>=', new Date(bucket.from!)))
      .$if(bucket.to !== null, (q) => q.where('bucket', '<', new Date(bucket.to!)))));
    parts.push(db.selectFrom('alert_count_deltas')
      .select(['severity', 'count'])
      .where('tenant_id', '=', tenantId)
      .$if(covered.from !== null, (q) => q.where('bucket', '>=', new Date(covered.from!)))
      .$if(covered.to !== null, (q) => q.where('bucket', '<', new Date(covered.to!))));
  }
  const { rows } = await sql<{ severity: Severity; count: string | number }>`
    select severity, sum(count) as count from (${sql.join(parts, sql` union all `)}) as part group by severity`.execute(db);
  return rows;
}
