import pg from 'pg';
import type { DatabaseTarget } from '../../config/database-url.js';
import { isStoreUnavailable } from './store-errors.js';

/** After a search found no host to take, callers fail at once for this long instead of searching again. */
const SEARCH_PAUSE_MS = 250;

/** Raised when no host of the URL is one to take (none reachable, or none primary for `read-write`). */
export class NoHostError extends Error {
  /** sqlclient_unable_to_establish_sqlconnection: the store is unavailable, a 503. */
  readonly code = '08001';

  constructor(target: DatabaseTarget, readonly reasons: string[]) {
    super(`no ${target.targetSessionAttrs === 'read-write' ? 'primary' : 'reachable host'} among ${target.description}: ${reasons.join('; ')}`);
  }
}

/**
 * The first host of `target` to take, connected: tried in the order written; for `read-write`
 * only one that is neither in recovery nor read-only (what libpq's `target_session_attrs` checks).
 */
export async function connectToTarget(target: DatabaseTarget, config: pg.ClientConfig = {}): Promise<{ client: pg.Client; index: number }> {
  const reasons: string[] = [];
  for (const [index, connectionString] of target.hostUrls.entries()) {
    const client = new pg.Client({ ...config, connectionString });
    client.on('error', () => {});
    try {
      await client.connect();
      if (target.targetSessionAttrs === 'read-write' && !(await isWritable(client))) {
        reasons.push(`${hostOf(connectionString)} is read-only`);
        await client.end().catch(() => {});
        continue;
      }
      return { client, index };
    } catch (error) {
      reasons.push(`${hostOf(connectionString)}: ${error instanceof Error ? error.message : String(error)}`);
      await client.end().catch(() => {});
    }
  }
  throw new NoHostError(target, reasons);
}

async function isWritable(client: pg.Client): Promise<boolean> {
  const { rows: [state] } = await client.query<{ recovery: boolean; read_only: string }>(
    `select pg_is_in_recovery() as recovery, current_setting('transaction_read_only') as read_only`);
  return state !== undefined && !state.recovery && state.read_only === 'off';
}

const hostOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || 5432}`;
};

/**
 * A `pg` pool on the host of `target` to take, that moves to another when that one goes: a
 * connection that cannot be made, or that finds its host read-only (a primary demoted to a
 * standby), makes the pool search the hosts again, in order. Meanwhile its callers get the
 * store's unavailability (a 503), never a wrong host. With one host and no `read-write`, it is a
 * plain pool.
 */
export class HostPool {
  private current: { pool: pg.Pool; index: number } | undefined;
  private searching: Promise<{ pool: pg.Pool; index: number }> | undefined;
  private failed: { error: unknown; at: number } | undefined;
  private readonly checked = new WeakSet<pg.PoolClient>();
  private ended = false;

  constructor(private readonly target: DatabaseTarget, private readonly config: pg.PoolConfig) {}

  /** Whether the pool checks what its hosts are (several hosts, or `read-write`). */
  private get searches(): boolean {
    return this.target.hostUrls.length > 1 || this.target.targetSessionAttrs === 'read-write';
  }

  /** The host the pool uses now (its position in the URL), if it found one. */
  get hostIndex(): number | undefined {
    return this.current?.index;
  }

  /** What Kysely's driver reads of a pool (for the control connection that cancels a query). */
  get options(): object {
    return this.config;
  }

  get totalCount(): number {
    return this.current?.pool.totalCount ?? 0;
  }

  get idleCount(): number {
    return this.current?.pool.idleCount ?? 0;
  }

  get waitingCount(): number {
    return this.current?.pool.waitingCount ?? 0;
  }

  async connect(): Promise<pg.PoolClient> {
    if (this.ended) throw new Error('Cannot use a pool after calling end on the pool');
    const current = this.current ?? (await this.find());
    let client: pg.PoolClient;
    try {
      client = await current.pool.connect();
    } catch (error) {
      if (this.searches && hostUnreachable(error, current.pool)) this.leave(current);
      throw error;
    }
    if (this.target.targetSessionAttrs === 'read-write' && !this.checked.has(client)) {
      const writable = await isWritable(client).catch((error: unknown) => {
        client.release(true);
        this.leave(current);
        throw error;
      });
      if (!writable) {
        client.release(true);
        this.leave(current);
        throw new NoHostError(this.target, [`the host taken became read-only`]);
      }
      this.checked.add(client);
    }
    return client;
  }

  async end(): Promise<void> {
    this.ended = true;
    await this.searching?.catch(() => {});
    await this.current?.pool.end();
    this.current = undefined;
  }

  /** Stops using `left` (if it is still the current host): the next connect searches again. */
  private leave(left: { pool: pg.Pool }): void {
    if (this.current !== left) return;
    this.current = undefined;
    void left.pool.end().catch(() => {});
  }

  private find(): Promise<{ pool: pg.Pool; index: number }> {
    if (this.failed && Date.now() - this.failed.at < SEARCH_PAUSE_MS) return Promise.reject(this.failed.error);
    this.searching ??= this.search().then((found) => {
      this.failed = undefined;
      if (this.ended) {
        void found.pool.end();
        throw new Error('Cannot use a pool after calling end on the pool');
      }
      this.current = found;
      return found;
    }, (error: unknown) => {
      this.failed = { error, at: Date.now() };
      throw error;
    }).finally(() => {
      this.searching = undefined;
    });
    return this.searching;
  }

  private async search(): Promise<{ pool: pg.Pool; index: number }> {
    if (!this.searches) return { pool: quietPool({ ...this.config, connectionString: this.target.hostUrls[0] }), index: 0 };
    const { client, index } = await connectToTarget(this.target, { connectionTimeoutMillis: this.config.connectionTimeoutMillis });
    await client.end().catch(() => {});
    return { pool: quietPool({ ...this.config, connectionString: this.target.hostUrls[index] }), index };
  }
}

/**
 * Whether a failed connect says the host is gone. A wait for a free connection that timed out
 * while the pool holds connections is a busy pool, not a lost host: it keeps its host.
 */
function hostUnreachable(error: unknown, pool: pg.Pool): boolean {
  if (!isStoreUnavailable(error)) return false;
  const waitedForTheBusyPool = error instanceof Error && /timeout exceeded when trying to connect/i.test(error.message) && pool.totalCount > 0;
  return !waitedForTheBusyPool;
}

/** A client losing its server must not crash the process; the query in progress reports it. */
export function quietPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}
