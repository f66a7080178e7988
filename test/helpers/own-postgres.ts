import { execFile } from 'node:child_process';
import { chownSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort, tempDir } from './process.js';

const run = promisify(execFile);
/** The installed server's programs (Debian: /usr/lib/postgresql/<major>/bin, the newest major if several). */
const BIN = process.env.PG_BIN ?? join('/usr/lib/postgresql', newestMajor('/usr/lib/postgresql'), 'bin');
const OS_USER = 'postgres';

/**
 * A PostgreSQL server of its own (initdb in a temp folder), for tests that stop or restart the
 * server without disturbing the other test files. Needs root (it runs the server as `postgres`).
 */
export class OwnPostgres {
  private constructor(readonly dir: string, readonly port: number) {}

  get dataDir(): string {
    return join(this.dir, 'data');
  }

  /** The URL of database `name` on this server. */
  url(name = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${name}`;
  }

  /** Creates the cluster and starts it; on any failure removes what it made. */
  static async start(): Promise<OwnPostgres> {
    const server = await OwnPostgres.folder();
    try {
      mkdirSync(server.dataDir, { mode: 0o700 });
      await chownToPostgres(server.dataDir);
      await server.asPostgres('initdb', '-D', server.dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync');
      await server.startServer();
      return server;
    } catch (error) {
      await server.destroy();
      throw error;
    }
  }

  /**
   * A hot standby of this server, streaming from it: a base backup (`pg_basebackup -R`) started
   * on a port of its own. The primary's initdb allows replication from 127.0.0.1 (trust).
   */
  async createStandby(): Promise<OwnPostgres> {
    const standby = await OwnPostgres.folder();
    try {
      await standby.asPostgres('pg_basebackup', '-D', standby.dataDir, '-h', '127.0.0.1', '-p', String(this.port),
        '-U', 'postgres', '-R', '-X', 'stream', '-c', 'fast', '--no-sync');
      await standby.startServer();
      await this.waitForStreaming();
      return standby;
    } catch (error) {
      await standby.destroy();
      throw error;
    }
  }

  /** Commits wait until a standby has flushed them (`synchronous_standby_names = '*'`). */
  async replicateSynchronously(): Promise<void> {
    await this.query(`alter system set synchronous_standby_names = '*'`);
    await this.query('select pg_reload_conf()');
  }

  /** A standby becomes a primary (`pg_ctl promote`, waiting until it accepts writes). */
  async promote(): Promise<void> {
    await this.pgCtl('promote');
  }

  /** `pg_ctl stop -m <mode>`; `immediate` is a crash. */
  async stop(mode: 'fast' | 'immediate'): Promise<void> {
    await this.pgCtl('stop', '-m', mode);
  }

  /** Stops replaying WAL (a standby), or starts again: reads there see the past meanwhile. */
  async pauseReplay(paused: boolean): Promise<void> {
    await this.query(paused ? 'select pg_wal_replay_pause()' : 'select pg_wal_replay_resume()');
  }

  async query<R extends pg.QueryResultRow = Record<string, unknown>>(text: string, database = 'postgres'): Promise<R[]> {
    const client = new pg.Client({ connectionString: this.url(database) });
    await client.connect();
    try {
      return (await client.query<R>(text)).rows;
    } finally {
      await client.end();
    }
  }

  private async waitForStreaming(): Promise<void> {
    const deadline = Date.now() + 30_000;
    while ((await this.query<{ n: number }>(`select count(*)::int as n from pg_stat_replication where state = 'streaming'`))[0]!.n < 1) {
      if (Date.now() > deadline) throw new Error(`no standby streaming from the server on ${this.port}\n${this.log()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private static async folder(): Promise<OwnPostgres> {
    const dir = tempDir('ugs-own-pg-');
    await chownToPostgres(dir);
    return new OwnPostgres(dir, await freePort());
  }

  private async startServer(): Promise<void> {
    await this.pgCtl('start', '-o', `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1`);
  }

  /** `pg_ctl restart -m <mode>`: `fast` ends the sessions, `immediate` kills the server (crash recovery at start). */
  async restart(mode: 'fast' | 'immediate'): Promise<void> {
    await this.pgCtl('restart', '-m', mode);
  }

  async createDatabase(name: string): Promise<string> {
    const client = new pg.Client({ connectionString: this.url() });
    await client.connect();
    try {
      await client.query(`create database ${name}`);
    } finally {
      await client.end();
    }
    return this.url(name);
  }

  /** The server's own log, for failure messages. */
  log(): string {
    try {
      return readFileSync(join(this.dir, 'server.log'), 'utf8');
    } catch {
      return '';
    }
  }

  /** Stops the server if it runs and removes the folder; never throws. */
  async destroy(): Promise<void> {
    await this.pgCtl('stop', '-m', 'immediate').catch(() => {});
    rmSync(this.dir, { recursive: true, force: true });
  }

  private pgCtl(...args: string[]) {
    // Always a log file: a server started without one keeps our output pipe open.
    return this.asPostgres('pg_ctl', '-D', this.dataDir, '-l', join(this.dir, 'server.log'), '-w', '-t', '30', ...args);
  }

  private asPostgres(binary: string, ...args: string[]) {
    return run('runuser', ['-u', OS_USER, '--', join(BIN, binary), ...args], { cwd: this.dir, timeout: 60_000 });
  }
}

async function chownToPostgres(path: string): Promise<void> {
  const { stdout: uid } = await run('id', ['-u', OS_USER]);
  const { stdout: gid } = await run('id', ['-g', OS_USER]);
  chownSync(path, Number(uid.trim()), Number(gid.trim()));
}

function newestMajor(root: string): string {
  const majors = readdirSync(root).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a));
  if (!majors[0]) throw new Error(`no PostgreSQL server programs under ${root} (set PG_BIN)`);
  return majors[0];
}
