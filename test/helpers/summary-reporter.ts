import type { Reporter, TestModule } from 'vitest/node';

const SLOWEST_SHOWN = 15;

/**
 * Ends the run with the slowest files (where the suite's time goes) and one plain line,
 * `tests: N passed, N failed, N skipped`.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed += 1;
        else if (state === 'failed') counts.failed += 1;
        else counts.skipped += 1;
      }
    }
    const slowest = testModules
      .map((module) => ({ file: module.relativeModuleId, diagnostic: module.diagnostic() }))
      .sort((a, b) => total(b.diagnostic) - total(a.diagnostic))
      .slice(0, SLOWEST_SHOWN);
    if (slowest.length > 1) {
      process.stdout.write('\nslowest files (tests, setup and imports):\n');
      for (const { file, diagnostic } of slowest) {
        const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
        process.stdout.write(`  ${seconds(total(diagnostic)).padStart(8)}  ${file}` +
          ` (imports ${seconds(diagnostic.collectDuration)})\n`);
      }
    }
    process.stdout.write(`\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}

function total(diagnostic: ReturnType<TestModule['diagnostic']>): number {
  return diagnostic.duration + diagnostic.collectDuration;
}
