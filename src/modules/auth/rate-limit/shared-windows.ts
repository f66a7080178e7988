import type { FastifyRateLimitStore } from '@fastify/rate-limit';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../../kernel/tables/database.js';

type Counted = Parameters<FastifyRateLimitStore['incr']>[1];

/**
 * Counts each credential's requests per window in PostgreSQL (`rate_limit_windows`), so that every
 * replica on the database counts against one limit. Windows start on the database's clock, the one
 * clock all replicas share.
 *
 * One statement per key at a time: the requests of a key that arrive while its statement runs wait
 * for the next one, which adds them all at once; each gets its own place in the running count (the
 * total less the batch, plus its rank). The count stays exact under any concurrency, at one
 * statement per key and round trip instead of one per request.
 */
export class SharedWindows implements FastifyRateLimitStore {
  /** The keys with a statement in flight, each with the requests waiting for the next one. */
  private readonly waiting = new Map<string, Counted[]>();
  /** The last window (by this process's clock) in which this process deleted ended windows. */
  private purgedWindow = -1;

  constructor(private readonly db: Kysely<Database>) {}

  incr(key: string, counted: Counted, timeWindow: number): void {
    const waiting = this.waiting.get(key);
    if (waiting) {
      waiting.push(counted);
      return;
    }
    this.waiting.set(key, []);
    void this.countInTurn(key, [counted], timeWindow);
  }

  child(): FastifyRateLimitStore {
    return this;
  }

  private async countInTurn(key: string, first: Counted[], timeWindow: number): Promise<void> {
    for (let batch = first; batch.length > 0;) {
      await this.countBatch(key, batch, timeWindow);
      batch = this.waiting.get(key)!;
      this.waiting.set(key, []);
    }
    this.waiting.delete(key);
  }

  private async countBatch(key: string, batch: Counted[], timeWindow: number): Promise<void> {
    let total: { hits: number; ttl: number };
    try {
      total = await this.add(key, batch.length, timeWindow);
    } catch (error) {
      for (const counted of batch) counted(error as Error);
      return;
    }
    const before = total.hits - batch.length;
    batch.forEach((counted, rank) => counted(null, { current: before + rank + 1, ttl: total.ttl }));
  }

  /**
   * Adds `n` hits to the key's current window; returns its total and the milliseconds left in it.
   * Once per window this process also deletes the rows of ended windows, in the same statement:
   * rows another statement holds are skipped (left to the next purge), so it never waits on them.
   */
  private async add(key: string, n: number, timeWindow: number): Promise<{ hits: number; ttl: number }> {
    const window = Math.floor(Date.now() / timeWindow);
    const purge = window !== this.purgedWindow;
    this.purgedWindow = window;
    const length = `${timeWindow} milliseconds`;
    const { rows } = await sql<{ hits: number; ttl: number }>`
      with current_window as (
        select date_bin(${length}::interval, statement_timestamp(), timestamptz 'epoch') as start
      )${purge ? sql`, ended as (
        delete from rate_limit_windows where (key, window_start) in (
          select key, window_start from rate_limit_windows
          where window_start < (select start from current_window)
          for update skip locked)
      )` : sql``}
      insert into rate_limit_windows as w (key, window_start, hits)
      select ${key}, start, ${n} from current_window
      on conflict (key, window_start) do update set hits = w.hits + excluded.hits
      returning w.hits,
        (extract(epoch from w.window_start + ${length}::interval - clock_timestamp()) * 1000)::float8 as ttl`
      .execute(this.db);
    const row = rows[0]!;
    return { hits: row.hits, ttl: Math.max(1, Math.ceil(row.ttl)) };
  }
}
