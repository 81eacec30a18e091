import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { integrationFilesUsingTestDatabase } from '../support/database-test-files.ts';

// The run on server PostgreSQL leaves out the integration files that never open the test
// database. A file wrongly left out would go untested on the server without a sign.
const projectRoot = path.resolve(import.meta.dirname, '../..');
let scratch: string | null = null;
afterEach(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = null;
});

it('follows imports through the support modules, and through a cycle', async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'database-test-files-'));
  const write = async (file: string, text: string) => {
    await mkdir(path.dirname(path.join(scratch!, file)), { recursive: true });
    await writeFile(path.join(scratch!, file), text);
  };
  await write('test/support/test-database.ts', 'export const createTestDatabase = 1;\n');
  await write('test/support/app.ts', "import { b } from './b.ts';\nimport { createTestDatabase } from './test-database.ts';\nexport const a = 1;\n");
  await write('test/support/b.ts', "import { a } from './app.ts';\nexport const b = 2;\n");
  await write('test/support/c.ts', "import { d } from './d.ts';\nexport const c = 3;\n");
  await write('test/support/d.ts', "import { c } from './c.ts';\nimport pg from 'pg';\nexport const d = 4;\n");
  await write('test/integration/through-two.test.ts', "import { b } from '../support/b.ts';\n");
  await write('test/integration/dynamic.test.ts', "const loaded = await import('../support/test-database.ts');\n");
  await write('test/integration/cycle-only.test.ts', "import { c } from '../support/c.ts';\n");
  await write('test/integration/source-only.test.ts', "import { x } from '../../src/server/x.ts';\n");
  expect(integrationFilesUsingTestDatabase(scratch)).toEqual({
    using: ['test/integration/dynamic.test.ts', 'test/integration/through-two.test.ts'],
    notUsing: ['test/integration/cycle-only.test.ts', 'test/integration/source-only.test.ts'],
  });
});

it('keeps every project file that opens a database for the server run', () => {
  const { using, notUsing } = integrationFilesUsingTestDatabase(projectRoot);
  expect(using).toContain('test/integration/accounts.test.ts');
  expect(using).toContain('test/integration/engine-crash.test.ts');
  expect(using).toContain('test/integration/database-outage.test.ts');
  expect(notUsing).toContain('test/integration/embedded-database-thread.test.ts');
  expect(notUsing).toContain('test/integration/fakes.test.ts');
  // A file left out names neither the server database nor a way to open one.
  for (const file of notUsing) {
    const text = readFileSync(path.join(projectRoot, file), 'utf8');
    expect(text, file).not.toMatch(/TEST_DATABASE_URL|FLOWSMITH_TEST_DB|openDatabase|startTestApp|createTestDatabase/);
  }
});
