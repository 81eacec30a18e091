import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each of the slowest test files took in a fresh-clone run of the whole suite on
 * the CI machine (the most of its PGlite and server runs). A hint, not a rule: a file
 * missing here only runs later, and a figure out of date only orders a file worse.
 */
const measuredSeconds = new Map<string, number>([
  ['test/integration/engine-workers.test.ts', 36],
  ['test/integration/database-outage.test.ts', 31],
  ['test/integration/engine-crash.test.ts', 29],
  ['test/integration/klaviyo-bulk-delivery.test.ts', 18],
  ['test/integration/accounts.test.ts', 17],
  ['test/integration/klaviyo-bulk-retries.test.ts', 16],
  ['test/integration/experiments.test.ts', 15],
  ['test/integration/fuzz.test.ts', 14],
  ['test/integration/credentials.test.ts', 12],
  ['test/integration/observability.test.ts', 10],
  ['test/integration/oauth-shopify.test.ts', 10],
  ['test/integration/embedded-database-thread.test.ts', 8],
  ['test/integration/job-queue-takeover.test.ts', 8],
  ['test/integration/privacy.test.ts', 7],
  ['test/integration/engine-rate-limits.test.ts', 6],
  ['test/integration/shopper-timers.test.ts', 6],
  ['test/integration/service-conditions.test.ts', 6],
  ['test/e2e/dashboard.test.ts', 42],
  ['test/e2e/accounts.test.ts', 39],
  ['test/e2e/flows.test.ts', 38],
  ['test/e2e/console.test.ts', 32],
  ['test/e2e/narrow-screens.test.ts', 29],
  ['test/e2e/sandbox.test.ts', 19],
  ['test/e2e/experiments.test.ts', 19],
  ['test/e2e/trusted-texts.test.ts', 16],
  ['test/e2e/flow-signatures.test.ts', 15],
  ['test/e2e/connections.test.ts', 14],
]);

/**
 * The slowest files first, so the last minute of a run is not one long file with the other
 * worker idle (the server run ended with a 30 s file started last, beside 33 s of nothing).
 * Vitest orders by its cache of earlier runs' durations, which a fresh clone lacks; it then
 * falls back to file size, a poor guide to a file that waits on a process or a clock.
 */
export class SlowFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const secondsOf = (file: TestSpecification) => measuredSeconds.get(path.relative(file.project.config.root, file.moduleId).split(path.sep).join('/')) ?? 0;
    // Vitest's order keeps each project's files together; within a project, the figures
    // decide, and a stable sort leaves files without one in vitest's order.
    const projects = [...new Set(sorted.map((file) => file.project.name))];
    return projects.flatMap((name) => sorted.filter((file) => file.project.name === name).sort((a, b) => secondsOf(b) - secondsOf(a)));
  }
}
