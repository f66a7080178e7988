import type { Kysely, Transaction } from 'kysely';
import { sql } from 'kysely';
import type { Database } from '../../db/types.js';
import type { Deps } from '../../deps.js';
import { sha256Hex } from '../../lib/crypto.js';
import { AppError } from '../../lib/errors.js';
import { canonicalJson } from './canonical-json.js';

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface CreateResponse {
  status: number;
  body: unknown;
  /** True when this is the stored first response of an earlier request with the same key. */
  replayed: boolean;
}

interface Request {
  tenantId: string;
  key: string | undefined;
  /** The route and the normalised input: what makes two requests "the same". */
  route: string;
  payload: unknown;
}

class KeyTakenMeanwhile extends Error {}

/**
 * Runs a create in one transaction. With an `Idempotency-Key`, the first response is stored in
 * that same transaction, and a retry within 24 h gets it back without storing anything; the same
 * key with another request is 409 idempotency_conflict. Two concurrent requests with one key
 * cannot both store: the second waits on the key's row, then rolls back and replays the first.
 */
export async function runIdempotent(
  deps: Deps, request: Request, create: (tx: Transaction<Database>) => Promise<{ status: number; body: unknown }>,
): Promise<CreateResponse> {
  const db = deps.store.db;
  if (request.key === undefined) {
    return { ...(await db.transaction().execute(create)), replayed: false };
  }
  const key = request.key;
  const fingerprint = sha256Hex(`${request.route}\n${canonicalJson(request.payload)}`);
  const now = deps.clock.now();
  const expiredBefore = new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS);

  const earlier = await findLiveKey(db, request.tenantId, key, expiredBefore);
  if (earlier) return replay(earlier, fingerprint);
  try {
    const result = await db.transaction().execute(async (tx) => {
      const response = await create(tx);
      const saved = await sql<{ key: string }>`
        insert into idempotency_keys (tenant_id, key, fingerprint, response_status, response_body, created_at)
        values (${request.tenantId}, ${key}, ${fingerprint}, ${response.status}, ${JSON.stringify(response.body)}::json, ${now})
        on conflict (tenant_id, key) do update set fingerprint = excluded.fingerprint,
          response_status = excluded.response_status, response_body = excluded.response_body, created_at = excluded.created_at
        where idempotency_keys.created_at < ${expiredBefore}
        returning key`.execute(tx);
      if (saved.rows.length === 0) throw new KeyTakenMeanwhile();
      return response;
    });
    await purgeExpiredKeys(deps, request.tenantId, now, expiredBefore);
    return { ...result, replayed: false };
  } catch (error) {
    if (!(error instanceof KeyTakenMeanwhile)) throw error;
    const winner = await findLiveKey(db, request.tenantId, key, expiredBefore);
    if (!winner) throw new AppError('idempotency_conflict', 'Another request with this Idempotency-Key is in progress');
    return replay(winner, fingerprint);
  }
}

async function findLiveKey(db: Kysely<Database>, tenantId: string, key: string, expiredBefore: Date) {
  return db.selectFrom('idempotency_keys').select(['fingerprint', 'response_status', 'response_body'])
    .where('tenant_id', '=', tenantId).where('key', '=', key).where('created_at', '>=', expiredBefore)
    .executeTakeFirst();
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

const PURGE_EVERY_MS = 60 * 60 * 1000;
const lastPurges = new WeakMap<Deps, Map<string, number>>();

/**
 * Housekeeping after a keyed create, at most hourly per tenant and process, so the hot path
 * pays for it rarely. A failure here must not fail the create that committed.
 */
async function purgeExpiredKeys(deps: Deps, tenantId: string, now: Date, expiredBefore: Date): Promise<void> {
  let purges = lastPurges.get(deps);
  if (!purges) lastPurges.set(deps, (purges = new Map()));
  const last = purges.get(tenantId);
  if (last !== undefined && now.getTime() - last < PURGE_EVERY_MS) return;
  purges.set(tenantId, now.getTime());
  await deps.store.db.deleteFrom('idempotency_keys').where('tenant_id', '=', tenantId).where('created_at', '<', expiredBefore)
    .execute().catch(() => undefined);
}
