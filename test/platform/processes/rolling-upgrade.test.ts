import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../../src/platform/store/migrations/index.js';
import { installRelease, RELEASES, type InstalledRelease } from '../../helpers/earlier-release.js';
import { randomHash } from '../../helpers/interactions-fixtures.js';
import { ServiceProcess } from '../../helpers/process.js';
import { RELEASE_ADMIN, releaseAdminEnv } from '../../helpers/release-data.js';
import { ServiceApi } from '../../helpers/service-api.js';
import { sleep } from '../../helpers/webhooks-fixtures.js';

// The previous release keeps serving while this build migrates its database and starts beside
// it, both as a role that owns the database and is no superuser, as docs/operations.md sets the
// service up: a superuser passes row-level security by, and would hide what it changes. What works
// is asserted, and so is what does not (why the upgrade from 0.7 stops its processes first:
// docs/operations.md, "From 0.7 to 0.8").

const PREVIOUS = Object.keys(RELEASES).at(-1)!;

interface Outcome {
  by: 'previous' | 'current';
  op: 'create' | 'read';
  sentAt: number;
  status: number;
  id: string;
}

describe.runIf(process.env.TEST_DATABASE_URL)(`a rolling upgrade from v${PREVIOUS} [postgres]`, () => {
  const adminUrl = process.env.TEST_DATABASE_URL!;
  const name = `ugs_roll_${randomBytes(6).toString('hex')}`;
  const urlAs = (user: string) => Object.assign(new URL(adminUrl), { username: user, password: '', pathname: `/${name}` }).toString();
  const env = { DATABASE_URL: urlAs(name), ...releaseAdminEnv };
  let release: InstalledRelease;
  let previous: ServiceApi;
  let current: ServiceApi;
  let auth: Record<string, string> = {};
  const outcomes: Outcome[] = [];
  let migrationStarted = 0;
  let committedAt = 0;

  const asSuperuser = async <T>(work: (client: pg.Client) => Promise<T>, url = adminUrl): Promise<T> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  /** Creates an interaction and reads it back, through `api`, until `done`; every answer is kept. */
  const serve = async (by: Outcome['by'], api: ServiceApi, done: () => boolean) => {
    while (!done()) {
      const sentAt = Date.now();
      const created = await api.call('POST', '/api/v1/interactions', { platform_id: 'openai', content_hash: randomHash() }, auth, '');
      outcomes.push({ by, op: 'create', sentAt, status: created.status, id: created.body?.id ?? '' });
      if (created.status === 201) {
        const readAt = Date.now();
        const read = await api.call('GET', `/api/v1/interactions/${created.body.id}`, undefined, auth, '');
        outcomes.push({ by, op: 'read', sentAt: readAt, status: read.status, id: created.body.id });
      }
      await sleep(20);
    }
  };
  const statuses = (filter: (outcome: Outcome) => boolean) => [...new Set(outcomes.filter(filter).map((o) => `${o.op} ${o.status}`))].sort();
  const acknowledged = () => outcomes.filter((o) => o.op === 'create' && o.status === 201);

  beforeAll(async () => {
    release = await installRelease(PREVIOUS);
    await asSuperuser(async (client) => {
      await client.query(`create role ${name} login nosuperuser nobypassrls`);
      await client.query(`create database ${name} owner ${name}`);
      // The service's role made beforehand, for a service role that may not create roles (docs/operations.md).
      await client.query(`do $$ begin create role ugs_app nologin; exception when duplicate_object or unique_violation then null; end $$`);
      await client.query(`grant ugs_app to ${name}`);
    });
    previous = await ServiceApi.start(env, { cli: release.cli, admin: RELEASE_ADMIN });
    const key = await previous.expect(201, 'POST', '/api/v1/api-keys', { name: 'ingest', scopes: ['interactions:write', 'interactions:read'] });
    auth = { authorization: `Bearer ${key.key}` };
  }, 900_000);

  afterAll(async () => {
    await Promise.all([previous, current].map((api) => api?.stop('SIGKILL')));
    await asSuperuser(async (client) => {
      await client.query(`drop database if exists ${name} with (force)`);
      await client.query(`drop role if exists ${name}`);
    });
  });

  it(`v${PREVIOUS} answers creates and reads until this build migrates beside it; this build starts, and holds every create v${PREVIOUS} acknowledged`, { timeout: 300_000 }, async () => {
    let previousStops = false;
    const previousServes = serve('previous', previous, () => previousStops);
    await sleep(1500);

    migrationStarted = Date.now();
    const watch = (async () => {
      // All of them applied, read in the database itself: the migrations have committed.
      while (!committedAt) {
        const applied = await asSuperuser(async (client) => Number((await client.query('select count(*) as n from schema_migrations')).rows[0].n), urlAs(new URL(adminUrl).username));
        if (applied >= Object.keys(migrations).length) committedAt = Date.now();
        else await sleep(25);
      }
    })();
    // Its migrations give up a lock held by v0.7's requests, or a deadlock with them, and try again (docs/migrations.md).
    current = await ServiceApi.start(env, { admin: RELEASE_ADMIN });
    await watch;
    await sleep(1000);
    previousStops = true;
    await previousServes;

    const before = (o: Outcome) => o.by === 'previous' && o.sentAt < migrationStarted;
    expect(outcomes.filter(before).length).toBeGreaterThan(0);
    expect(statuses(before)).toEqual(['create 201', 'read 200']);
    const unread: string[] = [];
    for (const { id } of acknowledged()) {
      if ((await current.call('GET', `/api/v1/interactions/${id}`, undefined, auth, '')).status !== 200) unread.push(id);
    }
    expect(unread).toEqual([]);
  });

  it(`side by side, this build answers and reads v${PREVIOUS}'s writes; v${PREVIOUS}, held by row-level security it does not know, refuses every create and sees none of this build's rows`, { timeout: 120_000 }, async () => {
    let stop = false;
    const serving = [serve('current', current, () => stop), serve('previous', previous, () => stop)];
    await sleep(2000);
    stop = true;
    await Promise.all(serving);

    expect(statuses((o) => o.by === 'current')).toEqual(['create 201', 'read 200']);
    const after = (o: Outcome) => o.by === 'previous' && o.sentAt > committedAt;
    expect(outcomes.filter(after).length).toBeGreaterThan(0);
    // Its inserts break the policy (`new row violates row-level security policy for table "interactions"`).
    expect(statuses(after)).toEqual(['create 500']);
    expect(previous.proc.output).toContain('new row violates row-level security policy for table \\"interactions\\"');
    const written = acknowledged().filter((o) => o.by === 'current').at(-1)!;
    expect((await previous.call('GET', `/api/v1/interactions/${written.id}`, undefined, auth, '')).status).toBe(404);
    // Still ready to a load balancer's eye: it keeps getting its share of the traffic.
    expect((await fetch(`${previous.base}/readyz`)).status).toBe(200);
  });

  it(`v${PREVIOUS} cannot start again on the migrated database`, async () => {
    const again = await ServiceProcess.run(['migrate'], env, { cli: release.cli, killAfterMs: 60_000 });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/previously executed migration 0013_detected_values is missing/);
  });

  it(`once v${PREVIOUS} stops, this build's totals count every acknowledged create of both`, async () => {
    expect(await previous.stop()).toBe(0);
    expect(await current.total('/api/v1/interactions')).toBe(acknowledged().length);
    expect(await current.total('/api/v1/interactions')).toBe(await asSuperuser(async (client) =>
      Number((await client.query('select count(*) as n from interactions')).rows[0].n), urlAs(new URL(adminUrl).username)));
  });
});
