import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import type { DatabaseTarget } from '../../config/database-url.js';
import type { Database } from '../../kernel/tables/database.js';
import { HostPool } from './host-pool.js';
import { scopedConnections } from './scoped-connections.js';
import type { ReplicaStats } from './store-contract.js';

/** How long a read waits for the replica to replay what the primary had before it falls back to the primary. */
export const REPLICA_WAIT_MS = 250;
/** Between two looks at the replica's replay position while a read waits. */
const REPLAY_POLL_MS = 5;

/**
 * A streaming replica that serves reads, each of which sees every commit made before it: a read
 * takes the primary's WAL position (`pg_current_wal_lsn()`), and is served by the replica once
 * it has replayed up to there (`pg_last_wal_replay_lsn()`), waiting up to REPLICA_WAIT_MS; else,
 * or when the replica cannot be reached, by the primary. A caller thus always reads its own
 * writes, whichever process made them. The replica's position is remembered: while nothing is
 * written, reads cost one look at the primary's position.
 */
export class ReadReplica {
  readonly db: Kysely<Database>;
  readonly stats: ReplicaStats;
  private readonly pool: HostPool;
  private replayed = 0n;
  /** The replica host `replayed` was read on (the URL may name several). */
  private replayedOn: number | undefined;

  constructor(target: DatabaseTarget, config: pg.PoolConfig, private readonly primary: HostPool) {
    this.pool = new HostPool(target, config);
    this.db = new Kysely<Database>({ dialect: scopedConnections(new PostgresDialect({ pool: this.pool }), 'transaction') });
    const reads = { replica: 0, primary: 0 };
    this.stats = { reads, lag: () => this.lag() };
  }

  /** The replica's Kysely if it has caught up with the primary's position now (within the wait), else the primary's. */
  async reader(primaryDb: Kysely<Database>): Promise<Kysely<Database>> {
    const needed = await lsnOf(this.primary, 'select pg_current_wal_lsn()::text as lsn');
    const deadline = Date.now() + REPLICA_WAIT_MS;
    try {
      if (this.replayedOn !== this.pool.hostIndex) this.replayed = 0n;
      while (this.replayed < needed) {
        this.replayed = await lsnOf(this.pool, REPLAYED);
        this.replayedOn = this.pool.hostIndex;
        if (this.replayed >= needed) break;
        if (Date.now() >= deadline) return this.servedBy('primary', primaryDb);
        await new Promise((resolve) => setTimeout(resolve, REPLAY_POLL_MS));
      }
    } catch {
      return this.servedBy('primary', primaryDb);
    }
    return this.servedBy('replica', this.db);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }

  private servedBy(where: 'replica' | 'primary', db: Kysely<Database>): Kysely<Database> {
    this.stats.reads[where] += 1;
    return db;
  }

  /** Bytes of WAL the replica has yet to replay, and for how long it has been behind (0 when caught up). */
  private async lag(): Promise<{ bytes: number; seconds: number } | undefined> {
    try {
      const [primary, replica] = await Promise.all([
        lsnOf(this.primary, 'select pg_current_wal_lsn()::text as lsn'),
        query<{ lsn: string; seconds: number }>(this.pool, `select (${REPLAYED_LSN})::text as lsn,
          case when pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() then 0
            else coalesce(extract(epoch from clock_timestamp() - pg_last_xact_replay_timestamp()), 0) end::float8 as seconds`),
      ]);
      const bytes = primary - parseLsn(replica.lsn);
      return { bytes: Number(bytes > 0n ? bytes : 0n), seconds: bytes > 0n ? replica.seconds : 0 };
    } catch {
      return undefined;
    }
  }
}

// A replica URL that names a primary (no recovery) is always caught up with itself.
const REPLAYED_LSN = 'case when pg_is_in_recovery() then pg_last_wal_replay_lsn() else pg_current_wal_lsn() end';
const REPLAYED = `select (${REPLAYED_LSN})::text as lsn`;

async function query<R extends pg.QueryResultRow>(pool: HostPool, text: string): Promise<R> {
  const client = await pool.connect();
  try {
    return (await client.query<R>(text)).rows[0]!;
  } finally {
    client.release();
  }
}

async function lsnOf(pool: HostPool, text: string): Promise<bigint> {
  return parseLsn((await query<{ lsn: string | null }>(pool, text)).lsn);
}

/** `16/B374D848` as a number of bytes; null (no WAL replayed yet) as 0. */
function parseLsn(lsn: string | null): bigint {
  if (!lsn) return 0n;
  const [high = '0', low = '0'] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}
