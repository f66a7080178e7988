import type { Deps } from '../../platform/deps.js';
import type { RequestContext } from '../../kernel/context.js';
import { parseDateRange } from '../../kernel/dates.js';
import { KeysetPage } from '../../kernel/paging/cursor.js';
import type { PageInfo, PageRequest } from '../../kernel/paging/pagination.js';
import { platformStatusesOf } from '../platforms/platforms.statuses.js';
import { PEOPLE_ORDER, rankedPeople } from './people.repo.js';
import type { PeopleRiskFilters, PeopleRiskList, PersonRisk } from './people.schemas.js';

/**
 * The people ranked by their risk score over the period, a page of them, from the roll-ups of its
 * closed days and the rows of the rest, in one snapshot (people.repo.ts). Unsanctioned platforms
 * are those whose status is not `sanctioned` now.
 */
export async function peopleAtRisk(
  deps: Deps, ctx: RequestContext, filters: PeopleRiskFilters, request: PageRequest,
): Promise<{ body: PeopleRiskList; page: PageInfo }> {
  const range = parseDateRange(filters);
  const page = KeysetPage.open(request, PEOPLE_ORDER, {
    list: 'people_risk', start_date: range.start, end_date: range.end,
  });
  const db = await deps.store.reader();
  const rows = await db.transaction().setIsolationLevel('repeatable read').execute(async (tx) => {
    const statuses = (await platformStatusesOf(tx, [ctx.tenantId])).get(ctx.tenantId)!;
    return rankedPeople(tx, ctx.tenantId, range, (id) => statuses.get(id) !== 'sanctioned', page);
  });
  const closed = page.close(rows);
  let total = rows.length > 0 ? Number(rows[0]!.total) : 0;
  if (rows.length === 0 && closed.page.offset > 0) total = await countPeople(deps, ctx, range);
  const people: PersonRisk[] = closed.rows.map((row) => ({
    user_id: row.user_id, score: Number(row.score), high_risk: Number(row.high_risk), violations: Number(row.violations),
    sensitive_types: Number(row.sensitive_types), unsanctioned_platforms: Number(row.unsanctioned_platforms),
  }));
  return {
    body: {
      start_date: range.start?.toISOString() ?? null, end_date: range.end?.toISOString() ?? null,
      people, total, next_cursor: closed.page.nextCursor,
    },
    page: closed.page,
  };
}

/** The ranking's size, for a page past its end (which holds no row to carry it). */
async function countPeople(deps: Deps, ctx: RequestContext, range: ReturnType<typeof parseDateRange>): Promise<number> {
  const first = await peopleAtRisk(deps, ctx, {
    limit: 1, start_date: range.start?.toISOString(), end_date: range.end?.toISOString(),
  }, { limit: 1, offset: 0, cursor: undefined });
  return first.body.total;
}
