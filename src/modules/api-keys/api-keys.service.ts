import type { Selectable } from 'kysely';
import type { Deps } from '../../platform/deps.js';
import type { ApiKeysTable } from '../../kernel/tables/database.js';
import type { RequestContext, Scope } from '../../kernel/context.js';
import { randomSecret, sha256Hex } from '../../kernel/crypto.js';
import { notFound } from '../../kernel/errors.js';
import { prefixedId } from '../../kernel/ids.js';
import { type Keyset, KeysetPage, sortKey } from '../../kernel/paging/cursor.js';
import type { PageRequest } from '../../kernel/paging/pagination.js';
import { writeAudit } from '../audit/audit.writer.js';
import { API_KEY_PREFIX } from '../../platform/identity/tokens.js';
import type { ApiKeyResponse } from './api-keys.schemas.js';

export async function createApiKey(deps: Deps, ctx: RequestContext, input: { name: string; scopes: Scope[] }) {
  const now = deps.clock.now();
  const key = randomSecret(API_KEY_PREFIX);
  const row = await deps.store.db.transaction().execute(async (tx) => {
    const inserted = await tx
      .insertInto('api_keys')
      .values({
        tenant_id: ctx.tenantId,
        id: prefixedId('key', now.getTime()),
        name: input.name,
        key_prefix: key.slice(0, API_KEY_PREFIX.length + 6),
        key_hash: sha256Hex(key),
        scopes: JSON.stringify(input.scopes),
        created_by: ctx.actor.type === 'user' ? ctx.actor.id : null,
        created_at: now,
        last_used_at: null,
        revoked_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await writeAudit(tx, ctx, {
      action: 'api_key.created', targetType: 'api_key', targetId: inserted.id,
      details: { name: input.name, scopes: input.scopes },
    }, now);
    return inserted;
  });
  return { ...toApiKeyResponse(row), key };
}

const NEWEST_FIRST: Keyset = { keys: [sortKey.instant('created_at'), sortKey.text('id')], direction: 'desc' };

export async function listApiKeys(deps: Deps, ctx: RequestContext, request: PageRequest) {
  const base = deps.store.db.selectFrom('api_keys').where('tenant_id', '=', ctx.tenantId).where('revoked_at', 'is', null);
  const paging = KeysetPage.open(request, NEWEST_FIRST, { list: 'api-keys' });
  const [rows, count] = await Promise.all([
    paging.apply(base.selectAll()).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  const total = Number(count.total);
  const { rows: keys, page } = paging.close(rows);
  return { body: { api_keys: keys.map(toApiKeyResponse), total, next_cursor: page.nextCursor }, page };
}

export async function revokeApiKey(deps: Deps, ctx: RequestContext, keyId: string): Promise<void> {
  const now = deps.clock.now();
  await deps.store.db.transaction().execute(async (tx) => {
    const revoked = await tx
      .updateTable('api_keys')
      .set({ revoked_at: now })
      .where('tenant_id', '=', ctx.tenantId)
      .where('id', '=', keyId)
      .where('revoked_at', 'is', null)
      .returning(['id', 'name'])
      .executeTakeFirst();
    if (!revoked) throw notFound('API key');
    await writeAudit(tx, ctx, {
      action: 'api_key.revoked', targetType: 'api_key', targetId: keyId, details: { name: revoked.name },
    }, now);
  });
}

function toApiKeyResponse(row: Selectable<ApiKeysTable>): ApiKeyResponse {
  return {
    id: row.id,
    name: row.name,
    key_prefix: row.key_prefix,
    scopes: row.scopes as Scope[],
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
  };
}
