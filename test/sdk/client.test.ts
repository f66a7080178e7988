import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { ApiError, createGovernanceClient, type ErrorCode } from '../../sdk/src/index.js';
import { Harness, TEST_PASSWORD, type TestTenant } from '../helpers/harness.js';
import { randomHash } from '../helpers/interactions-fixtures.js';
import { listen } from '../helpers/listening.js';
import { STORES } from '../helpers/stores.js';

describe.each(STORES)('SDK client against the running service [%s]', (kind) => {
  let h: Harness;
  let baseUrl: string;
  let t: TestTenant;
  beforeAll(async () => {
    h = await Harness.start(kind);
    baseUrl = await listen(h.app);
    t = await h.tenant();
  });
  afterAll(async () => {
    await h.close();
  });

  const failure = async (promise: Promise<unknown>): Promise<ApiError> => {
    const error = await promise.then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  };

  it('logs in and calls with the session token', async () => {
    const anonymous = createGovernanceClient({ baseUrl });
    const login = await anonymous.POST('/api/v1/auth/login', { body: { email: t.adminEmail, password: TEST_PASSWORD } });
    expect(login.token).toMatch(/^ugt_/);

    const client = createGovernanceClient({ baseUrl, token: login.token });
    const tenant = await client.GET('/api/v1/tenant');
    expectTypeOf(tenant.id).toEqualTypeOf<string>();
    expect(tenant).toMatchObject({ id: t.tenantId, name: 'Acme' });
    const me = await client.GET('/api/v1/users/me');
    expect(me).toMatchObject({ id: t.adminId, email: t.adminEmail, role: 'admin' });
  });

  it('calls with an API key: creates an interaction, reads it back by path parameter, and is refused what its scopes do not open', async () => {
    const key = await h.apiKey(t, ['interactions:write', 'interactions:read']);
    const client = createGovernanceClient({ baseUrl, apiKey: key });
    const body = { platform_id: 'OpenAI', content_hash: randomHash() };
    const created = await client.POST('/api/v1/interactions', { body });
    expectTypeOf(created.risk_score).toEqualTypeOf<number>();
    expect(created).toMatchObject({ platform_id: 'openai', content_hash: body.content_hash, tenant_id: t.tenantId });

    const read = await client.GET('/api/v1/interactions/{interaction_id}', { params: { path: { interaction_id: created.id } } });
    expect(read).toEqual(created);

    const refused = await failure(client.GET('/api/v1/webhooks'));
    expect(refused).toMatchObject({ status: 403, code: 'forbidden' });
  });

  it('refuses a token and an API key together', () => {
    expect(() => createGovernanceClient({ baseUrl, token: 'ugt_x', apiKey: 'ugk_y' })).toThrow(TypeError);
  });

  it('rejects with ApiError carrying status, code, message, details and request id', async () => {
    const client = createGovernanceClient({ baseUrl, token: t.adminToken });

    const missing = await failure(client.GET('/api/v1/interactions/{interaction_id}', {
      params: { path: { interaction_id: '0190a000-0000-7000-8000-0000000000ff' } },
    }));
    expectTypeOf(missing.code).toEqualTypeOf<ErrorCode>();
    expect(missing).toMatchObject({ status: 404, code: 'not_found', details: undefined });
    expect(missing.error).toEqual(expect.any(String));
    expect(missing.requestId).toMatch(/^[0-9a-f-]{36}$/);

    const invalid = await failure(client.POST('/api/v1/interactions', { body: { platform_id: 'openai', content_hash: 'not-a-hash' } }));
    expect(invalid).toMatchObject({ status: 400, code: 'validation_error' });
    expect(invalid.details?.map((detail) => detail.path)).toContain('body.content_hash');

    const tracedId = 'sdk-trace-0001';
    const traced = await failure(client.GET('/api/v1/alerts/{alert_id}', {
      params: { path: { alert_id: '0190a000-0000-7000-8000-0000000000fe' } }, headers: { 'x-request-id': tracedId },
    }));
    expect(traced.requestId).toBe(tracedId);

    const unknownToken = await failure(createGovernanceClient({ baseUrl, token: 'ugt_unknown' }).GET('/api/v1/tenant'));
    expect(unknownToken).toMatchObject({ status: 401, code: 'unauthorized' });
    const anonymous = await failure(createGovernanceClient({ baseUrl }).GET('/api/v1/tenant'));
    expect(anonymous).toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it('answers 204 operations with undefined', async () => {
    const client = createGovernanceClient({ baseUrl, token: t.adminToken });
    const policy = await client.POST('/api/v1/policies', { body: { name: 'to delete', action: 'log' } });
    expect(await client.DELETE('/api/v1/policies/{policy_id}', { params: { path: { policy_id: policy.id } } })).toBeUndefined();
    const gone = await failure(client.GET('/api/v1/policies/{policy_id}', { params: { path: { policy_id: policy.id } } }));
    expect(gone.code).toBe('not_found');
  });
});
