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

/**
 * Makes `create(deps)` once per application instance (each replica, each test app has its own):
 * for the in-memory caches and queues that live as long as the app.
 */
export function onePerApp<T>(create: (deps: Deps) => T): (deps: Deps) => T {
  const instances = new WeakMap<Deps, T>();
  return (deps) => {
    let instance = instances.get(deps);
    if (instance === undefined) {
      instance = create(deps);
      instances.set(deps, instance);
    }
    return instance;
  };
}
