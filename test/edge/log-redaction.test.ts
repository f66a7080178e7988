import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logRedaction } from '../../src/edge/log-redaction.js';
import { LIMITS } from '../../src/kernel/vocabulary.js';
import { logFailure } from '../../src/platform/store/store-outages.js';
import { Harness, TEST_PASSWORD, type TestTenant } from '../helpers/harness.js';
import { createTestCertificates, HttpsReceiver } from '../helpers/https-receiver.js';
import { SmtpReceiver } from '../helpers/smtp-receiver.js';
import { STORES } from '../helpers/stores.js';
import { latestInvitationToken, STRONG_PASSWORD, uniqueEmail } from '../helpers/users-fixtures.js';
import { deliveryEnv } from '../helpers/webhooks-fixtures.js';

const CARD = '4111 1111 1111 1111';
const IBAN = 'FR7630006000011234567890189';
const EMAIL = 'jane.doe@example.com';
const API_KEY_VALUE = 'sk-live-abcdefghijklmnop';
const NIR = '1 84 12 76 451 089 46';
const DETECTED = [
  { type: 'CREDIT_CARD', value: CARD },
  { type: 'IBAN', value: IBAN },
  { type: 'EMAIL', value: EMAIL },
  { type: 'API_KEY', value: API_KEY_VALUE },
  { type: 'NIR', value: NIR },
];

const METRICS_TOKEN = 'metrics-Secret-0123456789';
const SMTP_PASSWORD = 'smtp-Secret-0001';
const WRONG_PASSWORD = 'Wrong-Secret-Password-1';
const AUTH_TOKEN = 'receiver-Bearer-Secret-0001';
const AUTH_TOKEN_UPDATED = 'receiver-Bearer-Secret-0002';
const HEADER_VALUE = 'custom-Header-Secret-0001';
const COOKIE = 'session=cookie-Secret-0001';
const UNKNOWN_BEARER = 'ugt_NotAKnownSessionSecret0001';

/** The log lines of the app and the workers, as written. */
class LogCapture {
  private readonly lines: string[] = [];
  write(line: string): void {
    this.lines.push(line);
  }
  get text(): string {
    return this.lines.join('');
  }
}

/** Every secret that `text` shows, numbers also looked for as bare digits. */
function leaked(text: string, secrets: readonly string[]): string[] {
  const forms = secrets.flatMap((secret) => {
    const digits = secret.replace(/\D/g, '');
    return digits.length >= 12 && digits !== secret ? [secret, digits] : [secret];
  });
  return forms.filter((form) => text.includes(form));
}

const hash = (n: number) => n.toString(16).padStart(64, 'a');

