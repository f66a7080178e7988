// The service as a real process on loopback, and the small HTTP helpers the benches share.
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { trackChild } from './cleanup.mjs';

export { interaction } from './interactions.mjs';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const ADMIN = { email: 'bench@bench.test', password: 'Bench-Password-42' };

/** Wall-clock milliseconds with sub-millisecond precision (comparable across processes). */
export const nowMs = () => performance.timeOrigin + performance.now();
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A free port below the kernel's ephemeral range, which outgoing connections can take at any time. */
export async function freePort() {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/**
 * The master key of every service the bench runs on PostgreSQL (required there with DATABASE_URL): one fixed
 * key, so that a database kept between runs (the queries and governance seeds) opens its tenants' keys again.
 * A bench key only; the embedded store makes its own key file in DATA_DIR.
 */
export const BENCH_ENCRYPTION_KEY = createHash('sha256').update('usage-governance-service bench master key').digest('base64');

/** The environment every service process gets, plus the store's and the caller's variables. */
function serviceEnv(extra) {
  return {
    // Off unless BENCH_RATE_LIMIT_PER_MINUTE sets it (e.g. the default, 60000, to see what counting costs).
    PATH: process.env.PATH, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: process.env.BENCH_RATE_LIMIT_PER_MINUTE ?? '0',
    BOOTSTRAP_ADMIN_EMAIL: ADMIN.email, BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
    ...(extra.DATABASE_URL ? { DATA_ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY } : {}),
    ...extra,
    ...extraServiceEnv(),
  };
}

/** BENCH_SERVICE_ENV='NAME=value NAME=value': settings every service the bench starts gets, over its own (to compare a setting). */
function extraServiceEnv() {
  const pairs = process.env.BENCH_SERVICE_ENV?.split(' ').filter(Boolean) ?? [];
  return Object.fromEntries(pairs.map((pair) => {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`BENCH_SERVICE_ENV: expected NAME=value, got ${pair}`);
    return [pair.slice(0, at), pair.slice(at + 1)];
  }));
}

/** The Node options `npm start` gives the service (package.json), so the bench measures the same process. */
const START_NODE_ARGS = (() => {
  const start = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).scripts.start;
  const match = /^node\s+(.*?)\s*dist\/cli\.js serve$/.exec(start);
  if (!match) throw new Error(`package.json start script not understood: ${start}`);
  return match[1].split(/\s+/).filter(Boolean);
})();

/**
 * Starts `node dist/cli.js serve` (with the Node options of `npm start`) and waits for /readyz. Returns `{ child, pid, base, readyAt, stop }`;
 * `readyAt` is the wall-clock time /readyz first answered 200, `stop()` sends SIGTERM and waits for the exit.
 * `nodeArgs` are Node options of this service, after BENCH_SERVICE_NODE_ARGS.
 */
export async function startService(env, { nodeArgs: extraArgs = [] } = {}) {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  // e.g. BENCH_SERVICE_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile the service
  // (and BENCH_SERVICE_ENV='WEBHOOK_CONCURRENCY_PER_WEBHOOK=16' to run it with another setting)
  const nodeArgs = [...(process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter(Boolean) ?? []), ...extraArgs];
  const child = trackChild(spawn(process.execPath, [...START_NODE_ARGS, ...nodeArgs, 'dist/cli.js', 'serve'], {
    cwd: ROOT, env: serviceEnv({ PORT: String(port), HOST: '127.0.0.1', ...env }), stdio: ['ignore', 'ignore', 'inherit'],
  }));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let exit;
  void exited.then((value) => { exit = value; });
  const stop = async (timeoutMs = 60_000) => {
    if (exit) return exit;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const result = await exited;
    clearTimeout(timer);
    return result;
  };
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i += 1) {
    if (exit) throw new Error(`service exited during start-up (code ${exit.code}, signal ${exit.signal})`);
    if (await fetch(`${base}/readyz`).then((r) => r.ok, () => false)) {
      return { child, pid: child.pid, base, readyAt: nowMs(), stop };
    }
    await sleep(100);
  }
  await stop(5000);
  throw new Error('service did not become ready within 60 s');
}

/** Runs the CLI (`node dist/cli.js ...args`) against a store; returns its stdout. */
export async function cli(env, ...args) {
  const { stdout } = await promisify(execFile)(process.execPath, ['dist/cli.js', ...args], { cwd: ROOT, env: serviceEnv(env) });
  return stdout;
}

export const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

/** utime + stime of a process, in seconds (from /proc/<pid>/stat; clock ticks are 100 per second on Linux). */
export function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // fields 14 and 15 of proc(5)
}

export async function api(base, token, method, path, body) {
  const response = await fetch(`${base}${path}`, {
    method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

export async function login(base, credentials) {
  const response = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(credentials),
  });
  if (!response.ok) throw new Error(`login ${credentials.email}: ${response.status} ${await response.text()}`);
  return (await response.json()).token;
}

/** An API key allowed to ingest and read interactions. */
export async function apiKey(base, token) {
  const { key } = await api(base, token, 'POST', '/api/v1/api-keys', { name: 'bench', scopes: ['interactions:write', 'interactions:read'] });
  return key;
}

export function cannon(options) {
  return new Promise((resolve, reject) => {
    autocannon({ duration: SECONDS, connections: 16, ...options }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const REQUEST_TIMEOUT_MS = 120_000;

/** One JSON POST over a keep-alive connection: `{ status, body, at }`, `at` the wall-clock time the answer ended. */
export function post(base, path, token, payload) {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(payload);
    const request = http.request(`${base}${path}`, {
      method: 'POST', agent,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode, body: Buffer.concat(chunks).toString(), at: nowMs() }));
      response.on('error', reject);
    });
    request.setTimeout(REQUEST_TIMEOUT_MS, () => request.destroy(new Error(`POST ${path}: no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    request.on('error', reject);
    request.end(body);
  });
}
