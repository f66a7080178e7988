import { randomHash } from './interactions-fixtures.js';
import type { ServiceApi } from './service-api.js';

/** The first admin every release bootstraps from BOOTSTRAP_ADMIN_EMAIL and BOOTSTRAP_ADMIN_PASSWORD. */
export const RELEASE_ADMIN = { email: 'admin@upgrade.test', password: 'Upgrade-Pass-2026' };

export const releaseAdminEnv = { BOOTSTRAP_ADMIN_EMAIL: RELEASE_ADMIN.email, BOOTSTRAP_ADMIN_PASSWORD: RELEASE_ADMIN.password };

/**
 * An attempt a second after each failure, a hundred times: a webhook's deliveries stay queued
 * (never exhausted, so the webhook is never disabled) while its receiver refuses connections,
 * and go out within a second of it accepting. Read the same way by every release.
 */
export const PATIENT_RETRIES = [0, ...Array.from({ length: 100 }, () => 1000)].join(',');

/**
 * The tests' usual 500 ms attempt timeout is too short for a receiver in a test process shared
 * with other suites: a slow answer counts as a failure, the webhook's concurrency halves at each,
 * and a backlog of a few hundred jobs then drains one attempt at a time.
 */
export const PATIENT_TIMEOUT_MS = '10000';

/** What a tenant's admin fills through the API of any release since v0.1.0. */
export interface Filled {
  webhookId: string;
  /** Every interaction stored, by id. */
  interactionIds: string[];
  alertIds: string[];
}

/**
 * Users (invited), policies (one blocking card numbers, one coaching high risks, one disabled),
 * an API key, a webhook to `webhookUrl`, interactions in batches and single creates (some with an
 * Idempotency-Key), the alerts the policies raise, one of them resolved.
 */
export async function fillThroughApi(api: ServiceApi, webhookUrl: string, interactions = 120): Promise<Filled> {
  const key = (await api.expect(201, 'POST', '/api/v1/api-keys', { name: 'ingest', scopes: ['interactions:write'] })).key as string;
  for (const [email, role] of [['ada@upgrade.test', 'viewer'], ['grace@upgrade.test', 'viewer'], ['linus@upgrade.test', 'admin']]) {
    await api.expect(201, 'POST', '/api/v1/users/invite', { email, role });
  }
  await api.expect(201, 'POST', '/api/v1/policies', { name: 'No card numbers', action: 'block', severity: 'high', conditions: { classification_types: ['CREDIT_CARD'] } });
  await api.expect(201, 'POST', '/api/v1/policies', { name: 'Coach high risks', action: 'coach', severity: 'medium', conditions: { min_risk_score: 0.9 } });
  await api.expect(201, 'POST', '/api/v1/policies', { name: 'Off for now', action: 'log', enabled: false, conditions: { platform_ids: ['mistral'] } });
  const webhook = await api.expect(201, 'POST', '/api/v1/webhooks', { url: webhookUrl, events: ['interaction.created', 'alert.created'] });

  const body = (i: number) => ({
    platform_id: ['openai', 'anthropic', 'mistral'][i % 3],
    content_hash: randomHash(),
    risk_score: i % 5 === 0 ? 0.95 : 0.2,
    ...(i % 4 === 0 ? { classifications: [{ type: 'CREDIT_CARD', value: '4111 **** **** 1111', score: 0.98, start: 0, end: 19 }] } : {}),
  });
  const singles = 4;
  for (let i = 0; i < singles; i += 1) {
    await api.expect(201, 'POST', '/api/v1/interactions', body(i), { authorization: `Bearer ${key}`, 'idempotency-key': `before-upgrade-${i}` });
  }
  for (let start = singles; start < interactions; start += 50) {
    const batch = Array.from({ length: Math.min(50, interactions - start) }, (_, i) => body(start + i));
    const stored = await api.expect(200, 'POST', '/api/v1/interactions/batch', batch, { authorization: `Bearer ${key}` });
    if (stored.stored !== batch.length) throw new Error(`a batch stored ${stored.stored} of ${batch.length}`);
  }

  const alerts = (await api.expect(200, 'GET', '/api/v1/alerts?limit=500')).alerts as Array<{ id: string }>;
  await api.expect(200, 'POST', `/api/v1/alerts/${alerts[0]!.id}/resolve`);
  const listed = (await api.expect(200, 'GET', '/api/v1/interactions?limit=500')).data as Array<{ id: string }>;
  return { webhookId: webhook.id, interactionIds: listed.map((row) => row.id), alertIds: alerts.map((alert) => alert.id) };
}

/** Every list's total as the API reports it, and the open alerts among them. */
export async function totalsOf(api: ServiceApi): Promise<Record<string, number>> {
  const lists = ['interactions', 'policies', 'users', 'webhooks', 'alerts', 'api-keys'];
  const totals = await Promise.all(lists.map((list) => api.total(`/api/v1/${list}`)));
  return {
    ...Object.fromEntries(lists.map((list, i) => [list, totals[i]!])),
    'alerts (open)': await api.total('/api/v1/alerts?status=open'),
    'users (pending)': await api.total('/api/v1/users?status=pending'),
  };
}
