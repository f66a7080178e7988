import type { Kysely } from 'kysely';
import * as m0001 from './0001_foundation.js';
import * as m0002 from './0002_users.js';
import * as m0003 from './0003_interactions.js';
import * as m0004 from './0004_webhooks.js';
import * as m0005 from './0005_delivery_engine.js';
import * as m0006 from './0006_tenant_versions.js';
import * as m0007 from './0007_interaction_counts.js';
import * as m0008 from './0008_list_indexes.js';
import * as m0009 from './0009_alert_counts.js';
import * as m0010 from './0010_count_rollup_index.js';
import * as m0011 from './0011_tenant_settings.js';
import * as m0012 from './0012_high_risk_users_index.js';
import * as m0013 from './0013_detected_values.js';
import * as m0014 from './0014_count_generations.js';
import * as m0015 from './0015_count_heads.js';
import * as m0016 from './0016_rate_limits.js';
import * as m0017 from './0017_row_level_security.js';
import * as m0018 from './0018_single_sign_on.js';
import * as m0019 from './0019_scim.js';
import * as m0020 from './0020_service_leases.js';
import * as m0021 from './0021_webhook_formats.js';
import * as m0022 from './0022_platform_statuses.js';
import * as m0023 from './0023_platform_sightings.js';
import * as m0024 from './0024_platform_users_index.js';
import * as m0025 from './0025_interaction_count_levels.js';
import * as m0026 from './0026_usage_rollups.js';
import * as m0027 from './0027_job_leases_in_place.js';
import * as m0028 from './0028_usage_rollup_slots.js';
import * as m0029 from './0029_usage_rollup_slot_blocks.js';
import * as m0030 from './0030_sealing_pass_on_new_stores.js';

/**
 * A migration: `up` runs in a transaction of its own, unless it exports `transactional = false`
 * (for `CREATE INDEX CONCURRENTLY`, online.ts), in which case each statement must be safe to run
 * again. Rules for new ones (docs/migrations.md): expand, then contract a
 * release later; nothing that holds a lock writers wait on for long (`npm run check:migrations`).
 */
export interface ServiceMigration {
  up(db: Kysely<any>): Promise<void>;
  transactional?: boolean;
}

/** Every migration, in order. Add new ones at the end; never rename or edit a released one. */
export const migrations: Record<string, ServiceMigration> = {
  '0001_foundation': m0001,
  '0002_users': m0002,
  '0003_interactions': m0003,
  '0004_webhooks': m0004,
  '0005_delivery_engine': m0005,
  '0006_tenant_versions': m0006,
  '0007_interaction_counts': m0007,
  '0008_list_indexes': m0008,
  '0009_alert_counts': m0009,
  '0010_count_rollup_index': m0010,
  '0011_tenant_settings': m0011,
  '0012_high_risk_users_index': m0012,
  '0013_detected_values': m0013,
  '0014_count_generations': m0014,
  '0015_count_heads': m0015,
  '0016_rate_limits': m0016,
  '0017_row_level_security': m0017,
  '0018_single_sign_on': m0018,
  '0019_scim': m0019,
  '0020_service_leases': m0020,
  '0021_webhook_formats': m0021,
  '0022_platform_statuses': m0022,
  '0023_platform_sightings': m0023,
  '0024_platform_users_index': m0024,
  '0025_interaction_count_levels': m0025,
  '0026_usage_rollups': m0026,
  '0027_job_leases_in_place': m0027,
  '0028_usage_rollup_slots': m0028,
  '0029_usage_rollup_slot_blocks': m0029,
  '0030_sealing_pass_on_new_stores': m0030,
};
