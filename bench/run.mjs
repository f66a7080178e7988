// Load figures for the service, run as a real process on loopback: `npm run bench`.
// BENCH_DATABASE_URL (or TEST_DATABASE_URL) adds a run on PostgreSQL; BENCH_SECONDS sets each scenario's length.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const SEED_ROWS = Number(process.env.BENCH_SEED_ROWS ?? 50_000);
const ADMIN = { email: 'bench@bench.test', password: 'Bench-Password-42' };
const PLATFORMS = ['chatgpt', 'claude', 'copilot', 'mistral', 'gemini'];
const TYPES = ['EMAIL', 'CREDIT_CARD', 'IBAN', 'NIR', 'SIRET', 'API_KEY'];

const hash = () => createHash('sha256').update(randomBytes(16)).digest('hex');
const interaction = (i) => ({
  platform_id: PLATFORMS[i % PLATFORMS.length],
  content_hash: hash(),
  risk_score: (i % 100) / 100,
  source: i % 3 ? 'browser_extension' : 'proxy',
  direction: i % 4 ? 'outbound' : 'inbound',
  classifications: i % 5 ? [] : [{ type: TYPES[i % TYPES.length], value: 'x@y.test', score: 0.9, start: 0, end: 8 }],
  content_metadata: { model: 'gpt-4o', url: 'https://chat.example/c/1' },
});

async function freePort() {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function startService(storeEnv) {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/cli.js', 'serve'], {
    env: {
      PATH: process.env.PATH, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0', BOOTSTRAP_ADMIN_EMAIL: ADMIN.email, BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
      ...storeEnv,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i += 1) {
    if (await fetch(`${base}/readyz`).then((r) => r.ok, () => false)) return { child, base };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('service did not start');
}

const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

async function api(base, token, method, path, body) {
  const response = await fetch(`${base}${path}`, {
    method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

function cannon(options) {
  return new Promise((resolve, reject) => {
    autocannon({ duration: SECONDS, connections: 16, ...options }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

function row(name, result) {
  return {
    scenario: name,
    'req/s': Math.round(result.requests.average),
    'p50 ms': result.latency.p50,
    'p99 ms': result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

async function benchStore(label, storeEnv) {
  const { child, base } = await startService(storeEnv);
  const rows = [];
  try {
    const { token } = await fetch(`${base}/api/v1/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN),
    }).then((r) => r.json());
    const { key } = await api(base, token, 'POST', '/api/v1/api-keys', { name: 'bench', scopes: ['interactions:write', 'interactions:read'] });
    await api(base, token, 'POST', '/api/v1/policies', {
      name: 'Block card numbers', action: 'block', severity: 'high', conditions: { classification_types: ['CREDIT_CARD'] },
    });
    await api(base, token, 'POST', '/api/v1/policies', {
      name: 'Log risky prompts', action: 'log', severity: 'low', conditions: { min_risk_score: 0.7 },
    });

    const seedStart = performance.now();
    for (let done = 0; done < SEED_ROWS; done += 500) {
      const batch = Array.from({ length: 500 }, (_, i) => interaction(done + i));
      const result = await api(base, key, 'POST', '/api/v1/interactions/batch', batch);
      if (result.stored !== 500) throw new Error(`batch stored ${result.stored}`);
    }
    const seedSeconds = (performance.now() - seedStart) / 1000;
    rows.push({ scenario: `batch ingest (${SEED_ROWS} rows, 500 per request, sequential)`, 'req/s': Math.round(SEED_ROWS / 500 / seedSeconds), 'p50 ms': '-', 'p99 ms': '-', errors: 0, 'rows/s': Math.round(SEED_ROWS / seedSeconds) });

    let n = 0;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    rows.push(row('POST /interactions (single, 16 connections)', await cannon({
      url: `${base}/api/v1/interactions`, headers,
      requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, body: JSON.stringify(interaction(n++)) }) }],
    })));
    rows.push(row('GET /interactions (filters + sort, page of 50)', await cannon({
      url: `${base}/api/v1/interactions?platform_id=claude&risk_score_min=0.5&sort=-risk_score&limit=50`, headers,
    })));
    rows.push(row('GET /interactions?classification_type=IBAN', await cannon({
      url: `${base}/api/v1/interactions?classification_type=IBAN&limit=50`, headers,
    })));
    const sample = await api(base, key, 'GET', '/api/v1/interactions?limit=1');
    rows.push(row('GET /interactions/search?content_hash=', await cannon({
      url: `${base}/api/v1/interactions/search?content_hash=${sample.data[0].content_hash}`, headers,
    })));
    rows.push(row('GET /stats', await cannon({ url: `${base}/api/v1/stats`, headers: { authorization: `Bearer ${token}` }, connections: 4 })));
    console.log(`\n${label}: service RSS after the run ${rssMiB(child.pid).toFixed(0)} MiB`);
    console.table(rows);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.on('exit', r));
  }
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'ugs-bench-'));
  try {
    await benchStore('embedded store (PGlite)', { DATA_DIR: dataDir });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (adminUrl) {
    const name = `ugs_bench_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    try {
      await benchStore('PostgreSQL', { DATABASE_URL: url.toString() });
    } finally {
      await admin.query(`drop database ${name} with (force)`);
      await admin.end();
    }
  }
}

await main();
