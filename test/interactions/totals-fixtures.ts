import fc from 'fast-check';
import { type Kysely, sql, type Transaction } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../../src/kernel/tables/database.js';
import { floor } from '../../src/modules/counts/buckets.js';
import type { Harness, TestTenant } from '../helpers/harness.js';
import { classification, interactionBody } from '../helpers/interactions-fixtures.js';

export const PLATFORMS = ['openai', 'claude', 'mistral'];
export const SOURCES = ['browser_extension', 'proxy', 'endpoint_agent', 'api'];
export const DIRECTIONS = ['outbound', 'inbound'];
export const TYPES = ['EMAIL', 'IBAN', 'CREDIT_CARD'];
export const USERS = ['0190a0a0-0000-7000-8000-000000000001', '0190a0a0-0000-7000-8000-000000000002'];
const MINUTE = 60_000;
/** Gaps between batches: within an hour, across hours, days and months. */
const GAPS = [0, MINUTE, 23 * MINUTE, 3 * 60 * MINUTE, 26 * 60 * MINUTE, 9 * 24 * 60 * MINUTE];

/** Risk scores as clients send them: any double, two decimals, and the bucket thresholds. */
export const riskScore = fc.oneof(
  fc.double({ min: 0, max: 1, noNaN: true }),
  fc.integer({ min: 0, max: 100 }).map((n) => n / 100),
  fc.integer({ min: 0, max: 10 }).map((n) => n / 10),
);

/**
 * `batches` batches of random interactions, the clock moving on between them (minutes to weeks,
 * so the data spans hours, days and months). Returns the stored timestamps (ms).
 */
export async function seedSpread(h: Harness, t: TestTenant, batches: number): Promise<number[]> {
  const items = fc.sample(fc.record({
    platform_id: fc.constantFrom(...PLATFORMS),
    source: fc.constantFrom(...SOURCES),
    direction: fc.constantFrom(...DIRECTIONS),
    risk_score: riskScore,
    user_id: fc.constantFrom(null, ...USERS),
    types: fc.subarray(TYPES),
  }), batches * 12);
  for (let b = 0; b < batches; b++) {
    const body = items.slice(b * 12, b * 12 + 1 + (b % 12)).map(({ types, ...fields }) =>
      interactionBody({ ...fields, classifications: types.flatMap((type) => [classification(type), classification(type)]) }));
    const response = await h.call('POST', '/api/v1/interactions/batch', { token: t.adminToken, body });
    expect(response.statusCode, response.body).toBe(200);
    h.clock.advance(GAPS[b % GAPS.length]! + (b * 7919) % MINUTE);
  }
  const { rows } = await sql<{ ms: string }>`select distinct (extract(epoch from timestamp) * 1000)::bigint as ms
    from interactions where tenant_id = ${t.tenantId}`.execute(h.db);
  return rows.map((row) => Number(row.ms));
}

export interface Filters {
  platform_id?: string;
  source?: string;
  direction?: string;
  classification_type?: string;
  risk_score_min?: number;
  risk_score_max?: number;
  start_date?: string;
  end_date?: string;
  user_id?: string;
}

/** A date filter near the data: a stored timestamp or its neighbour, a bucket start, or anywhere in between. */
function dateNear(timestamps: () => number[]) {
  return fc.tuple(fc.nat(), fc.constantFrom('row', 'hour', 'day', 'month', 'any'), fc.constantFrom(-1, 0, 1), fc.nat(40 * 24 * 60))
    .map(([index, kind, shift, minutes]) => {
      const all = timestamps();
      const at = all[index % all.length]!;
      if (kind === 'row') return at + shift;
      if (kind === 'any') return at + shift * minutes * MINUTE;
      return floor(kind, at) + shift;
    });
}

/** Random list filters over the seeded vocabulary, valid for the API (min <= max, start <= end). */
export function randomFilters(timestamps: () => number[]): fc.Arbitrary<Filters> {
  const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });
  return fc.record({
    platform_id: optional(fc.constantFrom(...PLATFORMS)),
    source: optional(fc.constantFrom(...SOURCES)),
    direction: optional(fc.constantFrom(...DIRECTIONS)),
    classification_type: optional(fc.constantFrom(...TYPES)),
    risk_score_min: optional(riskScore),
    risk_score_max: optional(riskScore),
    start: optional(dateNear(timestamps)),
    end: optional(dateNear(timestamps)),
    user_id: fc.option(fc.constantFrom(...USERS), { nil: undefined, freq: 5 }),
  }).map(({ start, end, ...filters }) => {
    const result: Filters = Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined));
    if (result.risk_score_min !== undefined && result.risk_score_max !== undefined && result.risk_score_min > result.risk_score_max) {
      [result.risk_score_min, result.risk_score_max] = [result.risk_score_max, result.risk_score_min];
    }
    const [from, to] = start !== undefined && end !== undefined && start > end ? [end, start] : [start, end];
    if (from !== undefined) result.start_date = new Date(from).toISOString();
    if (to !== undefined) result.end_date = new Date(to).toISOString();
    return result;
  });
}

/** count(*) of the filters, written apart from the service's code (types read from the rows' classifications). */
export async function plainCount(db: Kysely<Database> | Transaction<Database>, tenantId: string, f: Filters): Promise<number> {
  const conditions = [sql`tenant_id = ${tenantId}`];
  if (f.platform_id !== undefined) conditions.push(sql`platform_id = ${f.platform_id}`);
  if (f.source !== undefined) conditions.push(sql`source = ${f.source}`);
  if (f.direction !== undefined) conditions.push(sql`direction = ${f.direction}`);
  if (f.user_id !== undefined) conditions.push(sql`user_id = ${f.user_id}`);
  if (f.risk_score_min !== undefined) conditions.push(sql`risk_score >= ${f.risk_score_min}`);
  if (f.risk_score_max !== undefined) conditions.push(sql`risk_score <= ${f.risk_score_max}`);
  if (f.start_date !== undefined) conditions.push(sql`timestamp >= ${f.start_date}::timestamptz`);
  if (f.end_date !== undefined) conditions.push(sql`timestamp <= ${f.end_date}::timestamptz`);
  if (f.classification_type !== undefined) {
    conditions.push(sql`exists (select 1 from jsonb_array_elements(classifications) c where c->>'type' = ${f.classification_type})`);
  }
  const { rows } = await sql<{ n: string | number }>`select count(*) as n from interactions where ${sql.join(conditions, sql` and `)}`.execute(db);
  return Number(rows[0]!.n);
}
