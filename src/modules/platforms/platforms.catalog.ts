import catalogEntries from './catalog.json' with { type: 'json' };
import type { PlatformCategory, RiskTier } from '../../kernel/tables/platforms.js';

/** One AI platform as the catalog (catalog.json, docs/platforms.md) describes it. */
export interface CatalogEntry {
  /** The lowercase `platform_id` clients send. */
  id: string;
  name: string;
  vendor: string;
  category: PlatformCategory;
  /** Host names the platform is used on; each covers its subdomains. */
  domains: string[];
  risk_tier: RiskTier;
  /** Whether the vendor uses what users send to train its models by default; null when unknown. */
  trains_on_inputs: boolean | null;
  /** Where the vendor keeps the data (ISO 3166 codes, or `EU`); empty when unknown. */
  data_regions: string[];
  /** The vendor's public pages the facts come from. */
  sources: string[];
}

/** Every entry, in the file's order (the schema test checks its shape and rules). */
export const CATALOG: readonly CatalogEntry[] = catalogEntries as CatalogEntry[];

const BY_ID = new Map(CATALOG.map((entry) => [entry.id, entry]));

export function catalogEntry(platformId: string): CatalogEntry | undefined {
  return BY_ID.get(platformId);
}
