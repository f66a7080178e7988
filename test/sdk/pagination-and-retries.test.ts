import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { ApiError, createGovernanceClient, type RetryEvent } from '../../sdk/src/index.js';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { randomHash } from '../helpers/interactions-fixtures.js';
import { listen } from '../helpers/listening.js';
import { ResponseDroppingProxy } from '../helpers/response-dropping-proxy.js';
import { STORES } from '../helpers/stores.js';

interface Attempt {
  method: string;
  key: string | null;
  /** 0 when no answer came. */
  status: number;
  replayed: boolean;
  /** Retry-After of the answer, in seconds (0 when absent). */
  retryAfter: number;
}

/** The global fetch, noting every attempt the client makes. */
function recordingFetch(attempts: Attempt[]) {
  return async (request: Request): Promise<Response> => {
    const attempt: Attempt = { method: request.method, key: request.headers.get('idempotency-key'), status: 0, replayed: false, retryAfter: 0 };
    attempts.push(attempt);
    const response = await fetch(request);
    attempt.status = response.status;
    attempt.replayed = response.headers.get('idempotent-replayed') === 'true';
    attempt.retryAfter = Number(response.headers.get('retry-after') ?? 0);
    return response;
  };
}

const hashes = (count: number) => Array.from({ length: count }, () => randomHash());

