import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { hashPassword } from '../../src/kernel/passwords.js';
import { TEST_PASSWORD, type Harness, type TestTenant } from '../helpers/harness.js';
import { operationsOf, RequestBuilder, type Caller, type FuzzRequest, type OpenApiDocument, type Operation, type Pools } from './requests.js';
import { ResponseChecker, type Problem, type ProblemKind } from './responses.js';

/**
 * Drives the whole API with requests generated from its served OpenAPI document (valid, boundary
 * and hostile values for every parameter and body field, as every kind of caller, with ids of the
 * caller's tenant and of another) and checks every answer against the document.
 */

/** The environment the fuzzer's harness runs with: webhooks may target loopback (nothing is resolved or reached elsewhere). */
export const FUZZ_ENV = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_TIMEOUT_MS: '1000' };

/** Where the fuzzer's requests come from: not the harness's address, so its failed logins never throttle the harness's own. */
const FUZZ_ADDRESS = '192.0.2.10';
const CHUNK = 250;
const KEY_SCOPES = { 'key-write': ['interactions:write'], 'key-read': ['interactions:read'], 'key-both': ['interactions:write', 'interactions:read'] } as const;

export interface FuzzCounts {
  requests: number;
  server_error: number;
  undocumented_status: number;
  schema_violation: number;
  stack_trace: number;
  leak: number;
  /** Requests a client cannot send (light-my-request refused them); not counted in `requests`. */
  unsendable: number;
  byStatus: Record<string, number>;
  byOperation: Record<string, number>;
  /** The 2xx answers of each operation: how often a request got through to do its work. */
  okByOperation: Record<string, number>;
  /** Seconds spent sending and checking (the tenants' setup aside). */
  seconds: number;
}

export interface Finding extends Problem {
  index: number;
  operationId: string;
  request: string;
}

export interface FuzzResult {
  seed: number;
  /** The document's operation ids. */
  operations: string[];
  counts: FuzzCounts;
  /** The first findings of each kind and operation, for the report. */
  findings: Finding[];
  /** The other tenant's values searched for in every answer: at the start, and at the end (see World.foreign). */
  foreignValues: { start: number; end: number; adopted: Record<string, number> };
}

interface Side {
  tenant: TestTenant;
  viewer: { id: string; email: string; token: string };
  keys: Record<keyof typeof KEY_SCOPES, string>;
}

interface World {
  own: Side;
  pools: Pools;
  /**
   * The other tenant's ids and values: none may appear in an answer to the first tenant unless its
   * request carried it. A value the first tenant stored itself (any successful request carrying it:
   * an invitation of the same email, an interaction naming that user id, an export filtered by it,
   * whose filters the audit log keeps) is its own from then on.
   */
  foreign: Set<string>;
  /** What each of those values is (`user_id`, `email`…), for the report. */
  names: Map<string, string>;
}

/** The served document, read as a client would. */
export async function servedDocument(h: Harness): Promise<OpenApiDocument> {
  const response = await h.call('GET', '/api/v1/openapi.json');
  if (response.statusCode !== 200) throw new Error(`GET /api/v1/openapi.json: ${response.statusCode}`);
  return response.json() as OpenApiDocument;
}

