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
    const dir = tempDir('ugs-own-pg-');
    const server = new OwnPostgres(dir, await freePort());
    try {
      const { stdout } = await run('id', ['-u', OS_USER]);
      const { stdout: gid } = await run('id', ['-g', OS_USER]);
      chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
      mkdirSync(server.dataDir, { mode: 0o700 });
      chownSync(server.dataDir, Number(stdout.trim()), Number(gid.trim()));
      await server.asPostgres('initdb', '-D', server.dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync');
      await server.pgCtl('start', '-o', `-p ${server.port} -k ${dir} -c listen_addresses=127.0.0.1`);
      return server;
    } catch (error) {
      await server.destroy();
      throw error;
    }
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

function newestMajor(root: string): string {
  const majors = readdirSync(root).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a));
  if (!majors[0]) throw new Error(`no PostgreSQL server programs under ${root} (set PG_BIN)`);
  return majors[0];
}
