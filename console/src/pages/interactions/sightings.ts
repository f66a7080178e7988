import type { components } from '@sdk/generated/openapi.js';
import { api } from '../../api/client.js';

type SignalLookup = components['schemas']['SignalLookup'];

/** Where one detected value was seen: the lookup's answer, or the same figures read from the list. */
export interface Sightings extends SignalLookup {
  /** Set when users were counted among the newest interactions only (the value is in more than a page). */
  usersAmongNewest?: number;
}

/** The API's largest page. */
const NEWEST = 500;

/**
 * The sightings of a fingerprint, from the list filtered by it: the exact total, the last seen
 * from the newest row, the first seen from the oldest (asked for on its own when the value is in
 * more than one page), and the distinct user ids of the newest page. A masked value cannot be
 * looked up by value, but every classification carries its fingerprint.
 */
export async function sightingsOf(fingerprint: string): Promise<Sightings> {
  const newest = await api.GET('/api/v1/interactions', { params: { query: { fingerprint, limit: NEWEST } } });
  const complete = newest.next_cursor === null;
  const oldest = complete
    ? newest.data.at(-1)
    : (await api.GET('/api/v1/interactions', { params: { query: { fingerprint, sort: 'timestamp', limit: 1 } } })).data[0];
  const users = new Set(newest.data.flatMap((interaction) => (interaction.user_id ? [interaction.user_id] : [])));
  return {
    fingerprint,
    interactions: newest.total,
    users: users.size,
    first_seen: oldest?.timestamp ?? null,
    last_seen: newest.data[0]?.timestamp ?? null,
    ...(complete ? {} : { usersAmongNewest: newest.data.length }),
  };
}
