import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Each file has its own store (a PGlite instance, or a PostgreSQL database of its own) and
    // its own ports, and most of a test's time is spent waiting on processes, sockets and timers:
    // three files at a time even on two cores (Vitest's default there is one): on two cores the
    // whole suite took 995 s for 2,550 s of tests, the cores 88 % busy.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    // A worker's files share its loaded modules instead of each loading the app anew: on two cores
    // the whole suite went from 2,426 to 1,837 s (imports from 723 to 81 s). The service's modules
    // keep no state of one test's store for the next; a file that mocks a module loads the app
    // anew itself (test/stats/stats-top-users-bound.test.ts).
    isolate: false,
    globalSetup: ['./test/helpers/global-setup.ts'],
    reporters: ['verbose', './test/helpers/summary-reporter.ts'],
  },
});
