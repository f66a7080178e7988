import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { capturedEvents, type Harness, type TestTenant } from './harness.js';

/** A random SHA-256 hex digest. */
export function randomHash(): string {
  return createHash('sha256').update(randomBytes(16)).digest('hex');
}

/** A valid create body; override any field. */
export function interactionBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { platform_id: 'openai', content_hash: randomHash(), ...overrides };
}

export function classification(type: string, overrides: Record<string, unknown> = {}) {
  return { type, value: `${type.toLowerCase()}-value`, score: 0.9, start: 0, end: 5, ...overrides };
}

/** Creates an interaction as the tenant's admin and returns the response body. */
export async function createInteraction(h: Harness, t: TestTenant, overrides: Record<string, unknown> = {}) {
  const response = await h.call('POST', '/api/v1/interactions', { token: t.adminToken, body: interactionBody(overrides) });
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

/** Creates a policy as the tenant's admin and returns the response body. */
export async function createPolicy(h: Harness, t: TestTenant, body: Record<string, unknown>) {
  const response = await h.call('POST', '/api/v1/policies', { token: t.adminToken, body: { name: 'policy', action: 'log', ...body } });
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

/**
 * The events a tenant's changes emitted, oldest first, optionally of one type, as queued for
 * delivery: the harness must capture events (`captureEvents`), since unwanted events leave nothing.
 */
export async function outboxEvents(h: Harness, tenantId: string, eventType?: string) {
  return capturedEvents(h, tenantId, eventType);
}

export async function countRows(h: Harness, table: 'interactions' | 'alerts' | 'webhook_messages' | 'idempotency_keys' | 'audit_log',
  tenantId: string): Promise<number> {
  const row = await h.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const nested = (depth: number): unknown => (depth === 0 ? 'leaf' : { n: nested(depth - 1) });

/** Bodies the create refuses with 400, one rule each. */
export const INVALID_BODIES: Array<[string, Record<string, unknown>]> = [
  ['platform_id missing', { platform_id: undefined }],
  ['content_hash missing', { content_hash: undefined }],
  ['platform_id empty', { platform_id: '' }],
  ['platform_id blank', { platform_id: '   ' }],
  ['platform_id starting with a dash', { platform_id: '-openai' }],
  ['platform_id with a space inside', { platform_id: 'open ai' }],
  ['platform_id with a slash', { platform_id: 'open/ai' }],
  ['platform_id of 101 characters', { platform_id: 'a'.repeat(101) }],
  ['platform_id not a string', { platform_id: 42 }],
  ['content_hash of 63 characters', { content_hash: 'a'.repeat(63) }],
  ['content_hash of 65 characters', { content_hash: 'a'.repeat(65) }],
  ['content_hash not hex', { content_hash: 'g'.repeat(64) }],
  ['content_hash not a string', { content_hash: 12 }],
  ['interaction_type unknown', { interaction_type: 'chat' }],
  ['risk_score above 1', { risk_score: 1.5 }],
  ['risk_score below 0', { risk_score: -0.1 }],
  ['risk_score as a string (no coercion)', { risk_score: '0.5' }],
  ['direction unknown', { direction: 'sideways' }],
  ['source unknown', { source: 'email' }],
  ['user_id not a UUID', { user_id: 'not-a-uuid' }],
  ['user_id a number', { user_id: 7 }],
  ['classifications not an array', { classifications: { type: 'EMAIL' } }],
  ['classification without type', { classifications: [{ value: 'x', score: 0.5, start: 0, end: 1 }] }],
  ['classification without value', { classifications: [{ type: 'EMAIL', score: 0.5, start: 0, end: 1 }] }],
  ['classification without score', { classifications: [{ type: 'EMAIL', value: 'x', start: 0, end: 1 }] }],
  ['classification without start', { classifications: [{ type: 'EMAIL', value: 'x', score: 0.5, end: 1 }] }],
  ['classification without end', { classifications: [{ type: 'EMAIL', value: 'x', score: 0.5, start: 0 }] }],
  ['classification type empty', { classifications: [classification('')] }],
  ['classification score above 1', { classifications: [classification('EMAIL', { score: 1.2 })] }],
  ['classification score below 0', { classifications: [classification('EMAIL', { score: -0.2 })] }],
  ['classification start negative', { classifications: [classification('EMAIL', { start: -1 })] }],
  ['classification start not an integer', { classifications: [classification('EMAIL', { start: 1.5 })] }],
  ['classification end as a string', { classifications: [classification('EMAIL', { end: '5' })] }],
  ['classification start after end', { classifications: [classification('EMAIL', { start: 6, end: 5 })] }],
  ['classification type with a NUL character', { classifications: [classification('EM\u0000AIL')] }],
  ['more than 1000 classifications', { classifications: Array.from({ length: 1001 }, () => classification('EMAIL')) }],
  ['content_metadata an array', { content_metadata: [1, 2] }],
  ['content_metadata a string', { content_metadata: 'url' }],
  ['content_metadata null', { content_metadata: null }],
  ['content_metadata over 64 KiB', { content_metadata: { snippet: 'x'.repeat(65 * 1024) } }],
  ['content_metadata nested 40 levels', { content_metadata: nested(40) as Record<string, unknown> }],
  ['content_metadata with a NUL character', { content_metadata: { url: 'a\u0000b' } }],
  ['content_metadata with a lone surrogate', { content_metadata: { snippet: 'a\ud800b' } }],
];