describe.each(STORES)('log redaction [%s]', (kind) => {
  const certificates = createTestCertificates();
  const log = new LogCapture();
  const secrets: string[] = [...DETECTED.map((d) => d.value), METRICS_TOKEN, SMTP_PASSWORD, WRONG_PASSWORD, TEST_PASSWORD,
    AUTH_TOKEN, AUTH_TOKEN_UPDATED, HEADER_VALUE, COOKIE, UNKNOWN_BEARER];
  let h: Harness;
  let receiver: HttpsReceiver;
  let smtp: SmtpReceiver;
  let t: TestTenant;

  beforeAll(async () => {
    receiver = await HttpsReceiver.start(certificates);
    receiver.fallback = { status: 500 };
    // It refuses every login: the mail worker logs the SMTP error and retries.
    smtp = await SmtpReceiver.start();
    h = await Harness.start(kind, {
      workers: true,
      logStream: log,
      env: deliveryEnv(certificates, {
        LOG_LEVEL: 'trace', METRICS_TOKEN, SMTP_URL: `smtp://mailer:${SMTP_PASSWORD}@127.0.0.1:${smtp.port}`,
      }),
    });
    t = await h.tenant();
    secrets.push(t.adminToken);
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
    await smtp.close();
  });

  const post = (url: string, body: unknown, token = t.adminToken) => h.call('POST', url, { token, body });

  it('keeps detected values out of the log, for stored interactions and refused bodies alike', async () => {
    const key = await h.apiKey(t, ['interactions:write']);
    secrets.push(key);
    const policy = await post('/api/v1/policies', {
      name: 'No card numbers', action: 'block', severity: 'high', conditions: { classification_types: ['CREDIT_CARD'] },
    });
    expect(policy.statusCode).toBe(201);
    const classifications = DETECTED.map((d, i) => ({ ...d, score: 0.9, start: i * 30, end: i * 30 + d.value.length }));

    const created = await post('/api/v1/interactions', { platform_id: 'openai', content_hash: hash(1), risk_score: 0.9, classifications }, key);
    expect(created.statusCode).toBe(201);
    expect(created.json().policy_decisions).toHaveLength(1);
    const batch = await post('/api/v1/interactions/batch', [
      { platform_id: 'mistral', content_hash: hash(2), classifications },
      { platform_id: 'mistral', content_hash: 'not-a-sha-256', classifications },
      { platform_id: 'mistral', content_hash: hash(3), classifications: [{ ...classifications[0], score: 'high' }] },
    ], key);
    expect(batch.json()).toEqual({ received: 3, stored: 1 });

    for (const refused of [
      { platform_id: 'openai', content_hash: hash(4), classifications: classifications.map((c) => ({ ...c, score: 'sure' })) },
      { platform_id: 'openai', content_hash: hash(5), classifications: classifications.map((c) => ({ ...c, start: c.value })) },
      { platform_id: 'openai', content_hash: hash(6), classifications: [{ ...classifications[3], value: API_KEY_VALUE.repeat(LIMITS.classificationValueLength) }] },
      { platform_id: 'openai', content_hash: hash(7), classifications: classifications.map((c) => ({ ...c, type: c.value, value: 42 })) },
      { platform_id: CARD, content_hash: IBAN, user_id: EMAIL, classifications },
    ]) {
      const response = await post('/api/v1/interactions', refused, key);
      expect(response.statusCode, response.body).toBe(400);
    }
    const malformed = await h.app.inject({
      method: 'POST', url: '/api/v1/interactions',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: `{"platform_id":"openai","classifications":[{"type":"CREDIT_CARD","value":"${CARD}" "${NIR}"}]`,
    });
    expect(malformed.statusCode).toBe(400);

    expect(log.text).toContain('"url":"/api/v1/interactions/batch"');
    expect(log.text).toContain('"statusCode":400');
    expect(leaked(log.text, secrets)).toEqual([]);
  });

  it("keeps a webhook's signing secrets, bearer token and custom header values out of the log", async () => {
    const created = await post('/api/v1/webhooks', {
      url: receiver.url(), events: ['alert.created'], headers: { 'X-Api-Key': HEADER_VALUE }, auth_token: AUTH_TOKEN,
    });
    expect(created.statusCode).toBe(201);
    const webhook = created.json();
    secrets.push(webhook.signing_secret);

    const rotated = await post(`/api/v1/webhooks/${webhook.id}/rotate-secret`, undefined);
    expect(rotated.statusCode).toBe(200);
    secrets.push(rotated.json().signing_secret);
    const updated = await h.call('PUT', `/api/v1/webhooks/${webhook.id}`, {
      token: t.adminToken, body: { auth_token: AUTH_TOKEN_UPDATED, headers: { 'X-Api-Key': HEADER_VALUE } },
    });
    expect(updated.statusCode).toBe(200);
    const refused = await post('/api/v1/webhooks', {
      url: receiver.url(), events: ['alert.created'], headers: { 'X-Api-Key': `${HEADER_VALUE}\n` }, auth_token: `${AUTH_TOKEN} x`,
    });
    expect(refused.statusCode).toBe(400);
    // Sent now, with the token and the header; the receiver answers 500.
    const tested = await post(`/api/v1/webhooks/${webhook.id}/test`, { event_type: 'alert.created' });
    expect(tested.statusCode).toBe(200);
    expect(receiver.requests.at(-1)?.headers.authorization).toBe(`Bearer ${AUTH_TOKEN_UPDATED}`);

    // The alert of a card number is delivered by the worker, which logs the failed attempt.
    const key = await h.apiKey(t, ['interactions:write']);
    secrets.push(key);
    await post('/api/v1/interactions', {
      platform_id: 'openai', content_hash: hash(8), classifications: [{ type: 'CREDIT_CARD', value: CARD, score: 1, start: 0, end: 19 }],
    }, key);
    await expect.poll(() => log.text, { timeout: 10_000 }).toContain('webhook attempt failed');

    expect(leaked(log.text, secrets)).toEqual([]);
  });

  it('keeps passwords, session tokens, API keys, cookies and invitation tokens out of the log', async () => {
    const wrong = await h.call('POST', '/api/v1/auth/login', { body: { email: t.adminEmail, password: WRONG_PASSWORD } });
    expect(wrong.statusCode).toBe(401);
    const unknown = await h.call('GET', '/api/v1/tenant', { token: UNKNOWN_BEARER, headers: { cookie: COOKIE } });
    expect(unknown.statusCode).toBe(401);

    // The email cannot be sent (the SMTP server refuses the login): the worker logs it and retries.
    const email = uniqueEmail();
    expect((await post('/api/v1/users/invite', { email, role: 'viewer' })).statusCode).toBe(201);
    const invitation = await latestInvitationToken(h, t.tenantId, email);
    secrets.push(invitation, STRONG_PASSWORD);
    await h.call('GET', `/accept-invite?token=${encodeURIComponent(invitation)}`);
    await h.call('GET', `/api/v1/users?limit=5&access_token=${t.adminToken}&api_key=${invitation}`, { token: t.adminToken });
    // A single sign-on callback's authorization code and state.
    secrets.push('sso-state-0123456789abcdef', 'sso-code-0123456789abcdef');
    await h.call('GET', '/api/v1/auth/sso/callback?state=sso-state-0123456789abcdef&code=sso-code-0123456789abcdef&iss=x');
    const accepted = await h.call('POST', '/api/v1/auth/accept-invite', { body: { token: invitation, password: STRONG_PASSWORD } });
    expect(accepted.statusCode).toBe(200);
    secrets.push(accepted.json().token);
    await h.call('GET', '/api/v1/users/me', { token: accepted.json().token });
    await expect.poll(() => log.text, { timeout: 10_000 }).toContain('email not sent; will retry');

    expect(log.text).toContain('"url":"/api/v1/users?limit=5&access_token=[Redacted]&api_key=[Redacted]"');
    expect(log.text).toContain('"url":"/api/v1/auth/sso/callback?state=[Redacted]&code=[Redacted]&iss=x"');
    expect(leaked(log.text, secrets)).toEqual([]);
  });

  it("keeps the values of a failed statement out of the log (an error's detail and parameters)", async () => {
    const failed = await h.db.transaction().execute(async (tx) => {
      await sql`create temp table refused (value text check (value = 'never')) on commit drop`.execute(tx);
      await sql`insert into refused values (${CARD}), (${IBAN})`.execute(tx);
    }).then(() => undefined, (error: unknown) => error);
    expect(failed).toBeInstanceOf(Error);
    expect(JSON.stringify({ ...(failed as object) })).toContain(CARD);

    // As the error handler logs a failed request, and as a worker (a logger built like main.ts's) logs a failed run.
    h.app.log.error({ err: failed }, 'request failed');
    const workerLogger = pino({ level: 'trace', ...logRedaction }, log);
    logFailure(h.deps.store, workerLogger, 'error', failed, 'background job failed; will retry');

    expect(log.text).toContain('violates check constraint');
    expect(leaked(log.text, secrets)).toEqual([]);
  });

  it('shows none of them in /metrics', async () => {
    const response = await h.call('GET', '/metrics', { token: METRICS_TOKEN });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('ugs_http_requests_total');
    expect(leaked(response.body, secrets)).toEqual([]);
    expect(leaked(log.text, secrets)).toEqual([]);
  });
});
