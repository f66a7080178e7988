// Writes dist/embedded-store-seed.tar.gz after the TypeScript build: a new embedded store, made by
// initdb and this build's migrations, that a first start unpacks (src/platform/store/embedded-seed.ts).
import { EMBEDDED_SEED, writeSeed } from '../dist/platform/store/embedded-seed.js';
import { migrate } from '../dist/platform/store/migrate.js';
import { openStore } from '../dist/platform/store/store.js';

await writeSeed(EMBEDDED_SEED, async (dataDir) => {
  const store = await openStore({ dataDir, seed: null, embedded: { durableCommits: false } });
  try {
    await migrate(store.db);
  } finally {
    await store.close();
  }
});
