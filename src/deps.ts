import type { Config } from './config.js';
import type { Store } from './db/store.js';
import type { Clock } from './lib/clock.js';

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
}
