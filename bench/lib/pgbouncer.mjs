// A PgBouncer of the bench's own in transaction pooling mode, in front of the PostgreSQL server of a URL:
// Debian's binary (PGBOUNCER_BIN to name another), its config in the OS temp dir, every database of the
// server, trust authentication for the URL's user (the URL's password, if any, is what PgBouncer logs in
// with), on a free loopback port; stopped and removed at the end, on failure too. As root it runs as `postgres`.
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onCleanup, trackChild } from './cleanup.mjs';
import { postgresOsUser } from './pg-cluster.mjs';
import { freePort, sleep } from './service.mjs';

export const PGBOUNCER_BIN = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';

const listening = (port) => new Promise((resolve) => {
  const socket = connect(port, '127.0.0.1', () => {
    socket.end();
    resolve(true);
  });
  socket.on('error', () => resolve(false));
});

/**
 * Starts PgBouncer with `poolSize` server connections for each database and user (and at most that many per
 * database). Returns `{ port, version, urlFor(url), log(), stop() }`: `urlFor` is a database of the server, through it.
 */
export async function startPgBouncer(serverUrl, { poolSize }) {
  const server = new URL(serverUrl);
  const user = postgresOsUser();
  const dir = mkdtempSync(join(tmpdir(), 'ugs-bench-pgbouncer-'));
  const file = (name) => join(dir, name);
  const port = await freePort();
  const quoted = (text) => `"${decodeURIComponent(text).replaceAll('"', '""')}"`;
  writeFileSync(file('userlist.txt'), `${quoted(server.username || 'postgres')} ${quoted(server.password)}\n`);
  writeFileSync(file('pgbouncer.ini'), [
    '[databases]',
    `* = host=${server.hostname} port=${server.port || 5432}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${file('userlist.txt')}`,
    'pool_mode = transaction',
    `default_pool_size = ${poolSize}`,
    `max_db_connections = ${poolSize}`,
    'max_client_conn = 500',
    `logfile = ${file('pgbouncer.log')}`,
  ].join('\n'));
  if (user.uid !== undefined) for (const path of [dir, file('userlist.txt'), file('pgbouncer.ini')]) chownSync(path, user.uid, user.gid);
  const child = trackChild(spawn(PGBOUNCER_BIN, [file('pgbouncer.ini')], { ...user, stdio: 'ignore' }));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const log = () => (existsSync(file('pgbouncer.log')) ? readFileSync(file('pgbouncer.log'), 'utf8') : '');
  const stop = onCleanup(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      // SIGTERM: at once (SIGINT would wait for every client to leave).
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });
  try {
    for (let waited = 0; !(await listening(port)); waited += 50) {
      if (child.exitCode !== null) throw new Error(`pgbouncer exited (${child.exitCode}): ${log().slice(-1000)}`);
      if (waited > 10_000) throw new Error(`pgbouncer not listening on ${port}: ${log().slice(-1000)}`);
      await sleep(50);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const version = /PgBouncer (\S+)/.exec(execFileSync(PGBOUNCER_BIN, ['--version'], { encoding: 'utf8' }))?.[1] ?? 'unknown';
  return {
    port, version, log, stop,
    urlFor(url) {
      const through = new URL(url);
      through.host = `127.0.0.1:${port}`;
      return through.toString();
    },
  };
}
