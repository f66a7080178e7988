import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import { inFixedScope } from './scoped-connections.js';
import { ALL_TENANTS, type TenantScope } from './tenant-scope.js';

/** How long a lease lasts without its holder renewing it (a holder renews every third of it). */
export const LEASE_MS = 60_000;
/** Between two tries of a lease `withLease(..., { wait: true })` waits for. */
const RETRY_MS = 100;

export interface LeaseOptions {
  /** Which one of the job's (a tenant's id); '' for a job that has one. */
  key?: string;
  /** Wait until the lease is free (true), or give up at once when another holds it (false). */
  wait?: boolean;
  ttlMs?: number;
  /** Whose rights the lease's statements use: the owner's before the service role exists (migrations). */
  scope?: TenantScope;
}

/**
 * Runs `work` while this process holds the lease `name` (a row of `service_leases`, migration
 * 0020), renewed while `work` runs and given back after; resolves null, without running it, when
 * another holder has it and `wait` is false. A holder that dies (or cannot renew through an
 * outage longer than the lease) loses it once it expires: its job is then safe to do twice.
 */
export async function withLease<T>(
  db: Kysely<Database>, name: string, work: () => Promise<T>, options: LeaseOptions = {},
): Promise<T | null> {
  const leases = inFixedScope(db, options.scope ?? ALL_TENANTS);
  const key = options.key ?? '';
  const ttlMs = options.ttlMs ?? LEASE_MS;
  const holder = randomUUID();
  while (!(await take(leases, name, key, holder, ttlMs))) {
    if (!options.wait) return null;
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
  const heartbeat = setInterval(() => void renew(leases, name, key, holder, ttlMs).catch(() => {}), Math.floor(ttlMs / 3));
  heartbeat.unref();
  try {
    return await work();
  } finally {
    clearInterval(heartbeat);
    await leases.deleteFrom('service_leases').where('name', '=', name).where('key', '=', key).where('holder', '=', holder)
      .execute().catch(() => {}); // not given back: it expires
  }
}

async function take(db: Kysely<Database>, name: string, key: string, holder: string, ttlMs: number): Promise<boolean> {
  const { rows } = await sql<{ holder: string }>`
    insert into service_leases as l (name, key, holder, expires_at)
    values (${name}, ${key}, ${holder}, clock_timestamp() + ${ttlMs} * interval '1 millisecond')
    on conflict (name, key) do update set holder = excluded.holder, expires_at = excluded.expires_at
      where l.expires_at < clock_timestamp()
    returning holder`.execute(db);
  return rows.length === 1;
}

async function renew(db: Kysely<Database>, name: string, key: string, holder: string, ttlMs: number): Promise<void> {
  await sql`update service_leases set expires_at = clock_timestamp() + ${ttlMs} * interval '1 millisecond'
    where name = ${name} and key = ${key} and holder = ${holder}`.execute(db);
}
