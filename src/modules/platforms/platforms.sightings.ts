import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import { type EventEnvelope, toEnvelope } from '../../platform/outbox/outbox.js';
import { catalogEntry } from './platforms.catalog.js';

/** What a group commit stores of one tenant on one platform: its first interaction there. */
export interface Sighting {
  tenantId: string;
  platformId: string;
  userId: string | null;
}

/** The `data` of `platform.discovered`. */
export interface PlatformDiscoveredData {
  platform_id: string;
  first_seen: string;
  user_id: string | null;
  catalog: boolean;
}

/** Pairs a process remembers as sighted before it asks the store again; past it, it starts over. */
const MAX_KNOWN = 100_000;

/**
 * The (tenant, platform) pairs whose sighting this process saw committed: a group commit of
 * platforms all known writes no sighting statement. A row is never removed while its tenant
 * exists, so a remembered pair stays true. One per ingest pipeline.
 */
export class KnownPlatforms {
  private readonly known = new Set<string>();

  /** The sightings of pairs not known yet, the first of each pair. */
  unknown(sightings: readonly Sighting[]): Sighting[] {
    const unknown = new Map<string, Sighting>();
    for (const sighting of sightings) {
      const key = keyOf(sighting);
      if (!this.known.has(key) && !unknown.has(key)) unknown.set(key, sighting);
    }
    return [...unknown.values()];
  }

  /** Once the transaction that recorded (or met) their rows committed. */
  remember(sightings: readonly Sighting[]): void {
    if (this.known.size + sightings.length > MAX_KNOWN) this.known.clear();
    for (const sighting of sightings) this.known.add(keyOf(sighting));
  }
}

const keyOf = (sighting: Sighting) => `${sighting.tenantId}/${sighting.platformId}`;

/**
 * Records first sightings in the group commit's transaction and returns the `platform.discovered`
 * events of those this transaction recorded. `on conflict do nothing`: a concurrent transaction
 * (of this process or another replica) recording the same pair makes this one wait for its commit,
 * then skip the pair, so exactly one transaction emits the event. A pair already in the tenant's
 * interactions (used before sightings were recorded) is recorded as not discovered, without event.
 * Rows go in key order, so two groups recording the same pairs never wait on each other in a circle.
 */
export async function recordSightings(tx: Transaction<Database>, sightings: readonly Sighting[], now: Date): Promise<EventEnvelope[]> {
  if (sightings.length === 0) return [];
  const rows = sightings.map((s) => ({ tenant_id: s.tenantId, platform_id: s.platformId, user_id: s.userId }));
  const { rows: recorded } = await sql<{ tenant_id: string; platform_id: string; user_id: string | null; discovered: boolean }>`
    insert into platform_sightings (tenant_id, platform_id, first_seen, user_id, discovered)
    select s.tenant_id, s.platform_id, ${now}, s.user_id,
      not exists (select 1 from interactions i where i.tenant_id = s.tenant_id and i.platform_id = s.platform_id)
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as s(tenant_id uuid, platform_id text, user_id uuid)
    order by s.tenant_id, s.platform_id
    on conflict (tenant_id, platform_id) do nothing
    returning tenant_id, platform_id, user_id, discovered`.execute(tx);
  return recorded.filter((row) => row.discovered).map((row) => toEnvelope(row.tenant_id, {
    eventType: 'platform.discovered',
    data: {
      platform_id: row.platform_id, first_seen: now.toISOString(), user_id: row.user_id, catalog: catalogEntry(row.platform_id) !== undefined,
    } satisfies PlatformDiscoveredData,
  }, now));
}

/** Erasure: the sightings keep no trace of the erased person. */
export async function forgetSightingsUser(db: Kysely<Database> | Transaction<Database>, tenantId: string, userId: string) {
  await db.updateTable('platform_sightings').set({ user_id: null }).where('tenant_id', '=', tenantId).where('user_id', '=', userId).execute();
}