describe.each(STORES)('SDK pagination and retries against the running service [%s]', (kind) => {
  let h: Harness;
  let baseUrl: string;
  const apps: FastifyInstance[] = [];
  beforeAll(async () => {
    h = await Harness.start(kind);
    baseUrl = await listen(h.app);
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await h.close();
  });

  /** Another replica of the service on the same store, with its own settings, listening. */
  async function replica(env: Record<string, string>): Promise<string> {
    const app = await buildApp({ ...h.deps, config: loadConfig({ LOG_LEVEL: 'silent', ...env }) });
    apps.push(app);
    return listen(app);
  }

  const storedCount = async (t: TestTenant, contentHashes: string[]) => {
    const row = await h.db.selectFrom('interactions').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', t.tenantId).where('content_hash', 'in', contentHashes).executeTakeFirstOrThrow();
    return Number(row.n);
  };

  /**
   * Runs `run` while the store fails the first insert of `contentHash` as a server shutting down
   * would (the service answers 503 to the transaction's requests); the next insert goes through
   * (a sequence counts, and sequences ignore rollbacks).
   */
  async function failingOnce<T>(contentHash: string, run: () => Promise<T>): Promise<T> {
    await sql`create sequence sdk_fail_once`.execute(h.db);
    await sql.raw(`create function sdk_fail_once() returns trigger language plpgsql as $$
      begin
        if new.content_hash = '${contentHash}' and nextval('sdk_fail_once') = 1 then
          raise exception 'the server is going away' using errcode = '57P01';
        end if;
        return new;
      end $$`).execute(h.db);
    await sql`create trigger sdk_fail_once before insert on interactions for each row execute function sdk_fail_once()`.execute(h.db);
    try {
      return await run();
    } finally {
      await sql`drop trigger sdk_fail_once on interactions`.execute(h.db);
      await sql`drop function sdk_fail_once()`.execute(h.db);
      await sql`drop sequence sdk_fail_once`.execute(h.db);
    }
  }

  describe('pagination', () => {
    it('visits every item of a list exactly once, following next_cursor, typed by the list\'s item', async () => {
      const t = await h.tenant();
      const client = createGovernanceClient({ baseUrl, token: t.adminToken });
      const created = hashes(37);
      const batch = await client.POST('/api/v1/interactions/batch', { body: created.map((content_hash) => ({ platform_id: 'openai', content_hash })) });
      expect(batch).toMatchObject({ stored: 37 });

      const seen: string[] = [];
      for await (const interaction of client.items('/api/v1/interactions', { params: { query: { limit: 10 } } })) {
        expectTypeOf(interaction.content_hash).toEqualTypeOf<string>();
        seen.push(interaction.content_hash);
        // Rows added during a walk by cursor do not shift it.
        if (seen.length === 5) {
          await client.POST('/api/v1/interactions/batch', { body: hashes(3).map((content_hash) => ({ platform_id: 'openai', content_hash })) });
        }
      }
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.filter((hash) => created.includes(hash)).sort()).toEqual([...created].sort());

      const sizes: number[] = [];
      for await (const page of client.pages('/api/v1/policies', { params: { query: { limit: 2 } } })) sizes.push(page.policies.length);
      expect(sizes).toEqual([0]);
    });

    it('iterates items of other lists by their own key, and from a given page on by cursor', async () => {
      const t = await h.tenant();
      const client = createGovernanceClient({ baseUrl, token: t.adminToken });
      const names = Array.from({ length: 7 }, (_, i) => `policy ${i}`);
      for (const name of names) await client.POST('/api/v1/policies', { body: { name, action: 'log' } });

      const all: string[] = [];
      for await (const policy of client.items('/api/v1/policies', { params: { query: { limit: 3 } } })) {
        expectTypeOf(policy.action).toEqualTypeOf<'block' | 'coach' | 'log'>();
        all.push(policy.name);
      }
      expect(all).toEqual(names);

      const pages: string[][] = [];
      for await (const page of client.pages('/api/v1/policies', { params: { query: { limit: 3, page: 2 } } })) {
        pages.push(page.policies.map((policy) => policy.name));
      }
      expect(pages).toEqual([names.slice(3, 6), names.slice(6)]);
    });

    it('falls back to page numbers for a list whose answers have no next_cursor', async () => {
      const t = await h.tenant();
      const created = hashes(12);
      await createGovernanceClient({ baseUrl, token: t.adminToken })
        .POST('/api/v1/interactions/batch', { body: created.map((content_hash) => ({ platform_id: 'openai', content_hash })) });
      // The service's real answers, as a release without cursors would send them.
      const requested: string[] = [];
      const withoutCursors = async (request: Request) => {
        requested.push(new URL(request.url).search);
        const response = await fetch(request);
        const { next_cursor: _dropped, ...body } = await response.json() as Record<string, unknown>;
        return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
      };
      const client = createGovernanceClient({ baseUrl, token: t.adminToken, fetch: withoutCursors });
      const seen: string[] = [];
      for await (const interaction of client.items('/api/v1/interactions', { params: { query: { limit: 5 } } })) seen.push(interaction.content_hash);
      expect(seen.sort()).toEqual([...created].sort());
      expect(requested).toEqual(['?limit=5', '?limit=5&page=2', '?limit=5&page=3']);
    });

    it('takes a list answered as an array (search) as one page', async () => {
      const t = await h.tenant();
      const client = createGovernanceClient({ baseUrl, token: t.adminToken });
      const contentHash = randomHash();
      await client.POST('/api/v1/interactions/batch', { body: [{ platform_id: 'openai', content_hash: contentHash }, { platform_id: 'openai', content_hash: contentHash }] });
      const found: string[] = [];
      for await (const interaction of client.items('/api/v1/interactions/search', { params: { query: { content_hash: contentHash } } })) {
        found.push(interaction.content_hash);
      }
      expect(found).toEqual([contentHash, contentHash]);
    });

    it('rejects with ApiError when a page fails', async () => {
      const t = await h.tenant();
      const client = createGovernanceClient({ baseUrl, token: t.adminToken });
      const walk = async () => {
        for await (const _ of client.items('/api/v1/interactions', { params: { query: { limit: 5, cursor: 'not-a-cursor' } } })) { /* none */ }
      };
      await expect(walk()).rejects.toMatchObject({ status: 400, code: 'validation_error' });
    });
  });

  describe('retries', () => {
    it('retries creates refused with a real 503 after Retry-After, with one Idempotency-Key per create, storing each once', async () => {
      const t = await h.tenant();
      const attempts: Attempt[] = [];
      const retries: RetryEvent[] = [];
      const client = createGovernanceClient({
        baseUrl, token: t.adminToken, fetch: recordingFetch(attempts),
        retry: { baseDelayMs: 20, onRetry: (retry) => retries.push(retry) },
      });
      const created = hashes(8);
      const answers = await failingOnce(created[3]!, () => Promise.all(created.map((content_hash) =>
        client.POST('/api/v1/interactions', { body: { platform_id: 'openai', content_hash } }))));

      expect(answers.map((answer) => answer.content_hash)).toEqual(created);
      expect(new Set(answers.map((answer) => answer.id)).size).toBe(8);
      const refused = attempts.filter((attempt) => attempt.status === 503);
      expect(refused.length).toBeGreaterThan(0);
      expect(retries.map((retry) => retry.status)).toEqual(refused.map(() => 503));
      // Retry-After was honoured.
      for (const [i, retry] of retries.entries()) expect(retry.delayMs).toBeGreaterThanOrEqual(refused[i]!.retryAfter * 1000);
      const keys = new Set(attempts.map((attempt) => attempt.key));
      expect(keys.size).toBe(8);
      expect(keys.has(null)).toBe(false);
      for (const key of keys) {
        const statuses = attempts.filter((attempt) => attempt.key === key).map((attempt) => attempt.status);
        expect(statuses.at(-1)).toBe(201);
        expect(statuses.slice(0, -1).every((status) => status === 503)).toBe(true);
      }
      expect(await storedCount(t, created)).toBe(8);
    });

    it('retries a create whose answer was lost with the same Idempotency-Key: the service replays it and stores it once', async () => {
      const t = await h.tenant();
      const proxy = new ResponseDroppingProxy('127.0.0.1', Number(new URL(baseUrl).port));
      await proxy.start();
      try {
        const attempts: Attempt[] = [];
        const retries: RetryEvent[] = [];
        const client = createGovernanceClient({
          baseUrl: proxy.url, token: t.adminToken, fetch: recordingFetch(attempts),
          retry: { baseDelayMs: 20, onRetry: (retry) => retries.push(retry) },
        });
        const contentHash = randomHash();
        proxy.arm('POST /api/v1/interactions HTTP');
        const created = await client.POST('/api/v1/interactions', { body: { platform_id: 'openai', content_hash: contentHash } });

        expect(proxy.dropped).toBe(1);
        expect(retries).toHaveLength(1);
        expect(retries[0]).toMatchObject({ status: undefined, method: 'POST' });
        expect(attempts).toHaveLength(2);
        expect(attempts[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
        expect(attempts[1]).toMatchObject({ key: attempts[0]!.key, status: 201, replayed: true });
        expect(created.content_hash).toBe(contentHash);
        expect(await storedCount(t, [contentHash])).toBe(1);
      } finally {
        await proxy.stop();
      }
    });

    it('does not retry a create that takes no Idempotency-Key: a lost answer is the caller\'s error', async () => {
      const t = await h.tenant();
      const proxy = new ResponseDroppingProxy('127.0.0.1', Number(new URL(baseUrl).port));
      await proxy.start();
      try {
        const attempts: Attempt[] = [];
        const client = createGovernanceClient({ baseUrl: proxy.url, token: t.adminToken, fetch: recordingFetch(attempts) });
        proxy.arm('POST /api/v1/policies HTTP');
        await expect(client.POST('/api/v1/policies', { body: { name: 'once', action: 'log' } })).rejects.toThrow(TypeError);
        expect(attempts).toHaveLength(1);
        expect(attempts[0]!.key).toBeNull();
        const listed = await createGovernanceClient({ baseUrl, token: t.adminToken }).GET('/api/v1/policies');
        expect(listed.policies.map((policy) => policy.name)).toEqual(['once']);
      } finally {
        await proxy.stop();
      }
    });

    it('retries a GET whose answer was lost', async () => {
      const t = await h.tenant();
      const proxy = new ResponseDroppingProxy('127.0.0.1', Number(new URL(baseUrl).port));
      await proxy.start();
      try {
        const retries: RetryEvent[] = [];
        const client = createGovernanceClient({ baseUrl: proxy.url, token: t.adminToken, retry: { baseDelayMs: 20, onRetry: (retry) => retries.push(retry) } });
        proxy.arm('GET /api/v1/tenant HTTP');
        expect((await client.GET('/api/v1/tenant')).id).toBe(t.tenantId);
        expect(proxy.dropped).toBe(1);
        expect(retries).toMatchObject([{ method: 'GET', status: undefined }]);
        expect(retries[0]!.error).toBeInstanceOf(TypeError);
      } finally {
        await proxy.stop();
      }
    });

    it('gives up at once on a 429 whose Retry-After is longer than it may wait, and says so in ApiError', async () => {
      const t = await h.tenant();
      const limited = await replica({ RATE_LIMIT_PER_MINUTE: '2' });
      const retries: RetryEvent[] = [];
      const client = createGovernanceClient({ baseUrl: limited, token: t.adminToken, retry: { maxDelayMs: 500, onRetry: (retry) => retries.push(retry) } });
      await client.GET('/api/v1/tenant');
      await client.GET('/api/v1/tenant');
      const error = await client.GET('/api/v1/tenant').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 429, code: 'rate_limited' });
      expect((error as ApiError).retryAfterSeconds).toBeGreaterThan(0);
      expect(retries).toEqual([]);
    });
  });
});
