import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../helpers/harness.js';
import type { StoreKind } from '../../src/platform/store/store.js';
import { FUZZ_ENV, PROBLEM_KINDS, runFuzz, summary } from './fuzzer.js';

/**
 * Every operation of the served OpenAPI document, driven with generated requests (FUZZ_REQUESTS per
 * store, default 5,000; FUZZ_SEED, default fixed, replays a run): every answer has a documented
 * status and matches its schema, and none is a 5xx, shows a stack trace or another tenant's data.
 * FUZZ_REPORT names a file the counts are written to (JSON, one run per store: the bench's `fuzz` part).
 * Each store's run is a file of its own (openapi-fuzz.<store>.test.ts), so that the two run side by side.
 */
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 5_000);
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_127);

export function openApiFuzzSuite(kind: StoreKind): void {
  describe(`OpenAPI fuzz [${kind}]`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await Harness.start(kind, { env: FUZZ_ENV });
    });
    afterAll(async () => {
      await h.close();
    });

    it(`answers ${REQUESTS} generated requests as the document says`, async () => {
      const result = await runFuzz(h, { requests: REQUESTS, seed: SEED });
      if (process.env.FUZZ_REPORT) writeFileSync(process.env.FUZZ_REPORT, JSON.stringify({ kind, ...result }));
      const report = summary(result);
      const problems = PROBLEM_KINDS.reduce((sum, k) => sum + result.counts[k], 0);
      if (problems > 0 || process.env.FUZZ_VERBOSE) console.log(`OpenAPI fuzz [${kind}]\n${report}`);
      expect(result.counts.requests).toBe(REQUESTS);
      // Every operation of the document was reached (a run of 1,000 or more does), and the callers got past the checks often enough to reach the handlers.
      expect(result.operations.length).toBeGreaterThanOrEqual(50);
      if (REQUESTS >= 1_000) expect(Object.keys(result.counts.byOperation).sort()).toEqual([...result.operations].sort());
      expect(result.counts.byStatus['200'] ?? 0).toBeGreaterThan(REQUESTS / 20);
      expect(problems, report).toBe(0);
    }, Math.max(900_000, REQUESTS * 60));
  });
}