export async function runFuzz(h: Harness, options: { requests: number; seed: number }): Promise<FuzzResult> {
  const doc = await servedDocument(h);
  const operations = operationsOf(doc);
  const checker = new ResponseChecker(doc);
  const world = await buildWorld(h);
  const foreignAtStart = world.foreign.size;
  const adopted: Record<string, number> = {};
  const counts: FuzzCounts = {
    requests: 0, server_error: 0, undocumented_status: 0, schema_violation: 0, stack_trace: 0, leak: 0, unsendable: 0, byStatus: {}, byOperation: {}, okByOperation: {}, seconds: 0,
  };
  const started = performance.now();
  const findings: Finding[] = [];
  const reported = new Set<string>();
  const byId = new Map(operations.map((op) => [op.operationId, op]));

  for (let chunk = 0; counts.requests < options.requests; chunk += 1) {
    await reviveCallers(h, world.own);
    // Rebuilt per chunk: the pools grow with what the fuzzer created.
    const builder = new RequestBuilder(doc, world.pools);
    const batch = fc.sample(builder.request(operations), { seed: options.seed + chunk, numRuns: Math.min(CHUNK, options.requests - counts.requests) });
    for (const [offset, request] of batch.entries()) {
      const index = chunk * CHUNK + offset;
      const op = byId.get(request.operationId)!;
      let answer;
      try {
        answer = await send(h, world.own, request);
      } catch {
        counts.unsendable += 1;
        continue;
      }
      counts.requests += 1;
      counts.byStatus[answer.statusCode] = (counts.byStatus[answer.statusCode] ?? 0) + 1;
      counts.byOperation[op.operationId] = (counts.byOperation[op.operationId] ?? 0) + 1;
      if (answer.statusCode < 300) counts.okByOperation[op.operationId] = (counts.okByOperation[op.operationId] ?? 0) + 1;
      const requestText = `${safeDecode(request.url)} ${request.url} ${JSON.stringify(request.headers)} ${request.payload ?? ''}`;
      for (const problem of checker.check(op, { statusCode: answer.statusCode, headers: answer.headers, body: answer.body }, requestText, [...world.foreign])) {
        counts[problem.kind] += 1;
        const key = `${problem.kind} ${op.operationId} ${answer.statusCode}`;
        if (!reported.has(key) && findings.length < 200) {
          reported.add(key);
          findings.push({ ...problem, index, operationId: op.operationId, request: describe(request) });
        }
      }
      harvest(world, op, request, answer);
      if (answer.statusCode < 300) {
        const lower = requestText.toLowerCase();
        for (const value of world.foreign) {
          if (!lower.includes(value.toLowerCase())) continue;
          world.foreign.delete(value);
          adopted[`${world.names.get(value)} by ${op.operationId}`] = (adopted[`${world.names.get(value)} by ${op.operationId}`] ?? 0) + 1;
        }
      }
    }
  }
  counts.seconds = (performance.now() - started) / 1000;
  return { seed: options.seed, operations: operations.map((op) => op.operationId), counts, findings, foreignValues: { start: foreignAtStart, end: world.foreign.size, adopted } };
}

/** The counts' kinds that must stay at zero. */
export const PROBLEM_KINDS: ProblemKind[] = ['server_error', 'undocumented_status', 'schema_violation', 'stack_trace', 'leak'];

export function summary(result: FuzzResult): string {
  const { counts } = result;
  const lines = [
    `seed ${result.seed} (replay: FUZZ_SEED=${result.seed} FUZZ_REQUESTS=${counts.requests})`,
    `requests ${counts.requests}, 5xx ${counts.server_error}, undocumented statuses ${counts.undocumented_status}, `
      + `schema violations ${counts.schema_violation}, stack traces ${counts.stack_trace}, leaks ${counts.leak}, unsendable ${counts.unsendable}`,
    `statuses ${JSON.stringify(counts.byStatus)}`,
    `2xx by operation ${JSON.stringify(counts.okByOperation)}`,
    `another tenant's values searched for: ${result.foreignValues.start} at the start, ${result.foreignValues.end} at the end `
      + `(stored by the first tenant itself: ${JSON.stringify(result.foreignValues.adopted)})`,
  ];
  for (const f of result.findings) lines.push(`#${f.index} ${f.kind} ${f.operationId}: ${f.message}\n    ${f.request}`);
  return lines.join('\n');
}

async function send(h: Harness, own: Side, request: FuzzRequest) {
  const headers: Record<string, string> = { ...request.headers };
  const authorization = authorizationOf(own, request.caller);
  if (authorization !== undefined) headers.authorization = authorization;
  const answer = await h.app.inject({
    method: request.method as 'GET', url: request.url, headers, remoteAddress: FUZZ_ADDRESS,
    ...(request.payload === undefined ? {} : { payload: request.payload }),
  });
  // A logout ends the session it used: the caller logs in again.
  if (request.operationId === 'logout' && answer.statusCode === 204) await reviveCallers(h, own);
  return answer;
}

function authorizationOf(own: Side, caller: Caller): string | undefined {
  switch (caller.kind) {
    case 'none': return undefined;
    case 'garbage': return caller.authorization;
    case 'admin': return `Bearer ${own.tenant.adminToken}`;
    case 'viewer': return `Bearer ${own.viewer.token}`;
    default: return `Bearer ${own.keys[caller.kind]}`;
  }
}

