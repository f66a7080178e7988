import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import { randomSecret, sha256Hex } from '../../kernel/crypto.js';
import { uuidv7 } from '../../kernel/ids.js';
import type { InvitationsTable } from '../../kernel/tables/users.js';

type Db = Kysely<Database> | Transaction<Database>;

export const INVITATION_TOKEN_PREFIX = 'inv_';
export const INVITATION_VALIDITY_MS = 7 * 24 * 60 * 60 * 1000;

export const invitationExpiry = (now: Date) => new Date(now.getTime() + INVITATION_VALIDITY_MS);

export type InvitationRow = Selectable<InvitationsTable>;

/**
 * Replaces every earlier invitation of the user with a new one and returns its token, which
 * exists only in the email: older links stop working at once.
 */
export async function issueInvitation(db: Db, tenantId: string, userId: string, now: Date, expiresAt: Date): Promise<string> {
  const token = randomSecret(INVITATION_TOKEN_PREFIX);
  await deleteInvitations(db, tenantId, userId);
  await db
    .insertInto('invitations')
    .values({
      tenant_id: tenantId,
      id: uuidv7(now.getTime()),
      user_id: userId,
      token_hash: sha256Hex(token),
      created_at: now,
      expires_at: expiresAt,
    })
    .execute();
  return token;
}

/** The invitation a token belongs to, in any tenant: the token is all the caller has. */
export async function findInvitationByToken(db: Db, token: string): Promise<InvitationRow | undefined> {
  return db.selectFrom('invitations').selectAll().where('token_hash', '=', sha256Hex(token)).executeTakeFirst();
}

/** Takes the invitation for this transaction, so a token can be accepted only once. */
export async function lockInvitation(tx: Transaction<Database>, invitation: InvitationRow): Promise<InvitationRow | undefined> {
  return tx
    .selectFrom('invitations')
    .selectAll()
    .where('tenant_id', '=', invitation.tenant_id)
    .where('id', '=', invitation.id)
    .forUpdate()
    .executeTakeFirst();
}

export async function deleteInvitations(db: Db, tenantId: string, userId: string): Promise<void> {
  await db.deleteFrom('invitations').where('tenant_id', '=', tenantId).where('user_id', '=', userId).execute();
}
