import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, tempDir } from './process.js';

const BINARY = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';
const OS_USER = 'postgres';

function osUser(): { uid?: number; gid?: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, OS_USER], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

export const pgbouncerFound = existsSync(BINARY);

export interface PgBouncerOptions {
  /** Server connections per database and user: 1 makes every client share one. */
  poolSize: number;
}

/**
 * A PgBouncer of its own in transaction pooling mode, in front of a PostgreSQL server, on a free
 * loopback port: every database of the server, trust authentication for `postgres`. It refuses
 * to run as root: as root it runs as `postgres`.
 */
export class PgBouncer {
  private constructor(private readonly dir: string, readonly port: number, private readonly child: ChildProcess) {}

  static async start(server: { host: string; port: number }, options: PgBouncerOptions): Promise<PgBouncer> {
    const dir = tempDir('ugs-pgbouncer-');
    const port = await freePort();
    writeFileSync(join(dir, 'userlist.txt'), '"postgres" ""\n');
    writeFileSync(join(dir, 'pgbouncer.ini'), [
      '[databases]',
      `* = host=${server.host} port=${server.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize}`,
      `max_db_connections = ${options.poolSize}`,
      'max_client_conn = 500',
      'admin_users = postgres',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
    ].join('\n'));
    const user = process.getuid?.() === 0 ? osUser() : {};
    if (user.uid !== undefined) {
      for (const path of [dir, join(dir, 'userlist.txt'), join(dir, 'pgbouncer.ini')]) chownSync(path, user.uid, user.gid!);
    }
    const child = spawn(BINARY, [join(dir, 'pgbouncer.ini')], { ...user, stdio: 'ignore' });
    const bouncer = new PgBouncer(dir, port, child);
    try {
      await bouncer.waitUntilListening();
    } catch (error) {
      await bouncer.stop();
      throw error;
    }
    return bouncer;
  }

  /** `url` (a database of the server behind), through this PgBouncer. */
  urlFor(url: string): string {
    const through = new URL(url);
    through.host = `127.0.0.1:${this.port}`;
    return through.toString();
  }

  /** `SHOW <what>` of the admin console (POOLS, STATS, SERVERS), the rows of `database`. */
  async show(what: 'POOLS' | 'STATS' | 'SERVERS', database: string): Promise<Array<Record<string, string>>> {
    const client = new pg.Client({ host: '127.0.0.1', port: this.port, user: 'postgres', database: 'pgbouncer' });
    await client.connect();
    try {
      const { rows } = await client.query<Record<string, string>>(`SHOW ${what}`);
      return rows.filter((row) => row.database === database);
    } finally {
      await client.end();
    }
  }

  log(): string {
    const file = join(this.dir, 'pgbouncer.log');
    return existsSync(file) ? readFileSync(file, 'utf8') : '';
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      // SIGTERM: at once (SIGINT would wait for every client to leave).
      this.child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async waitUntilListening(): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (this.child.exitCode !== null) throw new Error(`pgbouncer exited (${this.child.exitCode}): ${this.log()}`);
      const open = await new Promise<boolean>((resolve) => {
        const socket = connect(this.port, '127.0.0.1', () => {
          socket.end();
          resolve(true);
        });
        socket.on('error', () => resolve(false));
      });
      if (open) return;
      if (Date.now() > deadline) throw new Error(`pgbouncer not listening on ${this.port}: ${this.log()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
