import type { Updateable } from 'kysely';
import type { Deps } from '../../platform/deps.js';
import type { RequestContext } from '../../kernel/context.js';
import { notFound } from '../../kernel/errors.js';
import { prefixedId } from '../../kernel/ids.js';
import type { PageRequest } from '../../kernel/paging/pagination.js';
import { writeAudit } from '../audit/audit.writer.js';
import { dropQueuedJobs } from '../delivery/queue.js';
import { newSigningSecret } from '../delivery/signing.js';
import { openWebhookSecrets, sealWebhookSecrets } from '../delivery/secrets.js';
import { lockSubscriptionChanges } from '../../platform/outbox/subscriptions.js';
import {
  deleteWebhook as removeWebhook, findWebhook, listWebhooks as selectWebhooks, toWebhookResponse, withQueueDepths,
} from './webhooks.repo.js';
import type { CreateWebhookInput, UpdateWebhookInput } from './webhooks.schemas.js';
import type { WebhooksTable } from '../../kernel/tables/webhooks.js';
import type { WebhookFormat } from '../../kernel/vocabulary.js';
import {
  checkAuthToken, checkCustomHeaders, checkTokenForFormat, checkUrlShape, checkWebhookUrl, uniqueEvents,
} from './webhooks.validation.js';

/** How long the secret before a rotation keeps signing beside the new one. */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

