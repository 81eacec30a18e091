import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const projectRoot = path.resolve(import.meta.dirname, '../..');

/**
 * A page's first load has a budget of 120 KB of compressed JavaScript
 * (docs/decisions/0024-serving-pages.md), and zod with the shared schemas takes about 33 KB
 * of it. A form fetches its zod checks when it is first used
 * (src/web/app/deferred-resolver.ts), so no module a first view imports may import zod,
 * however indirectly: a constant or a message taken from a schema module brings the
 * schemas, and zod, with it.
 *
 * The modules the first views start from: the app itself, the layouts of the signed-in
 * pages, and the pages. Add a page here once it loads without zod. The flow page's
 * Settings section is here too: a flow without a webhook URL opens on it.
 */
export const firstViewEntries: readonly string[] = [
  'src/web/main.tsx',
  'src/web/auth/require-user.tsx',
  'src/web/layout/app-shell.tsx',
  'src/web/dashboard/dashboard-page.tsx',
  'src/web/credentials/api-settings-page.tsx',
  'src/web/auth/pages/login-page.tsx',
  'src/web/auth/pages/register-page.tsx',
  'src/web/reviews/review-page.tsx',
  'src/web/flows/flow-page.tsx',
  'src/web/flows/flow-settings-section.tsx',
];

/** zod itself, or one of its entry points (`zod/v4`, `zod/mini` …). */
function isZod(specifier: string): boolean {
  return specifier === 'zod' || specifier.startsWith('zod/');
}

/**
 * The specifiers of the modules a module loads when it runs: its static imports and
 * re-exports. Left out are `import type` and `export type` (erased) and `import()` (fetched
 * later, and not a statement at the top). An import whose names are all marked `type`
 * (`import { type A } from …`) still counts: with verbatimModuleSyntax it is compiled to
 * `import '…'`, and the module runs, schemas and all.
 */
export function runtimeImportsOf(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      if (statement.importClause?.isTypeOnly) continue;
      if (ts.isStringLiteral(statement.moduleSpecifier)) specifiers.push(statement.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier) {
      if (statement.isTypeOnly) continue;
      if (ts.isStringLiteral(statement.moduleSpecifier)) specifiers.push(statement.moduleSpecifier.text);
    }
  }
  return specifiers;
}

/**
 * Each module reached from `entry` (a path relative to `root`) that imports zod, as the
 * chain of importers that reaches it (`a.tsx → b.ts → c.ts imports zod`), the shortest
 * one, in the order found. Relative imports of TypeScript modules are followed; packages
 * and assets (styles) are not.
 */
export function zodChainsFrom(entry: string, root: string = projectRoot): string[] {
  const importedBy = new Map<string, string | null>([[entry, null]]);
  const queue = [entry];
  const chains: string[] = [];
  const chainTo = (file: string): string[] => {
    const importer = importedBy.get(file);
    return importer ? [...chainTo(importer), file] : [file];
  };
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const absolute = path.join(root, file);
    if (!existsSync(absolute)) throw new Error(`${chainTo(file).join(' → ')}: no such file`);
    const specifiers = runtimeImportsOf(file, readFileSync(absolute, 'utf8'));
    if (specifiers.some(isZod)) chains.push(`${chainTo(file).join(' → ')} imports zod`);
    for (const specifier of specifiers) {
      if (!specifier.startsWith('.') || !/\.tsx?$/.test(specifier)) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
      if (importedBy.has(target)) continue;
      importedBy.set(target, file);
      queue.push(target);
    }
  }
  return chains;
}

describe('the first-view import scan', () => {
  const fixture = path.join(projectRoot, 'test/fixtures/first-view-imports');

  it('finds zod reached through a module that only passes on a constant, and names the chain', () => {
    expect(zodChainsFrom('page.tsx', fixture)).toEqual([
      'page.tsx → inline-type-only.ts imports zod',
      'page.tsx → labels.ts → kind-schemas.ts imports zod',
    ]);
  });

  it('leaves out `import type`, `export type` and `import()`', () => {
    const text = [
      "import type { A } from './a.ts';",
      "import { type B, c } from './c.ts';",
      "import { type D } from './d.ts';",
      "export type { E } from './e.ts';",
      "export { f } from './f.ts';",
      "export * from './g.ts';",
      "import './styles.css';",
      "const later = () => import('./h.ts');",
    ].join('\n');
    expect(runtimeImportsOf('x.ts', text)).toEqual(['./c.ts', './d.ts', './f.ts', './g.ts', './styles.css']);
  });
});

describe("the pages' first views", () => {
  it.each(firstViewEntries)('%s reaches no module that imports zod', (entry) => {
    expect(zodChainsFrom(entry), `modules reached from ${entry} that import zod`).toEqual([]);
  });
});
