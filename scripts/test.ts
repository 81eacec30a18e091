/**
 * The whole suite, as CI runs it: type check, lint, module rules, unit and integration
 * tests on embedded PGlite, the integration tests again on a PostgreSQL server when
 * TEST_DATABASE_URL is set, then end-to-end tests in headless Chromium against the
 * real server. Ends with each step's time and one summary line.
 *
 * The checks and the web app's build run at the same time, then the three test runs one
 * after another (below, why). A step's output is printed whole when it ends, so parallel steps
 * do not interleave; failed checks end the run before the tests.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { errorsOutsideTests } from './test-output.ts';

const resultsDir = path.resolve('.tmp/test-results');
rmSync(resultsDir, { recursive: true, force: true });
mkdirSync(resultsDir, { recursive: true });
const totals = { passed: 0, failed: 0, skipped: 0 };
/** Each failed test, so the run's last lines (often all a CI log keeps) say what failed. */
const failures: string[] = [];
const timings: Array<{ title: string; seconds: number; ok: boolean }> = [];
const runStarted = Date.now();

interface Step {
  title: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
  /** The vitest JSON report it writes, whose counts go into the summary. */
  report?: string;
}

function vitestStep(title: string, projects: string[], workers: number, env: Record<string, string> = {}): Step {
  const report = path.join(resultsDir, `${title.replace(/\W+/g, '-')}.json`);
  return {
    title,
    command: 'npx',
    args: ['vitest', 'run', ...projects.flatMap((project) => ['--project', project]), `--maxWorkers=${workers}`, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`],
    env,
    report,
  };
}

function runStep(step: Step): Promise<boolean> {
  process.stdout.write(`=== ${step.title}: started ===\n`);
  const started = Date.now();
  return new Promise((resolve) => {
    const failuresBefore = failures.length;
    const child = spawn(step.command, step.args, { env: { ...process.env, ...step.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('close', (code) => {
      const ok = code === 0;
      const seconds = (Date.now() - started) / 1000;
      timings.push({ title: step.title, seconds, ok });
      process.stdout.write(`\n=== ${step.title} ===\n${Buffer.concat(output).toString('utf8')}`);
      process.stdout.write(`=== ${step.title}: ${ok ? 'ok' : 'FAILED'} in ${seconds.toFixed(1)} s ===\n`);
      if (step.report && existsSync(step.report)) {
        const report = JSON.parse(readFileSync(step.report, 'utf8')) as VitestReport;
        totals.passed += report.numPassedTests;
        totals.failed += report.numFailedTests;
        totals.skipped += report.numPendingTests + report.numTodoTests;
        failures.push(...failedTests(step.title, report));
      }
      // A run can fail with every test passed: vitest then exits 1 for an error outside the
      // tests (an unhandled rejection, a worker that died), which its JSON report leaves out.
      // Its own words go into the last lines too, which are often all a CI log keeps.
      if (!ok && failures.length === failuresBefore) failures.push(`  [${step.title}] failed with no failed test:\n${errorsOutsideTests(Buffer.concat(output).toString('utf8'))}`);
      resolve(ok);
    });
  });
}

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults?: Array<{
    name: string;
    status: string;
    message?: string;
    assertionResults?: Array<{ fullName: string; status: string; failureMessages?: string[] }>;
  }>;
}

/** One line per failed test (or per file that failed before its tests ran), with its error's first line. */
function failedTests(stepTitle: string, report: VitestReport): string[] {
  const lines: string[] = [];
  const firstLine = (text: string | undefined) => (text ?? '').split('\n', 1).join('').slice(0, 300);
  for (const file of report.testResults ?? []) {
    const where = path.relative(process.cwd(), file.name);
    const failed = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failed) lines.push(`  [${stepTitle}] ${where} > ${test.fullName}\n      ${firstLine(test.failureMessages?.[0])}`);
    if (failed.length === 0 && file.status === 'failed') lines.push(`  [${stepTitle}] ${where}\n      ${firstLine(file.message)}`);
  }
  return lines;
}

/** Runs a stage's steps at once; the run ends after a stage in which one failed. */
async function stage(steps: Step[]): Promise<void> {
  const results = await Promise.all(steps.map(runStep));
  if (results.includes(false)) finish(1);
}

function finish(code: number): never {
  process.stdout.write('\nStep times:\n');
  for (const { title, seconds, ok } of timings) process.stdout.write(`  ${seconds.toFixed(1).padStart(6)} s  ${title}${ok ? '' : ' (FAILED)'}\n`);
  process.stdout.write(`  ${((Date.now() - runStarted) / 1000).toFixed(1).padStart(6)} s  in all (steps of a stage run at the same time)\n`);
  if (failures.length > 0) process.stdout.write(`\nFailed:\n${failures.join('\n')}\n`);
  process.stdout.write(`\nTests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
  process.exit(code);
}

await stage([
  { title: 'type check', command: 'npx', args: ['tsc', '--noEmit', '-p', 'tsconfig.json'] },
  { title: 'lint', command: 'npx', args: ['eslint', '--max-warnings', '0', '.'] },
  { title: 'module rules', command: 'npm', args: ['run', '--silent', 'lint:modules'] },
  { title: 'build web app', command: 'npx', args: ['vite', 'build', '--logLevel', 'warn'] },
]);
if (!process.env.TEST_DATABASE_URL) process.stdout.write('\nTEST_DATABASE_URL is not set: the integration tests run on embedded PGlite only.\n');
// The three test runs one after another. Run at once they shared two cores with load
// averages of 11 to 15, and tests that must answer within a time (a server shedding load
// with 503, a key check's time limit, a worker's deadline) failed for that alone
// (docs/decisions/0038-tests-build-what-they-need.md). The database runs take three files
// at a time: their files mostly wait (on a worker's heartbeat, a retry's delay, a stand-in's
// answer), and with two the server run kept the cores 38 % busy. The browser run keeps two:
// Chromium and a server per file are what a busy machine slows first (decision 0056).
// Each runs even when one before failed, so one run says all that fails.
const testRuns = [
  vitestStep('unit and integration (embedded PGlite)', ['unit', 'integration'], 3),
  ...(process.env.TEST_DATABASE_URL ? [vitestStep('integration (PostgreSQL server)', ['integration'], 3, { FLOWSMITH_TEST_DB: 'server' })] : []),
  vitestStep('end-to-end (Chromium)', ['e2e'], 2),
];
let allPassed = true;
for (const run of testRuns) if (!(await runStep(run))) allPassed = false;
finish(allPassed && totals.failed === 0 ? 0 : 1);
