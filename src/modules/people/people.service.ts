import type { Deps } from '../../platform/deps.js';
import type { RequestContext } from '../../kernel/context.js';
import { AppError } from '../../kernel/errors.js';
import { parseDateRange } from '../../kernel/dates.js';
import { KeysetPage } from '../../kernel/paging/cursor.js';
import type { PageInfo, PageRequest } from '../../kernel/paging/pagination.js';
import { countByPlatform } from '../platforms/platforms.usage.js';
import { platformStatusesOf } from '../platforms/platforms.statuses.js';
import { PEOPLE_ORDER, rankedPeople } from './people.repo.js';
import type { PeopleRiskFilters, PeopleRiskList, PersonRisk } from './people.schemas.js';

/**
 * Most interactions a period may hold: the ranking reads the period's high-risk, alerted and
 * classified interactions, a share of these (docs/platforms.md, "People at risk").
 */
export const PEOPLE_RISK_MAX_INTERACTIONS = 1_000_000;

/**
 * The people ranked by their risk score over the period, a page of them. The period's count of
 * interactions (exact, from the aggregates) bounds the work first; then one statement ranks, in
 * one snapshot with that count.
 */
export async function peopleAtRisk(
  deps: Deps, ctx: RequestContext, filters: PeopleRiskFilters, request: PageRequest, maxInteractions = PEOPLE_RISK_MAX_INTERACTIONS,
): Promise<{ body: PeopleRiskList; page: PageInfo }> {
  const range = parseDateRange(filters);
  const page = KeysetPage.open(request, PEOPLE_ORDER, {
    list: 'people_risk', start_date: range.start, end_date: range.end,
  });
  const db = await deps.store.reader();
  const rows = await db.transaction().setIsolationLevel('repeatable read').execute(async (tx) => {
    const platforms = await countByPlatform(tx, ctx.tenantId, range);
    const interactions = platforms.reduce((sum, row) => sum + row.interactions, 0);
    if (interactions > maxInteractions) {
      throw new AppError('validation_error', 'Invalid request: the period holds too many interactions to rank people', {
        details: [{ path: 'query.start_date', message: `the period holds ${interactions} interactions; at most `
          + `${maxInteractions}: narrow it with start_date and end_date` }],
      });
    }
    const statuses = (await platformStatusesOf(tx, [ctx.tenantId])).get(ctx.tenantId)!;
    const unsanctioned = platforms.map((row) => row.platform_id).filter((id) => statuses.get(id) !== 'sanctioned');
    return rankedPeople(tx, ctx.tenantId, range, unsanctioned, page).execute();
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
