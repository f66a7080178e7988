// What the live measures send through the API: the n-th interaction drawn from the queries seed's distributions
// (bench/lib/queries-seed.mjs, so the list shapes of bench/lib/queries-shapes.mjs select alike), and the clock
// that spreads their timestamps over the seed's 180 days (bench/lib/live-clock.mjs, loaded into the service).
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onCleanup } from './cleanup.mjs';
import { INTERACTION_TYPES, PLATFORMS, SOURCES, TYPES, pooledHash } from './queries-seed.mjs';
import { asUuid, md5 } from './queries-shapes.mjs';

/** A uniform 0..modulus-1 from the row number and a salt (a 32-bit integer hash; the seed's SQL uses hashint8). */
function u(n, salt, modulus = 10000) {
  let x = (n * 64 + salt) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return ((x ^ (x >>> 16)) >>> 0) % modulus;
}

const pick = (choices, value) => choices.find(([, upTo]) => value < upTo)[0];

/** Half the values from a pool per type position (seen again and again), half seen once, as the seed's fingerprints. */
function classification(n, k) {
  const value = u(n, 50 + k, 2) === 0 ? `c${k}-${u(n, 53 + k, 3334)}@pool.live.test` : `u${n}-${k}@once.live.test`;
  return { type: pick(TYPES, u(n, 20 + k)), value, score: 0.9, start: k * 10, end: k * 10 + 8 };
}

/** The n-th interaction: the seed's row n, less its timestamp (the service's clock gives it). */
export function liveInteraction(n) {
  return {
    platform_id: pick(PLATFORMS, u(n, 1)),
    content_hash: u(n, 2) < 1000 ? pooledHash(md5, u(n, 3, 100_000)) : md5(`h${n}`) + md5(`g${n}`),
    interaction_type: pick(INTERACTION_TYPES, u(n, 4)),
    content_metadata: { tokens: u(n, 5, 4000), model: `model-${u(n, 14, 7)}` },
    classifications: u(n, 6) < 3500 ? Array.from({ length: 1 + u(n, 7, 3) }, (_, k) => classification(n, k + 1)) : [],
    risk_score: u(n, 8) < 6500 ? 0 : Math.round((0.05 + 0.95 * (u(n, 9) / 9999) ** 2) * 100) / 100,
    direction: u(n, 10) < 6000 ? 'outbound' : 'inbound',
    source: pick(SOURCES, u(n, 11)),
    user_id: u(n, 12) < 9000 ? asUuid(md5(`user${u(n, 13, 5000)}`)) : null,
  };
}

/**
 * The clock of a service started with `startService(env, { nodeArgs })` of this: `at(ms)` makes the service's
 * time `ms` (from the next 20 ms on; it never goes back), `real()` gives it the real time again.
 */
export function spreadClock() {
  const dir = mkdtempSync(join(tmpdir(), 'ugs-bench-clock-'));
  const file = join(dir, 'offset');
  const write = (offset) => {
    // Written whole then renamed: a half-written file would read as another offset.
    writeFileSync(`${file}.next`, String(Math.round(offset)));
    renameSync(`${file}.next`, file);
  };
  write(0);
  return {
    env: { BENCH_CLOCK_FILE: file },
    nodeArgs: ['--import', new URL('./live-clock.mjs', import.meta.url).href],
    at: (ms) => write(ms - Date.now()),
    real: () => write(0),
    dispose: onCleanup(() => rmSync(dir, { recursive: true, force: true }), { sync: true }),
  };
}
