// A PostgreSQL cluster of the bench's own, for measures that change server settings (autovacuum) without touching
// the machine's shared cluster: Debian's binaries (the newest /usr/lib/postgresql/<version>/bin), initdb in the OS
// temp dir, trust authentication, TCP on a free loopback port only; stopped and removed at the end, on failure too.
// As root, initdb and pg_ctl run as the `postgres` user (initdb refuses root).
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onCleanup } from './cleanup.mjs';
import { freePort, sleep } from './service.mjs';
import { withClient } from './stores.mjs';

function newestBinaries() {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => b - a) : [];
  if (versions.length === 0) throw new Error(`no PostgreSQL binaries in ${root} (Debian's postgresql package)`);
  return { version: versions[0], bin: join(root, versions[0], 'bin') };
}

/** The `postgres` OS user's ids when the bench runs as root (PostgreSQL's tools and PgBouncer refuse root), else `{}`. */
export function postgresOsUser() {
  if (process.getuid() !== 0) return {};
  const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * initdb and start. `settings` go to postgresql.conf (shared_buffers and the rest stay initdb's defaults, as on
 * the shared cluster). `keepLogAs`: where the server log is copied when the cluster is removed. `standbyOf`: a
 * started cluster this one is a streaming standby of (a base backup instead of initdb). Returns `{ url, version,
 * port, setAutovacuum(on), replicateSynchronously(), crash(), promote(), stop() }`; `url` names the `postgres` database.
 */
export async function startCluster({ settings = {}, keepLogAs, standbyOf } = {}) {
  const { version, bin } = newestBinaries();
  const user = postgresOsUser();
  const dir = mkdtempSync(join(tmpdir(), 'ugs-bench-pg-'));
  if (user.uid !== undefined) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  const run = (tool, args) => spawnSync(join(bin, tool), args, { ...user, cwd: dir, encoding: 'utf8' });
  let started = false;
  let port;
  // Synchronous, so that it also runs at process exit.
  const stop = onCleanup(() => {
    if (started) run('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w', '-t', '60']);
    if (keepLogAs && existsSync(log)) copyFileSync(log, keepLogAs);
    rmSync(dir, { recursive: true, force: true });
  }, { sync: true });
  const check = (tool, result) => {
    if (result.status === 0) return;
    const serverLog = existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '';
    throw new Error(`${tool} failed (${result.status ?? result.error?.message}): ${(result.stderr ?? '').slice(-1000)}${serverLog && `\nserver log:\n${serverLog}`}`);
  };
  try {
    port = await freePort();
    if (standbyOf) {
      // A hot standby streaming from `standbyOf` (its initdb allows replication from 127.0.0.1): its base backup.
      check('pg_basebackup', run('pg_basebackup', ['-D', data, '-h', '127.0.0.1', '-p', String(standbyOf.port), '-U', 'postgres',
        '-R', '-X', 'stream', '-c', 'fast', '--no-sync']));
      appendFileSync(join(data, 'postgresql.conf'), `port = '${port}'\n`);
    } else {
      check('initdb', run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']));
      const conf = { port, listen_addresses: '127.0.0.1', unix_socket_directories: '', timezone: 'UTC', ...settings };
      appendFileSync(join(data, 'postgresql.conf'), Object.entries(conf).map(([name, value]) => `${name} = '${value}'\n`).join(''));
    }
    started = true;
    check('pg_ctl start', run('pg_ctl', ['start', '-D', data, '-l', log, '-w', '-t', '60']));
  } catch (error) {
    await stop();
    throw error;
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url, version, port, stop,
    /** autovacuum on or off without a restart (ALTER SYSTEM and a reload: the cache stays warm), once the server shows it. */
    async setAutovacuum(on) {
      const value = on ? 'on' : 'off';
      await withClient(url, async (client) => {
        await client.query(`alter system set autovacuum = ${value}`);
        await client.query('select pg_reload_conf()');
      });
      for (let i = 0; i < 100; i += 1) {
        if ((await withClient(url, (client) => client.query('show autovacuum'))).rows[0].autovacuum === value) return;
        await sleep(100);
      }
      throw new Error(`autovacuum did not become ${value}`);
    },
    /** Commits wait for a standby's flush (`synchronous_standby_names = '*'`), once a standby streams. */
    async replicateSynchronously() {
      for (let i = 0; ; i += 1) {
        const { rows: [row] } = await withClient(url, (client) => client.query(`select count(*)::int as n from pg_stat_replication where state = 'streaming'`));
        if (row.n > 0) break;
        if (i > 300) throw new Error('no standby streaming');
        await sleep(100);
      }
      await withClient(url, async (client) => {
        await client.query(`alter system set synchronous_standby_names = '*'`);
        await client.query('select pg_reload_conf()');
      });
    },
    /** The server stops as in a crash (`pg_ctl stop -m immediate`). */
    crash() {
      check('pg_ctl stop', run('pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w', '-t', '60']));
      started = false;
    },
    /** A standby becomes a primary; returns once it accepts writes. */
    promote() {
      check('pg_ctl promote', run('pg_ctl', ['promote', '-D', data, '-w', '-t', '60']));
    },
  };
}
