import { defineConfig } from 'vitest/config';

// Every project checks the stand-ins against the vendors' definitions; they are generated
// once, before the workers start (test/contracts).
const globalSetup = ['test/contracts/prepare-definitions.ts'];

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node', globalSetup } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          globalSetup: [...globalSetup, 'test/support/test-database-setup.ts'],
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
          fileParallelism: false,
        },
      },
    ],
  },
});
