import type { LightMyRequestResponse } from 'fastify';
import { testKeyring } from './keyring.js';
import { buildApp } from '../../src/app.js';
import type { Deps } from '../../src/platform/deps.js';
import { openStore } from '../../src/platform/store/store.js';
import type { CallOptions, Harness } from './harness.js';

export interface Replica {
  call(method: string, url: string, options?: CallOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/**
 * A second application instance on the harness's database, as another replica would be: on
 * PostgreSQL with its own connection pool; on PGlite over the same embedded store. Either way
 * it has its own in-memory caches.
 */
export async function startReplica(h: Harness): Promise<Replica> {
  const ownStore = h.kind === 'postgres' ? await openStore({ databaseUrl: h.databaseUrl, poolSize: 2 }) : undefined;
  const store = ownStore ?? h.deps.store;
  const deps: Deps = { ...h.deps, store, lifecycle: { migrated: true, shuttingDown: false }, keyring: testKeyring(store.db) };
  const app = await buildApp(deps);
  await app.ready();
  return {
    call: (method, url, options = {}) => app.inject({
      method: method as 'GET',
      url,
      headers: { ...options.headers, ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) },
      query: options.query ? Object.fromEntries(Object.entries(options.query).map(([k, v]) => [k, String(v)])) : undefined,
      ...(options.body === undefined ? {} : { payload: options.body as object }),
    }),
    close: async () => {
      await app.close();
      await ownStore?.close();
    },
  };
}
