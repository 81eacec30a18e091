import { defineConfig } from 'vitest/config';
import { SlowFilesFirst } from './test/support/slow-files-first.ts';
import { integrationFilesUsingTestDatabase } from './test/support/database-test-files.ts';

// Every project checks the stand-ins against the vendors' definitions; they are generated
// once, before the workers start (test/contracts).
const globalSetup = ['test/contracts/prepare-definitions.ts'];

export default defineConfig({
  test: {
    // The slowest files start first (test/support/slow-files-first.ts).
    sequence: { sequencer: SlowFilesFirst },
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node', globalSetup } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          // The run on server PostgreSQL takes only the files that open the test database.
          exclude: process.env.FLOWSMITH_TEST_DB === 'server' ? integrationFilesUsingTestDatabase(import.meta.dirname).notUsing : [],
          environment: 'node',
          globalSetup: [...globalSetup, 'test/support/test-database-setup.ts'],
          // The files share one module graph: each file re-importing the whole server cost
          // about 2.3 s of CPU, 140 s a run. Every file starts and closes its own app and
          // database, and nothing of a test's lives in module state (decision 0038).
          isolate: false,
          testTimeout: 30_000,
          hookTimeout: 60_000,
          setupFiles: ['test/support/fail-on-console-error.ts'],
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: [...globalSetup, 'test/support/e2e-setup.ts'],
          testTimeout: 90_000,
          hookTimeout: 120_000,
          // A page's answer polled for as long as Playwright waits for an element
          // (browser.ts): vitest's default of one second failed a check of a field the
          // settings page fills once its data arrives, on a busy machine.
          expect: { poll: { timeout: 30_000, interval: 100 } },
          // Each file starts its own server, database and Chromium, so two files can run at once.
          fileParallelism: true,
          // The files of a worker share one module graph, as the integration tests' do: the
          // stand-ins' checks compiled from the vendors' definitions, Playwright and the page
          // helpers are loaded once per worker instead of once per file (about 45 s a run).
          isolate: false,
        },
      },
    ],
  },
});
