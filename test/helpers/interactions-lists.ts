import { expect } from 'vitest';
import type { Harness } from './harness.js';

export interface Stored { id: string; timestamp: string; platform_id: string; risk_score: number; source: string;
  direction: string; user_id: string | null; classifications: Array<{ type: string }> }
export type ListQuery = Record<string, string | number>;

/** What the interactions list must return: the same filters and order, computed in memory. */
export function expected(all: Stored[], query: ListQuery): string[] {
  const rows = all.filter((i) =>
    (query.platform_id === undefined || i.platform_id === String(query.platform_id).trim().toLowerCase()) &&
    (query.risk_score_min === undefined || i.risk_score >= Number(query.risk_score_min)) &&
    (query.risk_score_max === undefined || i.risk_score <= Number(query.risk_score_max)) &&
    (query.classification_type === undefined || i.classifications.some((c) => c.type === query.classification_type)) &&
    (query.source === undefined || i.source === query.source) &&
    (query.direction === undefined || i.direction === query.direction) &&
    (query.user_id === undefined || i.user_id === String(query.user_id).toLowerCase()) &&
    (query.start_date === undefined || i.timestamp >= String(query.start_date)) &&
    (query.end_date === undefined || i.timestamp <= String(query.end_date)));
  const sort = String(query.sort ?? '-timestamp');
  const field = sort.replace(/^-/, '') as 'timestamp' | 'risk_score' | 'platform_id';
  const sign = sort.startsWith('-') ? -1 : 1;
  const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
  rows.sort((a, b) => sign * (cmp(a[field], b[field]) || cmp(a.timestamp, b.timestamp) || cmp(a.id, b.id)));
  return rows.map((i) => i.id);
}

export interface WalkedPage {
  ids: string[];
  body: Record<string, any>;
  headers: Record<string, unknown>;
}

/**
 * Follows a list from its first page through `next_cursor` until it is null, `limitOf(n)` rows
 * per page n. Every page must be a 200; the ids come out in the order the pages gave them.
 */
export async function walkList(h: Harness, url: string, token: string, query: ListQuery,
  limitOf: (page: number) => number, itemsKey: string,
  beforePage?: (page: number) => Promise<void>): Promise<{ ids: string[]; pages: WalkedPage[] }> {
  const pages: WalkedPage[] = [];
  let cursor: string | undefined;
  for (let n = 0; n < 10_000; n += 1) {
    await beforePage?.(n);
    const response = await h.call('GET', url, { token, query: { ...query, limit: limitOf(n), ...(cursor ? { cursor } : {}) } });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    pages.push({ ids: body[itemsKey].map((item: { id: string }) => item.id), body, headers: response.headers });
    if (body.next_cursor === null) return { ids: pages.flatMap((page) => page.ids), pages };
    cursor = body.next_cursor;
  }
  throw new Error('the walk did not end');
}

/** A cursor's JSON, and a cursor made of JSON: for tests that tamper with cursors. */
export const cursorJson = (cursor: string) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
export const cursorOf = (json: unknown) => Buffer.from(typeof json === 'string' ? json : JSON.stringify(json)).toString('base64url');