function describe(request: FuzzRequest): string {
  const payload = request.payload === undefined ? '' : ` ${request.payload.length > 1000 ? `${request.payload.slice(0, 1000)}… (${request.payload.length} chars)` : request.payload}`;
  const url = request.url.length > 300 ? `${request.url.slice(0, 300)}… (${request.url.length} chars)` : request.url;
  return `${request.method} ${url} as ${request.caller.kind} ${JSON.stringify(request.headers).slice(0, 200)}${payload}`;
}

function safeDecode(url: string): string {
  try {
    return decodeURIComponent(url);
  } catch {
    return url;
  }
}

/** Keeps the ids the fuzzer created in the first tenant, so that later requests act on them (a few per name). */
function harvest(world: World, op: Operation, request: FuzzRequest, answer: { statusCode: number; body: string }) {
  if (answer.statusCode !== 201 || request.method !== 'POST') return;
  let body: { id?: unknown };
  try {
    body = JSON.parse(answer.body);
  } catch {
    return;
  }
  if (typeof body.id !== 'string') return;
  const base = op.path.replace(/\/invite$/, '');
  const name = ['user_id', 'policy_id', 'webhook_id', 'key_id', 'interaction_id'].find((n) => world.pools[n] && base.endsWith(resourceOf(n)));
  if (name && world.pools[name]!.own.length < 20) world.pools[name]!.own.push(body.id);
}

const resourceOf = (name: string) => ({ user_id: '/users', policy_id: '/policies', webhook_id: '/webhooks', key_id: '/api-keys', interaction_id: '/interactions' })[name] ?? '';

/**
 * Makes every caller of the first tenant valid again (the fuzzer may have logged it out, disabled
 * it, changed its password, revoked its key, or required single sign-on, which refuses members'
 * passwords).
 */
async function reviveCallers(h: Harness, own: Side): Promise<void> {
  await h.db.updateTable('tenant_sso').set({ enforce: false }).where('tenant_id', '=', own.tenant.tenantId).execute();
  const works = async (token: string, url: string) => (await h.call('GET', url, { token })).statusCode === 200;
  const restore = async (id: string, role: 'admin' | 'viewer') => {
    await h.db.updateTable('users').set({ role, status: 'active', password_hash: await hashPassword(TEST_PASSWORD), updated_at: h.clock.now() })
      .where('tenant_id', '=', own.tenant.tenantId).where('id', '=', id).execute();
  };
  if (!(await works(own.tenant.adminToken, '/api/v1/users/me'))) {
    await restore(own.tenant.adminId, 'admin');
    own.tenant.adminToken = await h.login(own.tenant.adminEmail, TEST_PASSWORD);
  }
  if (!(await works(own.viewer.token, '/api/v1/users/me'))) {
    const exists = await h.db.selectFrom('users').select('id').where('tenant_id', '=', own.tenant.tenantId).where('id', '=', own.viewer.id).executeTakeFirst();
    if (exists) {
      await restore(own.viewer.id, 'viewer');
      own.viewer.token = await h.login(own.viewer.email, TEST_PASSWORD);
    } else {
      own.viewer = await h.user(own.tenant, 'viewer');
    }
  }
  for (const [kind, scopes] of Object.entries(KEY_SCOPES) as [keyof typeof KEY_SCOPES, readonly string[]][]) {
    if (!(await works(own.keys[kind], '/api/v1/event-types'))) own.keys[kind] = await h.apiKey(own.tenant, [...scopes]);
  }
}

