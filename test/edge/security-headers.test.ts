import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../src/edge/console.js';
import { Harness, type TestTenant } from '../helpers/harness.js';

const policy = (answer: LightMyRequestResponse) => new Map(String(answer.headers['content-security-policy'])
  .split(';').map((directive) => directive.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]));

/** What every answer carries, whatever its policy. */
function expectSecurityHeaders(answer: LightMyRequestResponse, what: string) {
  expect(answer.headers['x-content-type-options'], what).toBe('nosniff');
  expect(answer.headers['referrer-policy'], what).toBe('no-referrer');
  expect(answer.headers['x-frame-options'], what).toBe('DENY');
  expect(answer.headers['cross-origin-opener-policy'], what).toBe('same-origin');
  expect(answer.headers['cross-origin-resource-policy'], what).toBe('same-origin');
  expect(policy(answer).get('frame-ancestors'), what).toEqual(["'none'"]);
  expect(answer.headers['strict-transport-security'], what).toBeUndefined();
}

/** The API's strict policy: nothing may load, nothing may frame it. */
function expectStrictPolicy(answer: LightMyRequestResponse, what: string) {
  expect([...policy(answer).entries()], what).toEqual([['default-src', ["'none'"]], ['frame-ancestors', ["'none'"]]]);
}

// Headers of the HTTP layer, the same on both stores: the embedded one is enough.
describe('security headers on every answer', () => {
  let h: Harness;
  let t: TestTenant;
  beforeAll(async () => {
    h = await Harness.start('pglite');
    t = await h.tenant();
  });
  afterAll(async () => h?.close());

  it('API answers, errors and 404s get the strict policy', async () => {
    const answers = {
      'API 200': await h.call('GET', '/api/v1/tenant', { token: t.adminToken }),
      'API 201': await h.call('POST', '/api/v1/interactions', { token: t.adminToken, body: { platform_id: 'openai', content_hash: 'a'.repeat(64) } }),
      '401': await h.call('GET', '/api/v1/tenant'),
      '404 of the API': await h.call('GET', '/api/v1/no-such-route'),
      '404 elsewhere': await h.call('GET', '/no-such-file.js'),
      '400 of the router': await h.call('GET', '/api/v1/policies/%ED%A0%80', { token: t.adminToken }),
      'OpenAPI document': await h.call('GET', '/api/v1/openapi.json'),
      'probe': await h.call('GET', '/healthz'),
    };
    expect(Object.fromEntries(Object.entries(answers).map(([what, a]) => [what, a.statusCode]))).toEqual({
      'API 200': 200, 'API 201': 201, '401': 401, '404 of the API': 404, '404 elsewhere': 404, '400 of the router': 400,
      'OpenAPI document': 200, 'probe': 200,
    });
    for (const [what, answer] of Object.entries(answers)) {
      expectSecurityHeaders(answer, what);
      expectStrictPolicy(answer, what);
    }
  });

  it('the console keeps its own policy, its files get the strict one', async () => {
    const page = await h.call('GET', '/', { headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(200);
    expectSecurityHeaders(page, 'console page');
    expect(page.headers['content-security-policy']).toBe(CONSOLE_CSP);
    const deepPage = await h.call('GET', '/interactions', { headers: { accept: 'text/html' } });
    expect(deepPage.headers['content-security-policy']).toBe(CONSOLE_CSP);

    const script = /src="(\/assets\/[\w.-]+\.js)"/.exec(page.body)![1]!;
    const asset = await h.call('GET', script);
    expect(asset.statusCode).toBe(200);
    expectSecurityHeaders(asset, 'console asset');
    expectStrictPolicy(asset, 'console asset');
  });

  it('the reference page keeps its own policy, its script gets the strict one', async () => {
    const page = await h.call('GET', '/docs/');
    expect(page.statusCode).toBe(200);
    expectSecurityHeaders(page, 'reference page');
    expect(policy(page).get('script-src')?.[0]).toBe("'self'");
    expect(policy(page).get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);

    const script = await h.call('GET', '/docs/js/scalar.js');
    expect(script.statusCode).toBe(200);
    expectSecurityHeaders(script, 'reference script');
    expectStrictPolicy(script, 'reference script');
  });
});
