/**
 * The whole suite, as CI runs it: type check, lint, module rules, unit and integration
 * tests on embedded PGlite, the integration tests again on a PostgreSQL server when
 * TEST_DATABASE_URL is set, then end-to-end tests in headless Chromium against the
 * real server. Stops at the first failing step; ends with one summary line.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const resultsDir = path.resolve('.tmp/test-results');
rmSync(resultsDir, { recursive: true, force: true });
mkdirSync(resultsDir, { recursive: true });
const totals = { passed: 0, failed: 0, skipped: 0 };

function run(title: string, command: string, args: string[], env: Record<string, string> = {}, onFailure: () => void = () => finish(1)): void {
  process.stdout.write(`\n=== ${title} ===\n`);
  const started = Date.now();
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  process.stdout.write(`=== ${title}: ${result.status === 0 ? 'ok' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s ===\n`);
  if (result.status !== 0) onFailure();
}

function vitest(title: string, projects: string[], env: Record<string, string> = {}): void {
  const output = path.join(resultsDir, `${title.replace(/\W+/g, '-')}.json`);
  let failed = false;
  run(title, 'npx', ['vitest', 'run', ...projects.flatMap((p) => ['--project', p]), '--reporter=default', '--reporter=json', `--outputFile.json=${output}`], env, () => {
    failed = true;
  });
  if (existsSync(output)) {
    const report = JSON.parse(readFileSync(output, 'utf8')) as { numPassedTests: number; numFailedTests: number; numPendingTests: number; numTodoTests: number };
    totals.passed += report.numPassedTests;
    totals.failed += report.numFailedTests;
    totals.skipped += report.numPendingTests + report.numTodoTests;
  }
  // Counted first, so the closing line includes the failing step's tests.
  if (failed) finish(1);
}

function finish(code: number): never {
  process.stdout.write(`\nTests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
  process.exit(code);
}

run('type check', 'npx', ['tsc', '--noEmit', '-p', 'tsconfig.json']);
run('lint', 'npx', ['eslint', '--max-warnings', '0', '.']);
run('module rules', 'npm', ['run', '--silent', 'lint:modules']);
vitest('unit and integration (embedded PGlite)', ['unit', 'integration']);
if (process.env.TEST_DATABASE_URL) {
  vitest('integration (PostgreSQL server)', ['integration'], { FLOWSMITH_TEST_DB: 'server' });
} else {
  process.stdout.write('\nTEST_DATABASE_URL is not set: the integration tests ran on embedded PGlite only.\n');
}
run('build web app', 'npx', ['vite', 'build', '--logLevel', 'warn']);
vitest('end-to-end (Chromium)', ['e2e']);
finish(totals.failed > 0 ? 1 : 0);
