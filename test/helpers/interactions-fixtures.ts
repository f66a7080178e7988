import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Harness, TestTenant } from './harness.js';

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

/** The outbox events of a tenant, oldest first, optionally of one type. */
export async function outboxEvents(h: Harness, tenantId: string, eventType?: string) {
  let query = h.db.selectFrom('outbox_events').selectAll().where('tenant_id', '=', tenantId);
  if (eventType) query = query.where('event_type', '=', eventType);
  const rows = await query.orderBy('occurred_at').orderBy('id').execute();
  return rows.map((row) => ({ type: row.event_type, data: row.data as Record<string, any> }));
}

export async function countRows(h: Harness, table: 'interactions' | 'alerts' | 'outbox_events' | 'idempotency_keys' | 'audit_log',
  tenantId: string): Promise<number> {
  const row = await h.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
