import type { Deps } from '../../platform/deps.js';
import type { RequestContext } from '../../kernel/context.js';
import { parseDateRange } from '../../kernel/dates.js';
import { KeysetPage } from '../../kernel/paging/cursor.js';
import type { PageInfo, PageRequest } from '../../kernel/paging/pagination.js';
import { platformStatusesOf } from '../platforms/platforms.statuses.js';
import { periodFigures } from '../rollups/rollup-read.js';
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
  // The statuses as they are now, read on a connection of their own meanwhile: they are not figures of the period.
  const statuses = platformStatusesOf(db, [ctx.tenantId]);
  statuses.catch(() => {}); // awaited below; a failure then is the request's
  const { rows, total } = await db.transaction().setIsolationLevel('repeatable read').execute(async (tx) => {
    const figures = await periodFigures(tx, ctx.tenantId, range, 'people');
    const tenantStatuses = (await statuses).get(ctx.tenantId)!;
    return rankedPeople(tx, ctx.tenantId, figures, (id) => tenantStatuses.get(id) !== 'sanctioned', page);
  });
  const closed = page.close(rows);
  const people: PersonRisk[] = closed.rows.map((row) => ({
    user_id: row.user_id, score: row.score, high_risk: row.high_risk, violations: row.violations,
    sensitive_types: row.sensitive_types, unsanctioned_platforms: row.unsanctioned_platforms,
  }));
  return {
    body: {
      start_date: range.start?.toISOString() ?? null, end_date: range.end?.toISOString() ?? null,
      people, total, next_cursor: closed.page.nextCursor,
    },
    page: closed.page,
  };
}
