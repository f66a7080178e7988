import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import { randomSecret, sha256Hex } from '../../kernel/crypto.js';
import { uuidv7 } from '../../kernel/ids.js';
import { SESSION_TOKEN_PREFIX } from './tokens.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Creates a session and returns its bearer token: shown once, stored only as its SHA-256. */
export async function createSession(
  db: Db,
  tenantId: string,
  userId: string,
  now: Date,
  ttlSeconds: number,
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomSecret(SESSION_TOKEN_PREFIX);
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  await db
    .insertInto('sessions')
    .values({
      tenant_id: tenantId,
      id: uuidv7(now.getTime()),
      user_id: userId,
      token_hash: sha256Hex(token),
      created_at: now,
      expires_at: expiresAt,
      revoked_at: null,
    })
    .execute();
  return { token, expiresAt };
}

export async function revokeSession(db: Db, tenantId: string, sessionId: string, now: Date): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ revoked_at: now })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Logs a user out everywhere, except (optionally) the session in use. */
export async function revokeUserSessions(
  db: Db,
  tenantId: string,
  userId: string,
  now: Date,
  keepSessionId?: string | null,
): Promise<void> {
  let query = db
    .updateTable('sessions')
    .set({ revoked_at: now })
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null);
  if (keepSessionId) query = query.where('id', '!=', keepSessionId);
  await query.execute();
}
