import type { Timestamp } from './columns.js';

export type PlatformStatus = 'sanctioned' | 'unsanctioned' | 'blocked';
export type PlatformCategory = 'assistant' | 'code' | 'media' | 'search' | 'agents' | 'model_api' | 'productivity';
export type RiskTier = 'low' | 'medium' | 'high';

/**
 * A tenant's decision on one AI platform, with its own view of the platform where it differs from
 * the catalog's (null: the catalog's). No row: `unsanctioned`, the catalog's facts.
 */
export interface PlatformStatusesTable {
  tenant_id: string;
  platform_id: string;
  status: PlatformStatus;
  note: string;
  name: string | null;
  category: PlatformCategory | null;
  risk_tier: RiskTier | null;
  updated_at: Timestamp;
  updated_by: string | null;
}

/** Table types of the platforms feature; merged into `Database`. */
export interface PlatformsTables {
  platform_statuses: PlatformStatusesTable;
}
