import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import { type Keyset, type KeysetPage, sortKey } from '../../kernel/paging/cursor.js';
import { userIdsOfNumbers } from '../rollups/rollup-read.js';
import type { PersonFigures, UsageFigures } from '../rollups/usage-figures.js';

type Db = Kysely<Database> | Transaction<Database>;

/** The weights of the score (docs/platforms.md, "People at risk"). */
export const SCORE_WEIGHTS = { high_risk: 1, violations: 2, sensitive_types: 5, unsanctioned_platforms: 10 } as const;

/** Highest score first, ties by user_id (descending); a cursor carries [score, user_id]. */
export const PEOPLE_ORDER: Keyset = {
  keys: [sortKey.number('score', [0, Number.MAX_SAFE_INTEGER]), sortKey.uuid('user_id')],
  direction: 'desc',
};

interface Person extends PersonFigures {
  /** Null until read for a person known by number only. */
  user_id: string | null;
  score: number;
}

export interface RankedPerson extends Person {
  user_id: string;
  cursor_key: [number, string];
}

/**
 * Every person with a score above zero in the period, and a page of them. `figures` are the
 * period's (`periodFigures`: the clean roll-ups covering its whole days and the rows of the
 * rest, open, partial and dirty days; rollups/rollup-read.ts). They are scored and ranked here:
 * PostgreSQL is asked only for the user ids of the people who can be on the page (the first ones
 * by score and whoever ties with the last of them), not sent every person's figures. Run it in
 * one repeatable-read transaction: roll-ups, dirty marks, rows and user numbers are then one
 * snapshot. `unsanctioned` says which platforms count in `unsanctioned_platforms`.
 */
export async function rankedPeople(
  db: Db, tenantId: string, figures: UsageFigures, unsanctioned: (platformId: string) => boolean, page: KeysetPage,
): Promise<{ rows: RankedPerson[]; total: number }> {
  const { numbered, unnumbered } = figures.perUser(unsanctioned);
  // An erased person's days are dirty until rolled up again without them, so no figure carries their number.
  const people: Person[] = [
    ...numbered.map((person) => ({ ...person, user_id: null, score: scoreOf(person) })),
    ...unnumbered.map((person) => ({ ...person, score: scoreOf(person) })),
  ].sort((a, b) => b.score - a.score);

  const after = page.afterKey as readonly [number, string] | undefined;
  const afterUser = after?.[1].toLowerCase();
  const isAfterCursor = (person: RankedPerson) =>
    !after || person.score < after[0] || (person.score === after[0] && person.user_id < afterUser!);
  const remaining = after ? people.filter((person) => person.score <= after[0]) : people;
  const skipped = after ? 0 : page.offset;
  const wanted = skipped + page.limit + 1;
  // Whoever scores below the last one read ranks after everyone read: widen only when the
  // cursor's ties left too few.
  for (let take = wanted; ; take += wanted) {
    const lowest = take < remaining.length ? remaining[take - 1]!.score : -Infinity;
    const candidates = remaining.filter((person) => person.score >= lowest);
    const ranked = (await withUserIds(db, tenantId, candidates)).filter(isAfterCursor).sort(byRank);
    if (ranked.length >= wanted || candidates.length === remaining.length) {
      return { rows: ranked.slice(skipped, wanted), total: people.length };
    }
  }
}

const scoreOf = (person: PersonFigures) => SCORE_WEIGHTS.high_risk * person.high_risk + SCORE_WEIGHTS.violations * person.violations
  + SCORE_WEIGHTS.sensitive_types * person.sensitive_types + SCORE_WEIGHTS.unsanctioned_platforms * person.unsanctioned_platforms;

const byRank = (a: RankedPerson, b: RankedPerson) => b.score - a.score || (a.user_id < b.user_id ? 1 : a.user_id > b.user_id ? -1 : 0);

/** The people with their user ids, read for those known by number only. */
async function withUserIds(db: Db, tenantId: string, people: readonly Person[]): Promise<RankedPerson[]> {
  const ids = await userIdsOfNumbers(db, tenantId, people.filter((person) => person.user_id === null).map((person) => person.n));
  return people.flatMap((person) => {
    const userId = person.user_id ?? ids.get(person.n);
    return userId === undefined ? [] : [{ ...person, user_id: userId, cursor_key: [person.score, userId] as [number, string] }];
  });
}
