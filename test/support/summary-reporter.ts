import type { Reporter, TestModule } from 'vitest/node';

/** Ends the run with a plain "N passed, N failed, N skipped" line that CI log readers understand. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const mod of modules) {
      let moduleFailures = 0;
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') moduleFailures++;
        else skipped++;
      }
      // a file whose setup failed has only skipped tests: count the file itself as a failure
      failed += mod.state() === 'failed' && moduleFailures === 0 ? 1 : moduleFailures;
    }
    process.stdout.write(`\nTests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
