import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { EventType } from '../../src/platform/outbox/event-types.js';
import { emit } from '../../src/platform/outbox/outbox.js';
import type { Harness, TestTenant } from './harness.js';
import type { ReceivedRequest, TestCertificates } from './https-receiver.js';

/**
 * Environment of a harness that delivers to the test receivers quickly: retries within a second.
 * The request timeout is seconds, not the service's short test value: on a loaded machine a
 * receiver (often a process of its own) can take over half a second to answer, and six attempts
 * that all time out end a delivery unseen. A test of the timeout itself sets a short one.
 */
export function deliveryEnv(certificates: TestCertificates, extra: Record<string, string> = {}): Record<string, string> {
  return {
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_CA_FILE: certificates.caFile,
    WEBHOOK_RETRY_DELAYS_MS: '0,50,100,150,200',
    WEBHOOK_TIMEOUT_MS: '5000',
    ...extra,
  };
}

/** A receiver's check, written the way GitHub documents it: HMAC of the raw body, constant-time compare. */
export function verifyGithubStyle(secret: string, rawBody: Buffer, header: string | undefined): boolean {
  if (!header?.startsWith('sha256=')) return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`);
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** The reference Standard Webhooks library's check (it throws when the signature does not verify). */
export function verifyStandard(secret: string, request: ReceivedRequest): unknown {
  return new Webhook(secret).verify(request.rawBody, {
    'webhook-id': request.headers['webhook-id'] ?? '',
    'webhook-timestamp': request.headers['webhook-timestamp'] ?? '',
    'webhook-signature': request.headers['webhook-signature'] ?? '',
  });
}

/** The `v1,` signature the reference library computes for this request with `secret`. */
export function standardSignatureOf(secret: string, request: ReceivedRequest): string {
  const timestamp = new Date(Number(request.headers['webhook-timestamp']) * 1000);
  return new Webhook(secret).sign(request.headers['webhook-id'] ?? '', timestamp, request.rawBody.toString('utf8'));
}

export interface CreatedWebhook {
  id: string;
  signing_secret: string;
  [field: string]: unknown;
}

export async function createWebhook(h: Harness, t: TestTenant, body: Record<string, unknown>): Promise<CreatedWebhook> {
  const response = await h.call('POST', '/api/v1/webhooks', { token: t.adminToken, body });
  if (response.statusCode !== 201) throw new Error(`webhook create failed: ${response.statusCode} ${response.body}`);
  return response.json() as CreatedWebhook;
}

/** Emits an event the way the other features do: inside a committed transaction. */
export async function emitEvent(h: Harness, tenantId: string, eventType: EventType, data: unknown) {
  return h.db.transaction().execute((tx) => emit(tx, tenantId, eventType, data, h.clock.now()));
}

export function bodyOf(request: ReceivedRequest): { id: string; event_type: string; tenant_id: string; timestamp: string; data: unknown } {
  return JSON.parse(request.rawBody.toString('utf8'));
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
