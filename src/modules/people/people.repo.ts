import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import type { DateRange } from '../../kernel/dates.js';
import { type Keyset, type KeysetPage, sortKey } from '../../kernel/paging/cursor.js';
import { periodFigures } from '../rollups/rollup-read.js';

type Db = Kysely<Database> | Transaction<Database>;

/** The weights of the score (docs/platforms.md, "People at risk"). */
export const SCORE_WEIGHTS = { high_risk: 1, violations: 2, sensitive_types: 5, unsanctioned_platforms: 10 } as const;

/** Highest score first, ties by user_id (descending: a keyset reads its keys in one direction). */
export const PEOPLE_ORDER: Keyset = {
  keys: [sortKey.number('ranked.score', [0, Number.MAX_SAFE_INTEGER]), sortKey.uuid('ranked.user_id')],
  direction: 'desc',
};

export interface RankedRow {
  user_id: string;
  score: string | number;
  high_risk: string | number;
  violations: string | number;
  sensitive_types: string | number;
  unsanctioned_platforms: string | number;
  total: string | number;
}

/**
 * Every person with a score above zero in the range, a page of them (the total of the whole
 * ranking on each row). The figures come from the clean roll-ups covering the range's whole days
 * and from the rows of the rest (open, partial and dirty days; rollups/rollup-read.ts), combined
 * per person here; one statement then ranks them and applies the page's keyset. Run it in one
 * repeatable-read transaction: roll-ups, dirty marks and rows are one snapshot.
 * `unsanctioned` says which platforms count in `unsanctioned_platforms`.
 */
export async function rankedPeople(
  db: Db, tenantId: string, range: DateRange, unsanctioned: (platformId: string) => boolean, page: KeysetPage,
) {
  const figures = await periodFigures(db, tenantId, range, 'people');
  const { numbered, unnumbered } = figures.perUser(unsanctioned);
  const column = <T>(rows: readonly T[], pick: (row: T) => number) => rows.map(pick);
  const w = SCORE_WEIGHTS;
  const ranked = sql<RankedRow>`(
    with figures as (
      select u.user_id, f.high_risk, f.violations, f.sensitive_types, f.unsanctioned_platforms
      from unnest(${column(numbered, (p) => p.n)}::int[], ${column(numbered, (p) => p.high_risk)}::bigint[],
        ${column(numbered, (p) => p.violations)}::bigint[], ${column(numbered, (p) => p.sensitive_types)}::bigint[],
        ${column(numbered, (p) => p.unsanctioned_platforms)}::bigint[])
        as f(n, high_risk, violations, sensitive_types, unsanctioned_platforms)
      join usage_rollup_users u on u.tenant_id = ${tenantId} and u.n = f.n and u.user_id is not null
      union all
      select * from unnest(${unnumbered.map((p) => p.user_id)}::uuid[], ${column(unnumbered, (p) => p.high_risk)}::bigint[],
        ${column(unnumbered, (p) => p.violations)}::bigint[], ${column(unnumbered, (p) => p.sensitive_types)}::bigint[],
        ${column(unnumbered, (p) => p.unsanctioned_platforms)}::bigint[])
        as f(user_id, high_risk, violations, sensitive_types, unsanctioned_platforms))
    select user_id, high_risk, violations, sensitive_types, unsanctioned_platforms,
      (${w.high_risk} * high_risk + ${w.violations} * violations + ${w.sensitive_types} * sensitive_types
        + ${w.unsanctioned_platforms} * unsanctioned_platforms)::float8 as score,
      count(*) over () as total
    from figures)`;
  return page.apply(db.selectFrom(ranked.as('ranked')).selectAll()).execute();
}
