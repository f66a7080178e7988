import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database } from '../../../kernel/tables/database.js';
import type { Store } from '../../../platform/store/store.js';
import { sha256Hex } from '../../../kernel/crypto.js';
import { AppError } from '../../../kernel/errors.js';
import { canonicalJson } from '../../../kernel/canonical-json.js';
import { decryptValue, encryptValue, type TenantKeys } from '../../../platform/crypto/envelope.js';

// An `Idempotency-Key` makes a create repeatable for 24 h: the first response is stored in the
// transaction that stores the create, a retry gets it back without storing anything, and the same
// key with another request is 409 idempotency_conflict. Two concurrent requests with one key
// cannot both store: the second waits on the key's row, then stores nothing and replays the first.

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface CreateResponse {
  status: number;
  body: unknown;
  /** True when this is the stored first response of an earlier request with the same key. */
  replayed: boolean;
}

/** A keyed create: its key and what makes two requests "the same" (route and normalised input). */
export interface IdempotentRequest {
  tenantId: string;
  key: string;
  fingerprint: string;
}

export function fingerprintOf(route: string, payload: unknown): string {
  return sha256Hex(`${route}\n${canonicalJson(payload)}`);
}

export const expiredBefore = (now: Date) => new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS);

// A stored response holds the detected values of the create: kept encrypted, as a JSON string.
const RESPONSE_PURPOSE = 'idempotency.response';

export function sealIdempotentResponse(keys: TenantKeys, body: unknown): string {
  return encryptValue(keys, RESPONSE_PURPOSE, JSON.stringify(body));
}

/** Responses stored by releases before they were sealed are objects, read as they are. */
function openResponse(keys: TenantKeys, stored: unknown): unknown {
  return typeof stored === 'string' ? JSON.parse(decryptValue(keys, RESPONSE_PURPOSE, stored)) : stored;
}

/** The stored response of a live key, replayed; undefined when the key is free. */
export async function findReplay(db: Kysely<Database>, request: IdempotentRequest, now: Date, keys: TenantKeys) {
  const stored = await db.selectFrom('idempotency_keys').select(['fingerprint', 'response_status', 'response_body'])
    .where('tenant_id', '=', request.tenantId).where('key', '=', request.key).where('created_at', '>=', expiredBefore(now))
    .executeTakeFirst();
  return stored && replay({ ...stored, response_body: openResponse(keys, stored.response_body) }, request.fingerprint);
}

/** The replay of a request that lost its key to another one committed meanwhile (or still in flight: 409). */
export async function replayLoser(
  db: Kysely<Database>, request: IdempotentRequest, now: Date, keys: TenantKeys,
): Promise<CreateResponse> {
  const replayed = await findReplay(db, request, now, keys);
  if (!replayed) throw new AppError('idempotency_conflict', 'Another request with this Idempotency-Key is in progress');
  return replayed;
}

function replay(
  stored: { fingerprint: string; response_status: number; response_body: unknown }, fingerprint: string,
): CreateResponse {
  if (stored.fingerprint !== fingerprint) {
    throw new AppError('idempotency_conflict',
      'This Idempotency-Key was already used with a different request in the last 24 hours; use a new key');
  }
  return { status: stored.response_status, body: stored.response_body, replayed: true };
}

/**
 * Stores the first response of each keyed request inside the transaction that stores the
 * creates, and says which requests got their key. A key held by another live request waits for
 * it, then is not taken; keys are taken in one order so concurrent groups cannot deadlock.
 */
export async function claimKeys(
  tx: Transaction<Database>, claims: ReadonlyArray<IdempotentRequest & { response: { status: number; body: unknown } }>,
  now: Date, keys: ReadonlyMap<string, TenantKeys>,
): Promise<Set<string>> {
  if (claims.length === 0) return new Set();
  const rows = claims.map((claim) => ({
    tenant_id: claim.tenantId, key: claim.key, fingerprint: claim.fingerprint,
    response_status: claim.response.status, response_body: sealIdempotentResponse(keys.get(claim.tenantId)!, claim.response.body),
    created_at: now,
  }));
  const { rows: claimed } = await sql<{ tenant_id: string; key: string }>`
    insert into idempotency_keys (tenant_id, key, fingerprint, response_status, response_body, created_at)
    select tenant_id, key, fingerprint, response_status, response_body, created_at
    from json_populate_recordset(null::idempotency_keys, ${JSON.stringify(rows)}::json)
    order by tenant_id, key
    on conflict (tenant_id, key) do update set fingerprint = excluded.fingerprint,
      response_status = excluded.response_status, response_body = excluded.response_body, created_at = excluded.created_at
    where idempotency_keys.created_at < ${expiredBefore(now)}
    returning tenant_id, key`.execute(tx);
  return new Set(claimed.map((row) => keyOf(row.tenant_id, row.key)));
}

export const keyOf = (tenantId: string, key: string) => `${tenantId}\n${key}`;

const PURGE_EVERY_MS = 60 * 60 * 1000;

/**
 * Housekeeping after a keyed create, at most hourly per tenant and process, so the hot path
 * pays for it rarely. A failure here must not fail the create that committed.
 */
export class ExpiredKeysPurge {
  /** When this process last purged each tenant's expired keys. */
  private readonly lastPurges = new Map<string, number>();

  constructor(private readonly store: Store) {}

  async after(tenantId: string, now: Date): Promise<void> {
    const last = this.lastPurges.get(tenantId);
    if (last !== undefined && now.getTime() - last < PURGE_EVERY_MS) return;
    this.lastPurges.set(tenantId, now.getTime());
    await this.store.db.deleteFrom('idempotency_keys').where('tenant_id', '=', tenantId).where('created_at', '<', expiredBefore(now))
      .execute().catch(() => undefined);
  }
}
