import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { Sender } from '../../src/modules/delivery/sender.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { createTestCertificates, HttpsReceiver } from '../helpers/https-receiver.js';
import { SmtpReceiver } from '../helpers/smtp-receiver.js';
import { STORES } from '../helpers/stores.js';
import {
  bodyOf, createWebhook, deliveryEnv, emitEvent, sleep, verifyGithubStyle, verifyStandard,
} from '../helpers/webhooks-fixtures.js';

const RETRY_DELAYS = [0, 50, 100, 150, 200];

describe.each(STORES)('webhook delivery [%s]', (kind) => {
  const certificates = createTestCertificates();
  let h: Harness;
  let smtp: SmtpReceiver;
  const receivers: HttpsReceiver[] = [];
  beforeAll(async () => {
    smtp = await SmtpReceiver.start();
    h = await Harness.start(kind, {
      workers: true,
      // 500 ms: the receiver's 800 ms answers time out (the schedule and test-send tests).
      env: deliveryEnv(certificates, { SMTP_URL: smtp.url, PUBLIC_BASE_URL: 'https://governance.example.com', WEBHOOK_TIMEOUT_MS: '500' }),
    });
  });
  afterAll(async () => {
    await h.close();
    await smtp.close();
    for (const receiver of receivers) await receiver.close();
  });

  /** Each test gets receivers of its own, so cues and recordings never mix. */
  async function receiver(): Promise<HttpsReceiver> {
    const started = await HttpsReceiver.start(certificates);
    receivers.push(started);
    return started;
  }
  const history = async (t: TestTenant, webhookId: string) =>
    (await h.call('GET', `/api/v1/webhooks/${webhookId}/deliveries`, { token: t.adminToken, query: { limit: 500 } })).json();
  const webhook = async (t: TestTenant, webhookId: string) =>
    (await h.call('GET', `/api/v1/webhooks/${webhookId}`, { token: t.adminToken })).json();

  it('delivers an event only to the active webhooks subscribed to it, signed, with its custom headers and bearer token', async () => {
    const r = await receiver();
    const t = await h.tenant();
    const other = await h.tenant('Other');
    const subscribed = await createWebhook(h, t, {
      url: r.url('/subscribed'), events: ['user.invited', 'user.deleted'],
      headers: { 'X-Team': 'secops' }, auth_token: 'receiver-token-123',
    });
    await createWebhook(h, t, { url: r.url('/other-type'), events: ['policy.created'] });
    await createWebhook(h, t, { url: r.url('/inactive'), events: ['user.invited'], active: false });
    await createWebhook(h, other, { url: r.url('/other-tenant'), events: ['user.invited'] });

    const user = { id: '0190a000-0000-7000-8000-000000000001', email: 'new.user@acme.test', role: 'viewer', status: 'pending' };
    const envelope = await emitEvent(h, t.tenantId, 'user.invited', user);
    await r.waitFor((requests) => requests.length >= 1);
    await sleep(300);
    expect(r.requests.map((request) => request.path)).toEqual(['/subscribed']);

    const [request] = r.requests;
    expect(request!.method).toBe('POST');
    expect(bodyOf(request!)).toEqual({
      id: envelope.id, timestamp: envelope.timestamp, event_type: 'user.invited', tenant_id: t.tenantId, data: user,
    });
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-event': 'user.invited',
      'x-service-event-id': envelope.id,
      'webhook-id': envelope.id,
      authorization: 'Bearer receiver-token-123',
      'x-team': 'secops',
    });
    expect(verifyGithubStyle(subscribed.signing_secret, request!.rawBody, request!.headers['x-service-signature'])).toBe(true);
    expect(verifyGithubStyle('whsec_wrong', request!.rawBody, request!.headers['x-service-signature'])).toBe(false);
    expect(verifyStandard(subscribed.signing_secret, request!)).toEqual(bodyOf(request!));
    expect(() => verifyStandard(subscribed.signing_secret, { ...request!, rawBody: Buffer.from(`${request!.rawBody} `) })).toThrow();
    expect(Math.abs(Number(request!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);

    await expect.poll(async () => (await history(t, subscribed.id)).total, { timeout: 10_000 }).toBe(1);
    const { deliveries } = await history(t, subscribed.id);
    expect(deliveries[0]).toMatchObject({
      id: request!.headers['x-service-delivery'], event_type: 'user.invited', event_id: envelope.id,
      attempt: 1, test: false, status_code: 200, success: true,
    });
    expect(deliveries[0]).not.toHaveProperty('error');
    // Delivered: its job is gone; its envelope stays for redelivery while its history is kept.
    await expect.poll(async () => (await webhook(t, subscribed.id)).queued, { timeout: 10_000 }).toBe(0);
    expect(await h.db.selectFrom('webhook_jobs').select('id').where('event_id', '=', envelope.id).execute()).toEqual([]);
    expect(await h.db.selectFrom('webhook_messages').select('id').where('id', '=', envelope.id).execute()).toHaveLength(1);
  });

  it('sends the same bytes to every subscriber, and nothing for events emitted before a webhook existed', async () => {
    const r = await receiver();
    const t = await h.tenant();
    const early = await emitEvent(h, t.tenantId, 'policy.created', { id: 'p-early', name: 'Before' });
    await sleep(200);
    await createWebhook(h, t, { url: r.url('/a'), events: ['policy.created'] });
    await createWebhook(h, t, { url: r.url('/b'), events: ['policy.created'] });
    const late = await emitEvent(h, t.tenantId, 'policy.created', { id: 'p-late', name: 'After', nested: { z: 1, a: [1, 2] } });
    await r.waitFor((requests) => requests.length >= 2);
    await sleep(200);
    expect(r.requests).toHaveLength(2);
    expect(r.requests.every((request) => bodyOf(request).id === late.id)).toBe(true);
    expect(r.at('/a')[0]!.rawBody.equals(r.at('/b')[0]!.rawBody)).toBe(true);
    expect(r.requests.some((request) => bodyOf(request).id === early.id)).toBe(false);
  });

  it('follows the retry schedule through failures of every kind, recording each attempt', async () => {
    const r = await receiver();
    const t = await h.tenant();
    const hook = await createWebhook(h, t, { url: r.url(), events: ['user.role_changed'] });
    r.cue({ status: 500 }, { reset: true }, { status: 200, delayMs: 800 }, { status: 302 }, { status: 204 });
    const event = await emitEvent(h, t.tenantId, 'user.role_changed', { id: 'u1', role: 'admin' });
    await r.waitFor((requests) => requests.length >= 5);
    await expect.poll(async () => (await history(t, hook.id)).total, { timeout: 10_000 }).toBe(5);

    const attempts = [...(await history(t, hook.id)).deliveries].reverse();
    expect(attempts.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 0, 0, 302, 204]);
    expect(attempts.map((a: { success: boolean }) => a.success)).toEqual([false, false, false, false, true]);
    expect(attempts[0].error).toContain('500');
    expect(attempts[1].error).toBeTruthy();
    expect(attempts[2].error).toContain('500 ms');
    expect(attempts[2].response_time_ms).toBeGreaterThanOrEqual(490);
    expect(attempts[3].error).toContain('redirect');
    expect(attempts.every((a: { event_id: string }) => a.event_id === event.id)).toBe(true);
    // Each attempt waits at least its delay after the previous one ended.
    for (let i = 1; i < 5; i += 1) {
      const previousEnd = new Date(attempts[i - 1].timestamp).getTime() + attempts[i - 1].response_time_ms;
      expect(new Date(attempts[i].timestamp).getTime() - previousEnd).toBeGreaterThanOrEqual(RETRY_DELAYS[i]! - 5);
    }
    expect(new Set(r.requests.map((request) => request.rawBody.toString())).size).toBe(1);
    expect(new Set(r.requests.map((request) => request.headers['x-service-delivery'])).size).toBe(5);
    expect(await webhook(t, hook.id)).toMatchObject({ active: true, delivery_count: 5 });
  });

  it('disables the webhook after the 5th failure, drops its queue, emails its creator, audits; re-enabling resumes new events', async () => {
    const r = await receiver();
    const t = await h.tenant();
    const hook = await createWebhook(h, t, { url: r.url(), events: ['interaction.high_risk', 'alert.created'] });
    r.fallback = { status: 503 };
    const failing = await emitEvent(h, t.tenantId, 'interaction.high_risk', { id: 'i1', risk_score: 0.9 });
    await r.waitFor((requests) => requests.length >= 3);
    // Queued behind the failing chain: dropped when the webhook is disabled.
    r.cue({ status: 503 }, { status: 503 });
    await emitEvent(h, t.tenantId, 'alert.created', { id: 'a-queued' });

    const mail = await smtp.waitFor(t.adminEmail, (m) => m.subject.includes('Webhook disabled'));
    expect(mail.subject).toBe(`Webhook disabled: ${r.url()}`);
    expect(mail.text).toContain(hook.id);
    expect(mail.text).toContain(failing.id);
    expect(mail.text).toContain('https://governance.example.com/api/v1/webhooks/');
    expect(await webhook(t, hook.id)).toMatchObject({ active: false });

    const attemptsOfFailing = (await history(t, hook.id)).deliveries.filter((d: { event_id: string }) => d.event_id === failing.id);
    expect(attemptsOfFailing.map((d: { attempt: number }) => d.attempt).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(attemptsOfFailing.every((d: { status_code: number; success: boolean }) => d.status_code === 503 && !d.success)).toBe(true);
    const queued = await h.db.selectFrom('webhook_jobs').select('id').where('tenant_id', '=', t.tenantId).execute();
    expect(queued).toHaveLength(0);
    const audit = await h.db.selectFrom('audit_log').selectAll().where('tenant_id', '=', t.tenantId)
      .where('action', '=', 'webhook.disabled').execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_type: 'system', target_id: hook.id });
    expect(audit[0]!.details).toMatchObject({ reason: 'delivery_failed', event_id: failing.id, attempts: 5, notified: [t.adminEmail] });

    // Disabled: new events are not delivered, not even later.
    const requestsWhenDisabled = r.requests.length;
    const missed = await emitEvent(h, t.tenantId, 'alert.created', { id: 'a-missed' });
    await sleep(400);
    expect(r.requests.length).toBe(requestsWhenDisabled);

    r.fallback = { status: 200 };
    const enabled = await h.call('PUT', `/api/v1/webhooks/${hook.id}`, { token: t.adminToken, body: { active: true } });
    expect(enabled.json().active).toBe(true);
    const resumed = await emitEvent(h, t.tenantId, 'alert.created', { id: 'a-resumed' });
    await r.waitFor((requests) => requests.some((request) => bodyOf(request).id === resumed.id));
    await sleep(300);
    expect(r.requests.some((request) => bodyOf(request).id === missed.id)).toBe(false);
    expect(smtp.messages.filter((m) => m.subject.includes('Webhook disabled') && m.to.includes(t.adminEmail.toLowerCase()))).toHaveLength(1);
  });

  it('emails every active admin when the creator is gone', async () => {
    const r = await receiver();
    const t = await h.tenant();
    const creator = await h.user(t, 'admin');
    const viewer = await h.user(t, 'viewer');
    const response = await h.call('POST', '/api/v1/webhooks', { token: creator.token, body: { url: r.url(), events: ['user.deleted'] } });
    const hookId = response.json().id;
    await h.db.deleteFrom('sessions').where('tenant_id', '=', t.tenantId).where('user_id', '=', creator.id).execute();
    await h.db.deleteFrom('users').where('tenant_id', '=', t.tenantId).where('id', '=', creator.id).execute();
    r.fallback = { reset: true };
    await emitEvent(h, t.tenantId, 'user.deleted', { id: creator.id });
    const mail = await smtp.waitFor(t.adminEmail, (m) => m.subject.includes('Webhook disabled'));
    expect(mail.text).toContain(hookId);
    await sleep(300);
    expect(smtp.messages.some((m) => m.to.includes(viewer.email.toLowerCase()))).toBe(false);
  });

  it('test operation: one attempt, never retried, never disabling', async () => {
    const r = await receiver();
    const t = await h.tenant();
    const hook = await createWebhook(h, t, { url: r.url(), events: ['user.invited'], auth_token: 'tok-abc' });
    const ok = await h.call('POST', `/api/v1/webhooks/${hook.id}/test`, { token: t.adminToken, body: { event_type: 'alert.severity_critical' } });
    expect(ok.json()).toMatchObject({ delivered: true, status_code: 200 });
    const [sample] = r.requests;
    expect(bodyOf(sample!)).toMatchObject({ event_type: 'alert.severity_critical', tenant_id: t.tenantId, data: { severity: 'critical' } });
    expect(sample!.headers).toMatchObject({ authorization: 'Bearer tok-abc', 'x-service-event': 'alert.severity_critical' });
    expect(verifyGithubStyle(hook.signing_secret, sample!.rawBody, sample!.headers['x-service-signature'])).toBe(true);
    expect(verifyStandard(hook.signing_secret, sample!)).toBeTruthy();

    r.fallback = { status: 500 };
    for (let i = 0; i < 6; i += 1) {
      const failed = await h.call('POST', `/api/v1/webhooks/${hook.id}/test`, { token: t.adminToken, body: { event_type: 'user.invited' } });
      expect(failed.json()).toMatchObject({ delivered: false, status_code: 500, error: 'the receiver answered HTTP 500' });
    }
    r.fallback = { status: 200, delayMs: 800 };
    const slow = await h.call('POST', `/api/v1/webhooks/${hook.id}/test`, { token: t.adminToken, body: { event_type: 'user.invited' } });
    expect(slow.json()).toMatchObject({ delivered: false, status_code: 0, error: 'no response within 500 ms' });
    await sleep(500);
    expect(r.requests).toHaveLength(8);
    expect(await webhook(t, hook.id)).toMatchObject({ active: true, delivery_count: 8 });
    const { deliveries } = await history(t, hook.id);
    expect(deliveries.every((d: { test: boolean }) => d.test)).toBe(true);
    expect(smtp.messages.some((m) => m.to.includes(t.adminEmail.toLowerCase()))).toBe(false);
  });

  it('redelivers a past delivery as a new chain with the same bytes', async () => {
    const r = await receiver();
    const t = await h.tenant();
    const hook = await createWebhook(h, t, { url: r.url(), events: ['policy.deleted'] });
    const event = await emitEvent(h, t.tenantId, 'policy.deleted', { id: 'p1' });
    await r.waitFor((requests) => requests.length >= 1);
    await expect.poll(async () => (await history(t, hook.id)).total, { timeout: 10_000 }).toBe(1);
    const [first] = (await history(t, hook.id)).deliveries;
    r.cue({ status: 500 });
    const response = await h.call('POST', `/api/v1/webhooks/${hook.id}/deliveries/${first.id}/redeliver`, { token: t.adminToken });
    expect(response.statusCode).toBe(202);
    expect(response.json()).toMatchObject({ webhook_id: hook.id, event_id: event.id, event_type: 'policy.deleted', redelivery_of: first.id });
    await r.waitFor((requests) => requests.length >= 3);
    expect(r.requests[1]!.rawBody.equals(r.requests[0]!.rawBody)).toBe(true);
    expect(r.requests[2]!.rawBody.equals(r.requests[0]!.rawBody)).toBe(true);
    await expect.poll(async () => (await history(t, hook.id)).total, { timeout: 10_000 }).toBe(3);
    const attempts = (await history(t, hook.id)).deliveries.map((d: { attempt: number; success: boolean }) => [d.attempt, d.success]);
    expect(attempts).toEqual([[2, true], [1, false], [1, true]]);
    const audit = await h.db.selectFrom('audit_log').selectAll().where('tenant_id', '=', t.tenantId)
      .where('action', '=', 'webhook.redelivery_requested').execute();
    expect(audit[0]!.details).toMatchObject({ delivery_id: first.id, event_id: event.id });

    await h.call('PUT', `/api/v1/webhooks/${hook.id}`, { token: t.adminToken, body: { active: false } });
    const refused = await h.call('POST', `/api/v1/webhooks/${hook.id}/deliveries/${first.id}/redeliver`, { token: t.adminToken });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('invalid_state');
  });

  it('verifies TLS: a receiver whose certificate comes from an untrusted CA gets nothing', async () => {
    const untrusted = await HttpsReceiver.start(createTestCertificates());
    receivers.push(untrusted);
    const t = await h.tenant();
    const hook = await createWebhook(h, t, { url: untrusted.url(), events: ['user.invited'] });
    const response = await h.call('POST', `/api/v1/webhooks/${hook.id}/test`, { token: t.adminToken, body: { event_type: 'user.invited' } });
    expect(response.json()).toMatchObject({ delivered: false, status_code: 0 });
    expect(response.json().error).toMatch(/certificate/i);
    expect(untrusted.requests).toHaveLength(0);
  });

  it('deactivating a webhook drops its queued retries', async () => {
    const r = await receiver();
    const t = await h.tenant();
    const hook = await createWebhook(h, t, { url: r.url(), events: ['user.activated'] });
    r.cue({ status: 500 });
    await emitEvent(h, t.tenantId, 'user.activated', { id: 'u1' });
    await r.waitFor((requests) => requests.length >= 1);
    await h.call('PUT', `/api/v1/webhooks/${hook.id}`, { token: t.adminToken, body: { active: false } });
    await sleep(500);
    expect(r.requests).toHaveLength(1);
    expect(await h.db.selectFrom('webhook_jobs').select('id').where('tenant_id', '=', t.tenantId).execute()).toEqual([]);
    expect(await webhook(t, hook.id)).toMatchObject({ queued: 0, oldest_queued_at: null });
  });
});

describe('WEBHOOK_CA_FILE', () => {
  it('stops the start with a message naming the variable when the file is missing or not PEM', () => {
    expect(() => new Sender(loadConfig({ WEBHOOK_CA_FILE: '/nonexistent/ca.pem' }))).toThrow(ConfigError);
    expect(() => new Sender(loadConfig({ WEBHOOK_CA_FILE: 'package.json' }))).toThrow(/WEBHOOK_CA_FILE/);
  });
});
