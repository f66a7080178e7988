import SCIMMY from 'scimmy';
import { invalidValue, ScimError } from './scim.errors.js';

export interface UserCondition {
  attribute: 'userName' | 'externalId';
  value: string;
}

/** Users match when all the conditions of one of the groups hold: an `or` of `and`s. */
export type UserFilter = UserCondition[][];

export interface Paging {
  /** 1-based. */
  startIndex: number;
  count: number;
}

export const DEFAULT_COUNT = 100;
export const MAX_COUNT = 200;
const MAX_FILTER_LENGTH = 2000;
const MAX_GROUPS = 50;
const FILTERABLE: Record<string, UserCondition['attribute']> = { username: 'userName', externalid: 'externalId' };
const SUPPORTED = 'userName eq "…" and externalId eq "…", alone or joined by and/or';

const invalidFilter = (detail: string) => new ScimError(400, 'invalidFilter', detail);

/** `filter`: what identity providers send to find a user (Entra ID and Okta: `userName eq "…"`). */
export function readUserFilter(filter: unknown): UserFilter | undefined {
  if (filter === undefined) return undefined;
  if (typeof filter !== 'string' || filter.trim() === '') throw invalidFilter(`filter must be an expression: ${SUPPORTED}`);
  if (filter.length > MAX_FILTER_LENGTH) throw invalidFilter(`filter must be at most ${MAX_FILTER_LENGTH} characters`);
  let parsed: SCIMMY.Types.Filter;
  try {
    parsed = new SCIMMY.Types.Filter(filter);
  } catch (error) {
    // The library's own errors say what is wrong; anything else it throws is about a filter it could not read.
    const why = error instanceof SCIMMY.Types.Error ? error.message : 'The filter cannot be read';
    throw invalidFilter(`${why}; supported: ${SUPPORTED}`);
  }
  const groups = [...parsed].map((group: Record<string, unknown>) =>
    Object.entries(group).flatMap(([attribute, expression]) => conditionsOn(attribute, expression)));
  // An alternative without a condition (`()`, a lone `or`) would match every user.
  if (groups.length === 0 || groups.some((group) => group.length === 0)) {
    throw invalidFilter(`The filter has an empty alternative; supported: ${SUPPORTED}`);
  }
  if (groups.length > MAX_GROUPS) throw invalidFilter(`filter may join at most ${MAX_GROUPS} alternatives`);
  return groups;
}

function conditionsOn(attribute: string, expression: unknown): UserCondition[] {
  const name = FILTERABLE[attribute.toLowerCase()];
  if (!name) throw invalidFilter(`Filtering on ${attribute} is not supported; supported: ${SUPPORTED}`);
  const comparisons = Array.isArray(expression) && Array.isArray(expression[0]) ? expression as unknown[] : [expression];
  return comparisons.map((comparison) => {
    if (!Array.isArray(comparison) || comparison.length !== 2 || String(comparison[0]).toLowerCase() !== 'eq'
      || typeof comparison[1] !== 'string') {
      throw invalidFilter(`Only ${name} eq "…" (a quoted string) is supported on ${name}`);
    }
    return { attribute: name, value: comparison[1] };
  });
}

/** `startIndex` below 1 is 1, `count` below 0 is 0 and above the maximum is the maximum (RFC 7644, 3.4.2.4). */
export function readPaging(query: { startIndex?: unknown; count?: unknown }): Paging {
  const startIndex = integerOf('startIndex', query.startIndex) ?? 1;
  const count = integerOf('count', query.count) ?? DEFAULT_COUNT;
  return { startIndex: Math.max(startIndex, 1), count: Math.min(Math.max(count, 0), MAX_COUNT) };
}

function integerOf(parameter: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^-?\d{1,9}$/.test(value)) throw invalidValue(`${parameter} must be an integer`);
  return Number(value);
}
