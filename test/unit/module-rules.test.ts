import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const projectRoot = path.resolve(import.meta.dirname, '../..');
const fixtures = path.join(projectRoot, 'test/fixtures/module-rules');

/**
 * The project's own rules (.dependency-cruiser.cjs) over a tree laid out like the
 * project's, with that tree as base directory so the rules' `^src/…` paths match it.
 */
async function cruiseTree(baseDir: string): Promise<ICruiseResult> {
  const options = await extractDepcruiseOptions(path.join(projectRoot, '.dependency-cruiser.cjs'));
  const tsConfigFile = path.join(projectRoot, 'tsconfig.json');
  const result = await cruise(['src'], { ...options, baseDir, tsConfig: { fileName: tsConfigFile }, outputType: 'json' }, {}, { tsConfig: extractTSConfig(tsConfigFile) });
  return JSON.parse(result.output as string) as ICruiseResult;
}

const violationsOf = (result: ICruiseResult) =>
  result.summary.violations.map((violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`).sort();

describe('the module rules (dependency-cruiser)', () => {
  it('report each rule on a tree that breaks it, type-only imports included', async () => {
    const result = await cruiseTree(path.join(fixtures, 'violating'));
    expect(violationsOf(result)).toEqual(
      [
        'integrations-are-leaves: src/server/integrations/openai/leaky.ts → src/server/engine/engine.ts',
        'browser-imports-no-server: src/web/page.ts → src/server/engine/engine.ts',
        'shared-is-shared: src/shared/leaks-server.ts → src/server/integrations/openai/leaky.ts',
        'shared-is-shared: src/shared/leaks-web.ts → src/web/page.ts',
        // A cycle is reported once, at the dependency that closes it.
        'no-circular: src/server/flows/flow-a.ts → src/server/flows/flow-b.ts',
        'tests-not-imported-by-src: src/server/platform/uses-fake.ts → test/fakes/fake-service.ts',
        'tests-not-imported-by-src: src/server/platform/uses-fake.ts → bench/load.ts',
        // sonner resolves from the project's own node_modules, above the fixture tree.
        'toasts-through-the-app: src/web/toasts-itself.ts → ../../../../node_modules/sonner/dist/index.d.mts',
        // The pairs of folders made one-way stay so, one rule a direction.
        'database-imports-no-feature: src/server/database/migrate.ts → src/server/events/event-queries.ts',
        'background-imports-no-feature: src/server/background/background-parts.ts → src/server/engine/engine.ts',
        'experiments-import-no-engine: src/server/experiments/experiment-assignment.ts → src/server/engine/engine.ts',
        'credentials-import-no-engine: src/server/credentials/credential-checks.ts → src/server/engine/engine.ts',
        'flows-import-no-credentials: src/server/flows/flow-signatures.ts → src/server/credentials/credential-checks.ts',
        // The decisions reach nothing that queries, however indirectly: the core through the
        // timer rules is caught as well as the timer rules themselves.
        'decisions-are-pure: src/server/engine/spine/pipeline-core.ts → src/server/engine/timers/shopper-timer-queries.ts',
        'decisions-are-pure: src/server/engine/timers/timer-rules.ts → src/server/engine/timers/shopper-timer-queries.ts',
      ].sort(),
    );
    expect(result.summary.error).toBe(15);
  });

  it('report nothing on a tree that keeps them, and resolve every `.ts` import there', async () => {
    const result = await cruiseTree(path.join(fixtures, 'clean'));
    expect(violationsOf(result)).toEqual([]);
    // A resolver that missed the `.ts` imports would find no dependencies, and so no violations either.
    const local = result.modules.flatMap((module) => module.dependencies.filter((dependency) => dependency.resolved.startsWith('src/')));
    expect(local.length).toBeGreaterThanOrEqual(10);
    expect(result.modules.flatMap((module) => module.dependencies.filter((dependency) => dependency.couldNotResolve))).toEqual([]);
  });
});

/**
 * Two rules dependency-cruiser cannot see, since they are about SQL rather than imports:
 * only the events module writes the events table (its lifecycle has one writer), and SQL
 * runs only in `*-queries.ts` modules, where it is named in domain terms.
 */
const eventsWrite = /\b(?:insert\s+into|update|delete\s+from)\s+(?:public\.)?"?events\b/i;
const runsSql = /\.query\s*[(<]/;

/**
 * Server files that run SQL without being a queries module, because no feature owns
 * what they run: the pool, transactions, migrations and the embedded server
 * (database/); the adapter that hands pg-boss a way to run its own SQL in the caller's
 * transaction; and the change feed's LISTEN on its own long-lived connection.
 */
const infrastructureSql = [/^src\/server\/database\//, /^src\/server\/background\/job-queue\.ts$/, /^src\/server\/realtime\/change-feed\.ts$/];

/** The TypeScript files under `root`/src/server, relative to `root`, with their text. */
async function serverSources(root: string): Promise<{ file: string; text: string }[]> {
  const names = await readdir(path.join(root, 'src/server'), { recursive: true });
  const files = names.filter((name) => name.endsWith('.ts')).map((name) => path.posix.join('src/server', name.split(path.sep).join('/')));
  return Promise.all(files.sort().map(async (file) => ({ file, text: await readFile(path.join(root, file), 'utf8') })));
}

/**
 * Stored functions' texts live in `*-functions.ts` modules beside the queries that call
 * them, where the migration runner applies them (docs/decisions/0034). They are SQL the
 * runner applies, not SQL a module runs, so they are not queries modules: the scan of SQL
 * run holds them to running none, and the scan of events writers reads them like any
 * other file, so a function text outside the events module that writes events is caught.
 */
const definesFunction = /\bcreate\s+(?:or\s+replace\s+)?function\b/i;

async function functionTextsOutsideFunctionModules(root: string): Promise<string[]> {
  return (await serverSources(root)).filter(({ file, text }) => !file.endsWith('-functions.ts') && definesFunction.test(text)).map(({ file }) => file);
}

async function eventsWritersOutsideEvents(root: string): Promise<string[]> {
  return (await serverSources(root)).filter(({ file, text }) => !file.startsWith('src/server/events/') && eventsWrite.test(text)).map(({ file }) => file);
}

async function sqlOutsideQueries(root: string): Promise<string[]> {
  return (await serverSources(root))
    .filter(({ file, text }) => !file.endsWith('-queries.ts') && !infrastructureSql.some((pattern) => pattern.test(file)) && runsSql.test(text))
    .map(({ file }) => file);
}

describe('the SQL scans', () => {
  it('find a write to events outside the events module, in any case and across line breaks', async () => {
    expect(await eventsWritersOutsideEvents(path.join(fixtures, 'violating'))).toEqual([
      'src/server/engine/event-stamp-functions.ts',
      'src/server/engine/event-writer.ts',
      'src/server/engine/timer-queries.ts',
    ]);
  });

  it('find a stored function defined outside a functions module', async () => {
    expect(await functionTextsOutsideFunctionModules(path.join(fixtures, 'violating'))).toEqual(['src/server/engine/retry-schedule.ts']);
  });

  it('find SQL run outside a queries module', async () => {
    expect(await sqlOutsideQueries(path.join(fixtures, 'violating'))).toEqual(['src/server/engine/event-writer.ts']);
  });

  it('pass a tree whose events module writes events, whose queries modules run SQL, and whose infrastructure runs transactions', async () => {
    expect(await eventsWritersOutsideEvents(path.join(fixtures, 'clean'))).toEqual([]);
    expect(await sqlOutsideQueries(path.join(fixtures, 'clean'))).toEqual([]);
    expect(await functionTextsOutsideFunctionModules(path.join(fixtures, 'clean'))).toEqual([]);
  });
});

describe("the app's SQL", () => {
  it('writes the events table only in the events module', async () => {
    expect(await eventsWritersOutsideEvents(projectRoot)).toEqual([]);
  });

  it('runs only in queries modules and the listed infrastructure', async () => {
    expect(await sqlOutsideQueries(projectRoot)).toEqual([]);
  });

  it('defines stored functions only in functions modules', async () => {
    expect(await functionTextsOutsideFunctionModules(projectRoot)).toEqual([]);
  });
});
