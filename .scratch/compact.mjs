import { openStore } from '../dist/db/store.js';
import { compactCounts } from '../dist/modules/counts/compaction.js';
const store = await openStore({ databaseUrl: `postgres://postgres@127.0.0.1:5432/${process.argv[2]}` });
let total = 0, n; const t0 = Date.now();
while ((n = await compactCounts(store.db, 100000)) > 0) total += n;
console.log('moved', total, 'in', Date.now() - t0, 'ms');
await store.close();
