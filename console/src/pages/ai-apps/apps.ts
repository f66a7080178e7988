import type { components } from '@sdk/generated/openapi.js';

export type Platform = components['schemas']['Platform'];
export type Usage = components['schemas']['PlatformUsage'];
export type Status = Platform['status'];
export type Category = NonNullable<Platform['category']>;
export type RiskTier = NonNullable<Platform['risk_tier']>;

/** A platform of the list with its use in the period (none when it was not used). */
export interface App {
  platform: Platform;
  usage: Usage | undefined;
}

export const STATUSES: [Status, string][] = [['sanctioned', 'Sanctioned'], ['unsanctioned', 'Unsanctioned'], ['blocked', 'Blocked']];
export const CATEGORIES: [Category, string][] = [
  ['assistant', 'Assistant'], ['code', 'Code'], ['media', 'Media'], ['search', 'Search'], ['agents', 'Agents'],
  ['model_api', 'Model API'], ['productivity', 'Productivity'],
];
export const RISK_TIERS: [RiskTier, string][] = [['low', 'Low'], ['medium', 'Medium'], ['high', 'High']];

export const label = <T extends string>(pairs: [T, string][], value: T | null): string =>
  value === null ? '—' : pairs.find(([v]) => v === value)?.[1] ?? value;

/** What the table shows as a platform's name: a platform the catalog lacks has only its id. */
export const displayName = (platform: Platform): string => platform.name ?? platform.id;

/** The catalog's filters, each a search param of the page's URL. */
export const FILTER_KEYS = ['q', 'category', 'status', 'risk_tier', 'used'] as const;
export type Filters = Record<(typeof FILTER_KEYS)[number], string>;

export function filtersOf(params: URLSearchParams): Filters {
  return Object.fromEntries(FILTER_KEYS.map((key) => [key, params.get(key) ?? ''])) as Filters;
}

/**
 * The platforms joined to their use in the period, filtered, the most used first (then by name):
 * the apps staff actually use come before the rest of the catalog.
 */
export function joinApps(platforms: Platform[], usage: Usage[], filters: Filters): App[] {
  const byId = new Map(usage.map((u) => [u.platform_id, u]));
  const needle = filters.q.trim().toLowerCase();
  return platforms
    .map((platform) => ({ platform, usage: byId.get(platform.id) }))
    .filter(({ platform, usage: used }) =>
      (!needle || [platform.name, platform.vendor, platform.id].some((text) => text?.toLowerCase().includes(needle)))
      && (!filters.category || platform.category === filters.category)
      && (!filters.status || platform.status === filters.status)
      && (!filters.risk_tier || platform.risk_tier === filters.risk_tier)
      && (!filters.used || used !== undefined))
    .sort((a, b) => (b.usage?.interactions ?? 0) - (a.usage?.interactions ?? 0)
      || displayName(a.platform).localeCompare(displayName(b.platform)));
}

/**
 * The platforms first seen in the period: those whose first interaction ever (the whole history's
 * usage) falls within it, with their use in the period, first seen newest first.
 */
export function discoveredApps(platforms: Platform[], usage: Usage[], allTime: Usage[], start: string, end: string | undefined): App[] {
  const inPeriod = new Map(usage.map((u) => [u.platform_id, u]));
  const byId = new Map(platforms.map((p) => [p.id, p]));
  const from = Date.parse(start);
  const to = end ? Date.parse(end) : Number.POSITIVE_INFINITY;
  return allTime
    .filter((u) => Date.parse(u.first_seen) >= from && Date.parse(u.first_seen) <= to)
    .sort((a, b) => b.first_seen.localeCompare(a.first_seen) || a.platform_id.localeCompare(b.platform_id))
    .map((u) => ({ platform: byId.get(u.platform_id) ?? unknownPlatform(u), usage: inPeriod.get(u.platform_id) ?? u }));
}

/** A platform used but absent from the list (seen after the list was read): what the API says of one the catalog lacks. */
function unknownPlatform(usage: Usage): Platform {
  return {
    id: usage.platform_id, name: null, vendor: null, category: null, domains: [], risk_tier: null, trains_on_inputs: null,
    data_regions: [], sources: [], status: usage.status, note: '', overridden: [], catalog: false, updated_at: null,
  };
}
