import type { Kysely, Selectable, Transaction } from 'kysely';
import * as oidc from 'openid-client';
import type { Deps } from '../../platform/deps.js';
import type { Database } from '../../kernel/tables/database.js';
import type { TenantSsoTable } from '../../kernel/tables/sso.js';
import type { RequestContext } from '../../kernel/context.js';
import { AppError, notFound, validationError } from '../../kernel/errors.js';
import { decryptValue, encryptValue } from '../../platform/crypto/envelope.js';
import { writeAudit } from '../audit/audit.writer.js';
import { discover } from './sso.provider.js';
import type { PutSsoSettingsInput, SsoSettingsResponse } from './sso.schemas.js';

export type SsoSettingsRow = Selectable<TenantSsoTable>;

const SECRET_PURPOSE = 'sso.client_secret';
const AUDITED = ['issuer', 'client_id', 'allowed_domains', 'role_claim', 'admin_values', 'default_role', 'enforce'] as const;

export const callbackUrl = (deps: Deps) => `${deps.config.server.publicBaseUrl}/api/v1/auth/sso/callback`;

export async function findSsoSettings(db: Kysely<Database> | Transaction<Database>, tenantId: string) {
  return db.selectFrom('tenant_sso').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
}

export async function getSsoSettings(deps: Deps, ctx: RequestContext): Promise<SsoSettingsResponse> {
  const row = await findSsoSettings(deps.store.db, ctx.tenantId);
  if (!row) throw notFound('Single sign-on setting');
  return toResponse(deps, row);
}

/** Replaces the setting; each changed field is audited with its old and new value (the secret only as "changed"). */
export async function putSsoSettings(deps: Deps, ctx: RequestContext, input: PutSsoSettingsInput): Promise<SsoSettingsResponse> {
  const now = deps.clock.now();
  const keys = await deps.keyring.forTenant(ctx.tenantId);
  const wanted = {
    // Kept exactly as given: the discovery document's `issuer` must equal it (some end with a slash).
    issuer: assertIssuer(input.issuer),
    client_id: input.client_id,
    allowed_domains: input.allowed_domains.map((domain) => domain.toLowerCase()),
    role_claim: input.role_claim ?? 'groups',
    admin_values: input.admin_values ?? [],
    default_role: input.default_role === undefined ? 'viewer' as const : input.default_role,
    enforce: input.enforce ?? false,
  };
  return deps.store.db.transaction().execute(async (tx) => {
    const current = await tx.selectFrom('tenant_sso').selectAll().where('tenant_id', '=', ctx.tenantId).forUpdate().executeTakeFirst();
    if (!current && input.client_secret === undefined) {
      throw new AppError('validation_error', 'Invalid request: body.client_secret is required the first time', {
        details: [{ path: 'body.client_secret', message: 'is required the first time' }],
      });
    }
    const sealed = input.client_secret !== undefined ? encryptValue(keys, SECRET_PURPOSE, input.client_secret) : current!.client_secret_sealed;
    const columns = {
      ...wanted,
      allowed_domains: JSON.stringify(wanted.allowed_domains),
      admin_values: JSON.stringify(wanted.admin_values),
      client_secret_sealed: sealed,
      updated_at: now,
      updated_by: ctx.actor.label,
    };
    const row = await tx.insertInto('tenant_sso').values({ tenant_id: ctx.tenantId, created_at: now, ...columns })
      .onConflict((oc) => oc.column('tenant_id').doUpdateSet(columns)).returningAll().executeTakeFirstOrThrow();
    const changes = auditedChanges(current, wanted, input.client_secret !== undefined);
    if (Object.keys(changes).length > 0) {
      await writeAudit(tx, ctx, {
        action: current ? 'sso.updated' : 'sso.created', targetType: 'tenant', targetId: ctx.tenantId, details: changes,
      }, now);
    }
    return toResponse(deps, row);
  });
}

