import { Counter, Gauge, type Registry } from 'prom-client';
import type { ReplicaStats } from '../store/store-contract.js';

// One read of the lag serves all the gauges of a scrape (each collects on its own).
const CACHE_MS = 1000;

/** With DATABASE_READ_URL: where reads went, and how far behind the primary the replica is. */
export function replicaGauges(replica: ReplicaStats, registers: Registry[]): void {
  let cached: { at: number; lag: ReturnType<ReplicaStats['lag']> } | undefined;
  const lag = () => {
    const now = Date.now();
    if (!cached || now - cached.at >= CACHE_MS) cached = { at: now, lag: replica.lag() };
    return cached.lag;
  };
  new Counter({
    name: 'ugs_store_reads_total',
    help: 'Reads of lists, stats, exports and search, by what served them: replica, or primary (the replica was behind or down)',
    labelNames: ['served_by'], registers,
    collect() {
      this.reset();
      this.inc({ served_by: 'replica' }, replica.reads.replica);
      this.inc({ served_by: 'primary' }, replica.reads.primary);
    },
  });
  new Gauge({
    name: 'ugs_store_replica_up', help: '1 when the read replica and the primary answered the last lag read, else 0', registers,
    async collect() {
      this.set((await lag()) ? 1 : 0);
    },
  });
  const gauge = (name: string, help: string, pick: (lag: { bytes: number; seconds: number }) => number) => new Gauge({
    name, help, registers,
    async collect() {
      const current = await lag();
      if (current) this.set(pick(current));
      else this.reset();
    },
  });
  gauge('ugs_store_replica_lag_bytes', 'WAL the read replica has yet to replay (bytes behind the primary)', (l) => l.bytes);
  gauge('ugs_store_replica_lag_seconds', 'Since when the read replica has been behind (0 when it has replayed everything it received)', (l) => l.seconds);
}
