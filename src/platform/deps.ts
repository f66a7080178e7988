import type { Config } from '../config/config.js';
import type { Store } from './store/store.js';
import type { Clock } from '../kernel/clock.js';
import type { TenantKeyring } from './crypto/keyring.js';

/** What readiness depends on besides the store answering. */
export interface Lifecycle {
  migrated: boolean;
  shuttingDown: boolean;
}

/** What the application is built from; tests build it with their own store and clock. */
export interface Deps {
  config: Readonly<Config>;
  store: Store;
  clock: Clock;
  lifecycle: Lifecycle;
  /** The tenants' keys: detected values, webhook secrets and fingerprints are sealed and opened with them. */
  keyring: TenantKeyring;
}
