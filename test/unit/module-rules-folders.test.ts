import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const projectRoot = path.resolve(import.meta.dirname, '../..');

/**
 * Two-way folder dependencies in src/server: two feature folders that import each other,
 * whichever files do it. dependency-cruiser cannot say "no two folders both ways" in one
 * rule, so .dependency-cruiser.cjs forbids, one direction each, the pairs already made
 * one-way; this scan counts every pair, so the ones left (docs/architecture.md, "Module
 * rules") can only go down.
 */
type Source = { file: string; text: string };

/** The relative specifiers a module imports or re-exports, static, side-effect or dynamic. */
const importSpecifiers = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

/** The folder of src/server a path lies in, or null for the top-level files (app.ts, config.ts …) and anything outside. */
function serverFolder(file: string): string | null {
  const match = /^src\/server\/([^/]+)\//.exec(file);
  return match ? match[1]! : null;
}

/** Each pair of src/server folders that import each other, as `a ⇄ b` (a before b), with one import each way. */
function twoWayFolderPairs(sources: Source[]): string[] {
  const imports = new Map<string, string>();
  for (const { file, text } of sources) {
    const from = serverFolder(file);
    if (!from) continue;
    for (const [, specifier] of text.matchAll(importSpecifiers)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier!));
      const to = serverFolder(target);
      if (to && to !== from && !imports.has(`${from}→${to}`)) imports.set(`${from}→${to}`, `${file} → ${target}`);
    }
  }
  const pairs: string[] = [];
  for (const [edge, example] of imports) {
    const [from, to] = edge.split('→') as [string, string];
    const back = imports.get(`${to}→${from}`);
    if (from < to && back) pairs.push(`${from} ⇄ ${to} (${example}; ${back})`);
  }
  return pairs.sort();
}

async function serverSources(): Promise<Source[]> {
  const names = await readdir(path.join(projectRoot, 'src/server'), { recursive: true });
  const files = names.filter((name) => /\.tsx?$/.test(name)).map((name) => path.posix.join('src/server', name.split(path.sep).join('/')));
  return Promise.all(files.sort().map(async (file) => ({ file, text: await readFile(path.join(projectRoot, file), 'utf8') })));
}

/**
 * The pairs left when the misplaced helpers went home (docs/architecture.md lists them):
 * attribution ⇄ engine, attribution ⇄ experiments, connections ⇄ credentials, engine ⇄ events,
 * engine ⇄ flows, engine ⇄ reviews, events ⇄ intake, flows ⇄ intake. Lower it as pairs go.
 */
const remainingPairs = 8;

describe('two-way folder dependencies in src/server', () => {
  it('are found in a sample where two folders import each other, and not for one-way or top-level imports', () => {
    const pairs = twoWayFolderPairs([
      { file: 'src/server/engine/pipeline.ts', text: "import { key } from '../events/shopper-key.ts';\nimport { clock } from '../platform/clock.ts';" },
      { file: 'src/server/events/event-routes.ts', text: "import {\n  generations,\n} from '../engine/generation-queries.ts';" },
      { file: 'src/server/engine/generation-queries.ts', text: "export { now } from '../platform/clock.ts';" },
      { file: 'src/server/database/migrate.ts', text: "const functions = await import('../stored-functions.ts');" },
      { file: 'src/server/stored-functions.ts', text: "import { storeEvents } from './events/event-storage-functions.ts';\nimport './database/migrate.ts';" },
      { file: 'src/server/flows/flow-a.ts', text: "import { b } from './flow-b.ts';" },
    ]);
    expect(pairs).toEqual(['engine ⇄ events (src/server/engine/pipeline.ts → src/server/events/shopper-key.ts; src/server/events/event-routes.ts → src/server/engine/generation-queries.ts)']);
  });

  it('see dynamic and side-effect imports', () => {
    const pairs = twoWayFolderPairs([
      { file: 'src/server/background/background.ts', text: "await import('../engine/engine.ts');" },
      { file: 'src/server/engine/engine.ts', text: "import '../background/background-loop.ts';" },
    ]);
    expect(pairs).toHaveLength(1);
  });

  it(`are at most the ${remainingPairs} pairs left in the app`, async () => {
    const pairs = twoWayFolderPairs(await serverSources());
    expect(pairs.length, `two-way folder dependencies in src/server:\n${pairs.join('\n')}`).toBeLessThanOrEqual(remainingPairs);
  });
});