export async function deleteSsoSettings(deps: Deps, ctx: RequestContext): Promise<void> {
  const now = deps.clock.now();
  await deps.store.db.transaction().execute(async (tx) => {
    const removed = await tx.deleteFrom('tenant_sso').where('tenant_id', '=', ctx.tenantId).returningAll().executeTakeFirst();
    if (!removed) throw notFound('Single sign-on setting');
    await writeAudit(tx, ctx, {
      action: 'sso.deleted', targetType: 'tenant', targetId: ctx.tenantId, details: { issuer: removed.issuer },
    }, now);
  });
}

function assertIssuer(issuer: string): string {
  let url: URL | undefined;
  try {
    url = new URL(issuer);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'https:' || !url.hostname || url.search || url.hash) {
    throw validationError('body.issuer', 'must be an HTTPS URL with a host, without query or fragment');
  }
  return issuer;
}

/** The client secret, opened with the tenant's key. */
export async function clientSecret(deps: Deps, row: SsoSettingsRow): Promise<string> {
  return decryptValue(await deps.keyring.forTenant(row.tenant_id), SECRET_PURPOSE, row.client_secret_sealed);
}

/** Reads the issuer's discovery document and key set, as a sign-in would; never stores anything. */
export async function testSsoConnection(deps: Deps, ctx: RequestContext, issuer: string | undefined) {
  const target = issuer ?? (await findSsoSettings(deps.store.db, ctx.tenantId))?.issuer;
  if (!target) throw notFound('Single sign-on setting');
  try {
    const config = await discover({ issuer: target, clientId: 'connection-test', clientSecret: 'connection-test' });
    const metadata = config.serverMetadata();
    const keys = metadata.jwks_uri ? await countSigningKeys(metadata.jwks_uri) : 0;
    return {
      ok: keys > 0, issuer: target,
      message: keys > 0 ? `Discovery document and ${keys} signing key${keys === 1 ? '' : 's'} read` : 'The provider publishes no signing key',
      authorization_endpoint: metadata.authorization_endpoint ?? null,
      token_endpoint: metadata.token_endpoint ?? null,
      jwks_uri: metadata.jwks_uri ?? null,
    };
  } catch (error) {
    return {
      ok: false, issuer: target, message: connectionFailure(error),
      authorization_endpoint: null, token_endpoint: null, jwks_uri: null,
    };
  }
}

async function countSigningKeys(jwksUri: string): Promise<number> {
  const answer = await fetch(jwksUri, { signal: AbortSignal.timeout(10_000), redirect: 'error' });
  if (!answer.ok) throw new Error(`the key set answered HTTP ${answer.status}`);
  const body = await answer.json() as { keys?: Array<{ use?: string }> };
  return (body.keys ?? []).filter((key) => key.use === undefined || key.use === 'sig').length;
}

function connectionFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (error instanceof oidc.ClientError) return `The discovery document could not be used: ${error.message}`;
  if (cause?.code) return `The provider could not be reached: ${cause.code}${cause.message ? ` (${cause.message})` : ''}`;
  return `The provider could not be reached: ${error instanceof Error ? error.message : String(error)}`;
}

function auditedChanges(current: SsoSettingsRow | undefined, wanted: Record<(typeof AUDITED)[number], unknown>, secretChanged: boolean) {
  const changes: Record<string, unknown> = {};
  for (const field of AUDITED) {
    const before = current?.[field] ?? null;
    if (JSON.stringify(before) !== JSON.stringify(wanted[field])) changes[field] = { from: before, to: wanted[field] };
  }
  if (secretChanged) changes.client_secret = 'changed';
  return changes;
}

function toResponse(deps: Deps, row: SsoSettingsRow): SsoSettingsResponse {
  return {
    issuer: row.issuer,
    client_id: row.client_id,
    allowed_domains: row.allowed_domains,
    role_claim: row.role_claim,
    admin_values: row.admin_values,
    default_role: row.default_role,
    enforce: row.enforce,
    client_secret_set: true,
    redirect_uri: callbackUrl(deps),
    updated_at: row.updated_at.toISOString(),
    updated_by: row.updated_by,
  };
}
