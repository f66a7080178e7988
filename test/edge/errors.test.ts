import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';

describe.each(STORES)('error bodies [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind, { env: { BODY_LIMIT_BYTES: '2048' } });
  });
  afterAll(async () => h.close());

  const expectErrorBody = (body: Record<string, unknown>, code: string) => {
    expect(body.code).toBe(code);
    expect(typeof body.error).toBe('string');
    expect(JSON.stringify(body)).not.toMatch(/at .*\.(ts|js):\d+/); // never a stack trace
  };

  it('answers unknown routes with a JSON 404', async () => {
    for (const [method, url] of [['GET', '/nope'], ['POST', '/api/v1/nothing-here'], ['DELETE', '/api/v1/auth/login']]) {
      const response = await h.call(method!, url!);
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toMatch(/application\/json/);
      expectErrorBody(response.json(), 'not_found');
    }
  });

  it('refuses a body that is not JSON with 415', async () => {
    const t = await h.tenant();
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const response = await h.app.inject({
        method: 'POST', url: '/api/v1/api-keys', payload: 'name=x',
        headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': contentType },
      });
      expect(response.statusCode).toBe(415);
      expectErrorBody(response.json(), 'unsupported_media_type');
    }
  });

  it('refuses a body over BODY_LIMIT_BYTES with 413', async () => {
    const t = await h.tenant();
    const response = await h.call('POST', '/api/v1/api-keys', {
      token: t.adminToken, body: { name: 'x'.repeat(4096), scopes: ['interactions:read'] },
    });
    expect(response.statusCode).toBe(413);
    expectErrorBody(response.json(), 'payload_too_large');
  });

  it('refuses malformed JSON with 400', async () => {
    const t = await h.tenant();
    for (const payload of ['{"name": "x",', '{name: x}', 'nul', '']) {
      const response = await h.app.inject({
        method: 'POST', url: '/api/v1/api-keys', payload,
        headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' },
      });
      expect(response.statusCode).toBe(400);
      expectErrorBody(response.json(), 'validation_error');
    }
  });

  it('lists every schema violation under details with its path', async () => {
    const t = await h.tenant();
    const response = await h.call('POST', '/api/v1/api-keys', { token: t.adminToken, body: { name: '', scopes: ['nope'] } });
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expectErrorBody(body, 'validation_error');
    expect(body.details.length).toBeGreaterThan(0);
    expect(body.details[0]).toEqual({ path: expect.stringMatching(/^body\./), message: expect.any(String) });
  });

  it('refuses a page size over 500 with 400 instead of clamping it', async () => {
    const t = await h.tenant();
    const response = await h.call('GET', '/api/v1/audit-log', { token: t.adminToken, query: { limit: 501 } });
    expect(response.statusCode).toBe(400);
    expect(response.json().details).toEqual([{ path: 'query.limit', message: 'must be <= 500' }]);
  });

  it('answers 401 before looking at the body, so anonymous callers learn nothing', async () => {
    const response = await h.app.inject({
      method: 'POST', url: '/api/v1/api-keys', payload: '{bad', headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(401);
    expectErrorBody(response.json(), 'unauthorized');
  });

  it('answers 503 with Retry-After when the store is unreachable', async () => {
    const other = await Harness.start(kind);
    const t = await other.tenant();
    await other.deps.store.close();
    const response = await other.call('GET', '/api/v1/tenant', { token: t.adminToken });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expectErrorBody(response.json(), 'unavailable');
    await other.app.close();
  });

  it('refuses a body sent to an operation that takes none as it refuses any body: 400, 413, 415', async () => {
    const t = await h.tenant();
    const send = (payload: string, contentType: string) => h.app.inject({
      method: 'POST', url: '/api/v1/auth/logout', payload, headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': contentType },
    });
    for (const [payload, contentType, status, code] of [
      ['{"a":', 'application/json', 400, 'validation_error'], ['x'.repeat(4096), 'application/json', 413, 'payload_too_large'],
      ['a=b', 'text/plain', 415, 'unsupported_media_type'],
    ] as const) {
      const response = await send(payload, contentType);
      expect(response.statusCode, contentType).toBe(status);
      expectErrorBody(response.json(), code);
    }
    // Valid JSON is ignored.
    expect((await send('{"a":1}', 'application/json')).statusCode).toBe(204);
  });

  it('refuses a path parameter over its 100 characters with 400 naming it, not 414', async () => {
    const t = await h.tenant();
    for (const id of ['a'.repeat(101), '%C3%A9'.repeat(1_000)]) {
      const response = await h.call('GET', `/api/v1/policies/${id}`, { token: t.adminToken });
      expect(response.statusCode).toBe(400);
      expectErrorBody(response.json(), 'validation_error');
      expect(response.json().details).toEqual([{ path: 'params.policy_id', message: 'must NOT have more than 100 characters' }]);
    }
    expect((await h.call('GET', `/api/v1/policies/${'a'.repeat(100)}`, { token: t.adminToken })).statusCode).toBe(404);
  });

  it('answers what the router refuses (a path parameter over 2048 characters, or not UTF-8) with the same 400 and a request id', async () => {
    const t = await h.tenant();
    for (const [id, message] of [['a'.repeat(2_049), 'is longer than 2048 characters'], ['%ED%A0%80', 'is not valid percent-encoded UTF-8'], ['%E0%A4%A', 'is not valid percent-encoded UTF-8']] as const) {
      const response = await h.call('DELETE', `/api/v1/webhooks/${id}`, { token: t.adminToken, headers: { 'x-request-id': 'trace-param' } });
      expect(response.statusCode, id.slice(0, 20)).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.headers['x-request-id']).toBe('trace-param');
      expectErrorBody(response.json(), 'validation_error');
      expect(response.json().details).toEqual([{ path: 'params', message }]);
    }
  });

  it('sends a request id on every response', async () => {
    const response = await h.call('GET', '/healthz', { headers: { 'x-request-id': 'trace-123' } });
    expect(response.headers['x-request-id']).toBe('trace-123');
    const generated = await h.call('GET', '/healthz');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