/** A tenant with one of each thing the API holds; `marker` makes its values unique, to be searched for. */
async function populate(h: Harness, marker: string): Promise<{ side: Side; values: Record<string, string[]> }> {
  const tenant = await h.tenant(`Fuzz ${marker}`);
  const viewer = await h.user(tenant, 'viewer');
  const victim = await h.user(tenant, 'viewer');
  const admin2 = await h.user(tenant, 'admin');
  const keys = {
    'key-write': await h.apiKey(tenant, ['interactions:write']),
    'key-read': await h.apiKey(tenant, ['interactions:read']),
    'key-both': await h.apiKey(tenant, ['interactions:write', 'interactions:read']),
  };
  const call = async (method: string, url: string, body?: unknown) => {
    const response = await h.call(method, url, { token: tenant.adminToken, ...(body === undefined ? {} : { body }) });
    if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
    return response.statusCode === 204 ? {} : response.json();
  };
  const values: Record<string, string[]> = {
    tenant_id: [tenant.tenantId], user_id: [tenant.adminId, viewer.id, victim.id, admin2.id],
    email: [tenant.adminEmail, viewer.email, victim.email, admin2.email],
    policy_id: [], alert_id: [], interaction_id: [], webhook_id: [], delivery_id: [], key_id: [], erasure_id: [], content_hash: [], cursor: [],
    secret: [...Object.values(keys)],
  };
  const invited = await call('POST', '/api/v1/users/invite', { email: `invited-${marker}@fuzz.test`, role: 'viewer', display_name: `Invited ${marker}` });
  values.user_id!.push(invited.id);
  values.email!.push(invited.email);
  const apiKey = await call('POST', '/api/v1/api-keys', { name: `key ${marker}`, scopes: ['interactions:read'] });
  values.key_id!.push(apiKey.id);
  values.secret!.push(apiKey.key);
  const policy = await call('POST', '/api/v1/policies', {
    name: `Policy ${marker}`, description: `About ${marker}`, action: 'block', severity: 'high', conditions: { classification_types: [`TYPE_${marker}`] },
  });
  values.policy_id!.push(policy.id);
  for (const userId of [viewer.id, victim.id]) {
    const contentHash = createHash('sha256').update(`${marker} ${userId}`).digest('hex');
    const interaction = await call('POST', '/api/v1/interactions', {
      platform_id: `platform-${marker}`, content_hash: contentHash, user_id: userId, risk_score: 0.9,
      classifications: [{ type: `TYPE_${marker}`, value: `value-${marker}`, score: 0.9, start: 0, end: 5 }],
      content_metadata: { note: `metadata ${marker}` },
    });
    values.interaction_id!.push(interaction.id);
    values.content_hash!.push(contentHash);
  }
  const alerts = await call('GET', '/api/v1/alerts');
  values.alert_id!.push(...alerts.alerts.map((a: { id: string }) => a.id));
  const webhook = await call('POST', '/api/v1/webhooks', {
    url: `https://127.0.0.1:9/hook-${marker}`, events: ['alert.created'], description: `Hook ${marker}`, auth_token: `token-${marker}`,
  });
  values.webhook_id!.push(webhook.id);
  values.secret!.push(webhook.signing_secret);
  const test = await call('POST', `/api/v1/webhooks/${webhook.id}/test`, { event_type: 'alert.created' });
  values.delivery_id!.push(test.delivery_id);
  const erasure = await call('POST', `/api/v1/users/${victim.id}/erase-interactions`);
  values.erasure_id!.push(erasure.erasure_id);
  // A cursor of each list: the fuzzer passes them to the other tenant's lists.
  for (const list of ['/api/v1/users', '/api/v1/policies', '/api/v1/api-keys', '/api/v1/interactions', '/api/v1/audit-log']) {
    const page = await call('GET', `${list}?limit=1`);
    if (page.next_cursor) values.cursor!.push(page.next_cursor);
  }
  values.actor_id = values.user_id!;
  values.name = [`Fuzz ${marker}`, `Policy ${marker}`, `Hook ${marker}`, `Invited ${marker}`, `metadata ${marker}`, `platform-${marker}`, `value-${marker}`, `TYPE_${marker}`];
  return { side: { tenant, viewer, keys }, values };
}

/** The first tenant (the callers') and a second one whose ids the fuzzer slips into the first one's requests. */
async function buildWorld(h: Harness): Promise<World> {
  const own = await populate(h, `own${randomBytes(4).toString('hex')}`);
  const other = await populate(h, `other${randomBytes(4).toString('hex')}`);
  const pools: Pools = {};
  for (const name of ['user_id', 'actor_id', 'policy_id', 'alert_id', 'interaction_id', 'webhook_id', 'delivery_id', 'key_id', 'erasure_id', 'email', 'content_hash', 'cursor']) {
    pools[name] = { own: [...(own.values[name] ?? [])], other: [...(other.values[name] ?? [])] };
  }
  const names = new Map(Object.entries(other.values).flatMap(([name, values]) => values.map((v) => [v, name] as const)));
  return { own: own.side, pools, foreign: new Set(names.keys()), names };
}
