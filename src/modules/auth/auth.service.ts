import type { Deps } from '../../platform/deps.js';
import type { Kysely } from 'kysely';
import type { Database, UserRow } from '../../kernel/tables/database.js';
import { type RequestContext, userContext } from '../../kernel/context.js';
import { AppError } from '../../kernel/errors.js';
import { verifyPassword } from '../../kernel/passwords.js';
import { writeAudit } from '../audit/audit.writer.js';
import { type LoginResult, toUserResponse } from '../users/users.schemas.js';
import { accountSubject, addressSubject, assertNotThrottled, clearAccountFailures, recordFailure } from './login-throttle.js';
import { createSession, revokeSession } from '../../platform/identity/sessions.js';
import { inFixedScope } from '../../platform/store/scoped-connections.js';
import { ALL_TENANTS, onlyTenants } from '../../platform/store/tenant-scope.js';

export interface LoginInput {
  email: string;
  password: string;
  tenant_id?: string | undefined;
}

const BAD_LOGIN = 'Invalid email or password';

/**
 * Every failure (unknown email, wrong password, pending or inactive user) is the same 401, and
 * costs one password verification, so neither the answer nor its timing tells them apart.
 */
export async function login(deps: Deps, input: LoginInput, meta: { ip: string; requestId: string }): Promise<LoginResult> {
  const { db } = deps.store;
  const now = deps.clock.now();
  const subjects = { account: accountSubject(input.email), address: addressSubject(meta.ip) };
  await assertNotThrottled(db, subjects, deps.config.auth.loginMaxFailures, now);

  // The email names the account, whichever tenant holds it.
  let query = inFixedScope(db, ALL_TENANTS)
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email']), '=', input.email.toLowerCase()))
    .orderBy('created_at')
    .limit(10);
  if (input.tenant_id) query = query.where('tenant_id', '=', input.tenant_id);
  const candidates = await query.execute();

  const user = await firstMatching(candidates, input.password);
  if (!user) {
    const known = candidates[0];
    await inFixedScope(db, onlyTenants(known ? [known.tenant_id] : [])).transaction().execute(async (tx) => {
      await recordFailure(tx, subjects, now);
      if (known) {
        await writeAudit(tx, userContext(known, meta), {
          action: 'auth.login_failed', targetType: 'user', targetId: known.id,
        }, now);
      }
    });
    throw new AppError('unauthorized', BAD_LOGIN);
  }

  const breakGlass = await assertPasswordAllowed(inFixedScope(db, onlyTenants([user.tenant_id])), user, meta, now);
  const result = await inFixedScope(db, onlyTenants([user.tenant_id])).transaction().execute(async (tx) => {
    const session = await createSession(tx, user.tenant_id, user.id, now, deps.config.auth.sessionTtlSeconds);
    const updated = await tx
      .updateTable('users')
      .set({ last_login: now })
      .where('tenant_id', '=', user.tenant_id)
      .where('id', '=', user.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await clearAccountFailures(tx, subjects.account);
    await writeAudit(tx, userContext(user, meta), {
      action: 'auth.login', targetType: 'user', targetId: user.id, ...(breakGlass ? { details: { break_glass: true } } : {}),
    }, now);
    return { session, updated };
  });
  return {
    token: result.session.token,
    token_type: 'Bearer',
    expires_at: result.session.expiresAt.toISOString(),
    user: toUserResponse(result.updated),
  };
}

/**
 * Under an enforced single sign-on only admins may use their password (the break-glass path,
 * audited as such); anyone else is refused, after the password check so that the answer tells
 * nothing to who does not know it. The refusal is audited where the failure would be.
 */
async function assertPasswordAllowed(db: Kysely<Database>, user: UserRow, meta: { ip: string; requestId: string }, now: Date) {
  const sso = await db.selectFrom('tenant_sso').select('enforce').where('tenant_id', '=', user.tenant_id).executeTakeFirst();
  if (!sso?.enforce) return false;
  if (user.role === 'admin') return true;
  await writeAudit(db, userContext(user, meta), {
    action: 'auth.login_refused', targetType: 'user', targetId: user.id, details: { reason: 'sso_required' },
  }, now);
  throw new AppError('sso_required', 'Your organization requires single sign-on: use “Sign in with single sign-on”.');
}

/** Checks the password against each account holding this email; only active accounts may pass. */
async function firstMatching(candidates: UserRow[], password: string): Promise<UserRow | undefined> {
  if (candidates.length === 0) {
    await verifyPassword(null, password);
    return undefined;
  }
  for (const candidate of candidates) {
    const ok = await verifyPassword(candidate.password_hash, password);
    if (ok && candidate.status === 'active') return candidate;
  }
  return undefined;
}

export async function logout(deps: Deps, ctx: RequestContext): Promise<void> {
  if (!ctx.sessionId) return;
  await revokeSession(deps.store.db, ctx.tenantId, ctx.sessionId, deps.clock.now());
}
