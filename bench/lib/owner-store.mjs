// The store opened directly by the bench (seeding, count(*) checks, EXPLAIN): every query in the table owner's
// scope, since row-level security shows the service's role only the rows of the tenants it names.
import { inFixedScope } from '../../dist/platform/store/scoped-connections.js';
import { openStore } from '../../dist/platform/store/store.js';
import { TABLE_OWNER } from '../../dist/platform/store/tenant-scope.js';

/** `openStore(options)` with `db` in the owner's scope; `close` as the store's. */
export async function openOwnerStore(options) {
  const store = await openStore(options);
  return Object.assign(Object.create(store), { db: inFixedScope(store.db, TABLE_OWNER), close: () => store.close() });
}
