import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const projectRoot = path.resolve(import.meta.dirname, '../..');

/**
 * pg-boss's tables are pg-boss's: jobs enter and leave through its API (`send`, `insert`,
 * `fetch`, `deleteJob`, `fail`…, background/job-queue.ts), so that an upgrade of pg-boss is
 * checked by its own changelog rather than by every query of ours. The one place that
 * reads its tables itself holds the two statements its API has no counterpart for
 * (docs/decisions/0034-stored-functions-in-modules.md); the intake's use of pg-boss's own
 * insert statement goes through `insert` too, and its shape is held by
 * test/integration/event-jobs-statement.test.ts.
 */
const theOnePlace = 'src/server/background/job-queue-queries.ts';
const statementsAllowedThere = ['deleteEventJobs', 'findEventJobBacklog'];

/** SQL naming a table (or function) of pg-boss's schema, quoted or not. */
const pgBossSql = /\bpgboss"?\s*\.\s*"?[a-z_]/i;

/** Comments may name pg-boss's tables (to say why); only code counts. */
function withoutComments(file: string, text: string): string {
  if (file.endsWith('.sql')) return text.replace(/--.*$/gm, '');
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');
}

function namesPgBossTables(file: string, text: string): boolean {
  return pgBossSql.test(withoutComments(file, text));
}

/** The top-level functions of a module whose code names pg-boss's tables. */
function functionsNamingPgBossTables(file: string, text: string): string[] {
  return withoutComments(file, text)
    .split(/^(?=export\s+(?:async\s+)?function\s)/m)
    .filter((chunk) => pgBossSql.test(chunk))
    .map((chunk) => /function\s+(\w+)/.exec(chunk)?.[1] ?? '(outside any function)');
}

async function sources(): Promise<{ file: string; text: string }[]> {
  const names = await readdir(path.join(projectRoot, 'src'), { recursive: true });
  const files = names.filter((name) => /\.(ts|tsx|sql)$/.test(name)).map((name) => path.posix.join('src', name.split(path.sep).join('/')));
  return Promise.all(files.sort().map(async (file) => ({ file, text: await readFile(path.join(projectRoot, file), 'utf8') })));
}

describe("the scan for SQL on pg-boss's tables", () => {
  it('finds a query of a pg-boss table, quoted or not, and not a comment that names one', () => {
    const violating = `// Counts what pgboss.job holds.\nexport async function countJobs(db) {\n  return db.query('SELECT count(*) FROM pgboss.job WHERE name = $1', ['process-event']);\n}`;
    expect(namesPgBossTables('src/server/dashboard/dashboard-queries.ts', violating)).toBe(true);
    expect(namesPgBossTables('src/server/x-queries.ts', 'await db.query(`DELETE FROM "pgboss"."job" WHERE id = $1`, [id]);')).toBe(true);
    expect(namesPgBossTables('src/server/database/migrations/099_x.sql', 'UPDATE pgboss.queue SET retry_limit = 3;')).toBe(true);
    expect(functionsNamingPgBossTables('src/server/dashboard/dashboard-queries.ts', violating)).toEqual(['countJobs']);

    expect(namesPgBossTables('src/server/background/database-upkeep.ts', '/* a busy table (pgboss.job) */\n// pgboss.job again\nconst schemas = ["public", "pgboss"];')).toBe(false);
    expect(namesPgBossTables('src/server/database/migrations/099_x.sql', '-- pgboss.job is pg-boss business\nSELECT 1;')).toBe(false);
  });
});

describe("the app's SQL on pg-boss's tables", () => {
  it('is only in the one place', async () => {
    const found = (await sources()).filter(({ file, text }) => namesPgBossTables(file, text)).map(({ file }) => file);
    expect(found).toEqual([theOnePlace]);
  });

  it('is there only in the statements pg-boss offers no call for', async () => {
    const text = await readFile(path.join(projectRoot, theOnePlace), 'utf8');
    expect(functionsNamingPgBossTables(theOnePlace, text).sort()).toEqual(statementsAllowedThere);
  });
});