export async function createWebhook(deps: Deps, ctx: RequestContext, input: CreateWebhookInput) {
  const format = input.format ?? 'standard';
  const url = await checkWebhookUrl(deps.config, input.url, format);
  const headers = checkCustomHeaders(input.headers ?? {});
  const authToken = checkAuthToken(input.auth_token ?? '');
  checkTokenForFormat(format, authToken);
  const events = uniqueEvents(input.events);
  const now = deps.clock.now();
  const signingSecret = newSigningSecret();
  const keys = await deps.keyring.forTenant(ctx.tenantId);
  const sealed = sealWebhookSecrets(keys, {
    headers, auth_token: authToken, signing_secret: signingSecret, previous_signing_secret: null,
  });
  const row = await deps.store.db.transaction().execute(async (tx) => {
    await lockSubscriptionChanges(tx, ctx.tenantId);
    const inserted = await tx
      .insertInto('webhooks')
      .values({
        tenant_id: ctx.tenantId,
        id: prefixedId('whk', now.getTime()),
        url,
        format,
        events: JSON.stringify(events),
        active: input.active ?? true,
        active_since: now,
        description: input.description ?? '',
        ...sealed,
        previous_secret_expires_at: null,
        created_by: ctx.actor.type === 'user' ? ctx.actor.id : null,
        created_at: now,
        updated_at: now,
        last_delivery_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await writeAudit(tx, ctx, {
      action: 'webhook.created', targetType: 'webhook', targetId: inserted.id,
      details: {
        url, format, events, active: inserted.active, description: inserted.description,
        header_names: Object.keys(headers), has_auth_token: authToken !== '',
      },
    }, now);
    return inserted;
  });
  return { ...toWebhookResponse(openWebhookSecrets(keys, row), undefined), signing_secret: signingSecret };
}

export async function listWebhooks(
  deps: Deps, ctx: RequestContext, filter: { active?: boolean | undefined }, request: PageRequest,
) {
  const keys = await deps.keyring.forTenant(ctx.tenantId);
  const { rows, page, total } = await selectWebhooks(deps.store.db, ctx.tenantId, filter, request);
  const webhooks = await withQueueDepths(deps.store.db, ctx.tenantId, rows.map((row) => openWebhookSecrets(keys, row)));
  return { body: { webhooks, total, next_cursor: page.nextCursor }, page };
}

export async function getWebhook(deps: Deps, ctx: RequestContext, id: string) {
  const keys = await deps.keyring.forTenant(ctx.tenantId);
  const row = await findWebhook(deps.store.db, ctx.tenantId, id);
  if (!row) throw notFound('Webhook');
  const [webhook] = await withQueueDepths(deps.store.db, ctx.tenantId, [openWebhookSecrets(keys, row)]);
  return webhook!;
}

const UPDATABLE_FIELDS = ['url', 'format', 'events', 'active', 'description', 'headers', 'auth_token'] as const;

/**
 * Changes what is given. Deactivating drops the queued attempts; re-activating starts a new
 * period: the webhook gets the events committed from now on, not those of its inactive time.
 * Subscriptions change under the tenant's subscription lock (see `subscriptionsOf`).
 */
export async function updateWebhook(deps: Deps, ctx: RequestContext, id: string, input: UpdateWebhookInput) {
  const patch: Updateable<WebhooksTable> = {};
  if (input.url !== undefined || input.format !== undefined) {
    // A URL must suit the format it carries: a new one or a new format is checked with the other, given or kept.
    const kept = input.url === undefined || input.format === undefined ? await findWebhook(deps.store.db, ctx.tenantId, id) : undefined;
    const format = input.format ?? (kept?.format as WebhookFormat | undefined);
    const url = input.url ?? kept?.url;
    if (format === undefined || url === undefined) throw notFound('Webhook');
    await checkWebhookUrl(deps.config, url, format);
    if (input.url !== undefined) patch.url = input.url;
    if (input.format !== undefined) patch.format = input.format;
  }
  if (input.events !== undefined) patch.events = JSON.stringify(uniqueEvents(input.events));
  if (input.description !== undefined) patch.description = input.description;
  const headers = input.headers === undefined ? undefined : checkCustomHeaders(input.headers);
  const authToken = input.auth_token === undefined ? undefined : checkAuthToken(input.auth_token);
  const now = deps.clock.now();
  const keys = await deps.keyring.forTenant(ctx.tenantId);
  const row = await deps.store.db.transaction().execute(async (tx) => {
    await lockSubscriptionChanges(tx, ctx.tenantId);
    const stored = await findWebhook(tx, ctx.tenantId, id, true);
    if (!stored) throw notFound('Webhook');
    // The half kept was read before the lock: the pair is checked again as it will be stored, without a lookup.
    if (patch.url !== undefined || patch.format !== undefined) {
      checkUrlShape(patch.url ?? stored.url, (patch.format ?? stored.format) as WebhookFormat);
    }
    const current = openWebhookSecrets(keys, stored);
    checkTokenForFormat((patch.format ?? stored.format) as WebhookFormat, authToken ?? current.auth_token);
    if (headers !== undefined || authToken !== undefined || !stored.secrets_sealed) {
      Object.assign(patch, sealWebhookSecrets(keys, {
        ...current, headers: headers ?? current.headers, auth_token: authToken ?? current.auth_token,
      }));
    }
    if (input.active !== undefined && input.active !== current.active) {
      patch.active = input.active;
      if (input.active) patch.active_since = now;
      else await dropQueuedJobs(tx, ctx.tenantId, id);
    }
    const updated = await tx
      .updateTable('webhooks')
      .set({ ...patch, updated_at: now })
      .where('tenant_id', '=', ctx.tenantId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow()
      .then((written) => openWebhookSecrets(keys, written));
    await writeAudit(tx, ctx, {
      action: 'webhook.updated', targetType: 'webhook', targetId: id,
      details: {
        changed: UPDATABLE_FIELDS.filter((field) => input[field] !== undefined),
        ...(input.url === undefined ? {} : { url: updated.url }),
        ...(input.format === undefined ? {} : { format: updated.format }),
        ...(input.events === undefined ? {} : { events: updated.events }),
        ...(input.active === undefined ? {} : { active: updated.active }),
        ...(input.description === undefined ? {} : { description: updated.description }),
        ...(input.headers === undefined ? {} : { header_names: Object.keys(updated.headers) }),
        ...(input.auth_token === undefined ? {} : { has_auth_token: updated.auth_token !== '' }),
      },
    }, now);
    return updated;
  });
  const [webhook] = await withQueueDepths(deps.store.db, ctx.tenantId, [row]);
  return webhook!;
}

/** Deletes the webhook, its queued attempts and its history. */
export async function deleteWebhook(deps: Deps, ctx: RequestContext, id: string): Promise<void> {
  const now = deps.clock.now();
  await deps.store.db.transaction().execute(async (tx) => {
    await lockSubscriptionChanges(tx, ctx.tenantId);
    const removed = await removeWebhook(tx, ctx.tenantId, id);
    if (!removed) throw notFound('Webhook');
    await writeAudit(tx, ctx, { action: 'webhook.deleted', targetType: 'webhook', targetId: id, details: { url: removed.url } }, now);
  });
}

/** A new signing secret, returned once; the previous one keeps signing beside it for 24 hours. */
export async function rotateSigningSecret(deps: Deps, ctx: RequestContext, id: string) {
  const now = deps.clock.now();
  const signingSecret = newSigningSecret();
  const graceEnd = new Date(now.getTime() + ROTATION_GRACE_MS);
  const keys = await deps.keyring.forTenant(ctx.tenantId);
  await deps.store.db.transaction().execute(async (tx) => {
    const stored = await findWebhook(tx, ctx.tenantId, id, true);
    if (!stored) throw notFound('Webhook');
    const current = openWebhookSecrets(keys, stored);
    await tx
      .updateTable('webhooks')
      .set({
        ...sealWebhookSecrets(keys, { ...current, signing_secret: signingSecret, previous_signing_secret: current.signing_secret }),
        previous_secret_expires_at: graceEnd,
        updated_at: now,
      })
      .where('tenant_id', '=', ctx.tenantId)
      .where('id', '=', id)
      .execute();
    await writeAudit(tx, ctx, {
      action: 'webhook.secret_rotated', targetType: 'webhook', targetId: id,
      details: { previous_secret_expires_at: graceEnd.toISOString() },
    }, now);
  });
  return { id, signing_secret: signingSecret, previous_secret_expires_at: graceEnd.toISOString() };
}
