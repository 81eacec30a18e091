import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Which integration test files open the test database (test-database.ts), through any
 * chain of the tests' own imports. Only those run a second time on server PostgreSQL
 * (FLOWSMITH_TEST_DB=server): the others (the embedded database's own tests, the
 * stand-ins' checks) do the same work in both runs, and the second run of them cost about
 * 70 s of a core in every CI run (docs/decisions/0060-cheaper-password-hashing-in-tests.md).
 *
 * Read from the sources with a plain scan of relative imports, so vitest's configuration
 * can use it before anything is compiled. The project's sources never import test code,
 * so the walk stays inside test/.
 */
const testDatabaseModule = 'test/support/test-database.ts';
const relativeImport = /(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+\.tsx?)'/g;

export function integrationFilesUsingTestDatabase(projectRoot: string): { using: string[]; notUsing: string[] } {
  const folder = path.join(projectRoot, 'test/integration');
  const files = readdirSync(folder, { recursive: true })
    .map(String)
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => path.posix.join('test/integration', name.split(path.sep).join('/')))
    .sort();
  const importsOf = new Map<string, string[]>();
  const directImports = (file: string): string[] => {
    let imports = importsOf.get(file);
    if (!imports) {
      const text = file.startsWith('test/') && existsSync(path.join(projectRoot, file)) ? readFileSync(path.join(projectRoot, file), 'utf8') : '';
      imports = [...text.matchAll(relativeImport)].map((match) => path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1]!)));
      importsOf.set(file, imports);
    }
    return imports;
  };
  const reachesTestDatabase = (start: string): boolean => {
    const seen = new Set([start]);
    const next = [start];
    for (let file = next.pop(); file !== undefined; file = next.pop()) {
      if (file === testDatabaseModule) return true;
      for (const imported of directImports(file)) {
        if (seen.has(imported)) continue;
        seen.add(imported);
        next.push(imported);
      }
    }
    return false;
  };
  const using = files.filter((file) => reachesTestDatabase(file));
  return { using, notUsing: files.filter((file) => !using.includes(file)) };
}
