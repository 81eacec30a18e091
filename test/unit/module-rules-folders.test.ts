import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourcesUnder, type Source } from '../support/source-files.ts';

/**
 * Two-way folder dependencies in src/server: two feature folders that import each other,
 * whichever files do it. dependency-cruiser cannot say "no two folders both ways" in one
 * rule, so .dependency-cruiser.cjs forbids, one direction each, the pairs already made
 * one-way; this scan counts every pair, so the ones left (docs/architecture.md, "Module
 * rules") can only go down.
 */

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

/**
 * The layers of src/server, lowest first (docs/architecture.md, "Module rules"). A folder
 * imports from its own layer or a lower one; an import up the layers is "against the
 * layering". Within a layer the folders import each other one way only, with no cycle.
 * A new folder must be given its layer here.
 */
const layers: ReadonlyArray<{ name: string; folders: readonly string[] }> = [
  { name: 'foundations', folders: ['database', 'integrations', 'mail'] },
  { name: 'platform', folders: ['platform', 'background'] },
  {
    name: 'records',
    folders: ['generations', 'deliveries', 'flows', 'credentials', 'events', 'attribution', 'experiments', 'auth', 'alerts', 'service-conditions', 'text-checks', 'reviews'],
  },
  { name: 'engine', folders: ['engine', 'intake'] },
  {
    name: 'edges',
    folders: ['account', 'connections', 'dashboard', 'observability', 'privacy', 'realtime', 'retention', 'sandbox', 'shopify-connect', 'webhooks', 'web-pages'],
  },
];

/** Each import from a folder to a folder of a higher layer, as `from → to (layer → layer)`; a folder in no layer is reported too. */
function importsAgainstTheLayering(sources: Source[]): string[] {
  const layerOf = new Map(layers.flatMap((layer, index) => layer.folders.map((folder) => [folder, index] as const)));
  const found: string[] = [];
  for (const { file, text } of sources) {
    const from = serverFolder(file);
    if (!from) continue;
    if (!layerOf.has(from)) found.push(`${file}: src/server/${from}/ is in no layer`);
    for (const [, specifier] of text.matchAll(importSpecifiers)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier!));
      const to = serverFolder(target);
      if (!to || to === from || !layerOf.has(from) || !layerOf.has(to)) continue;
      if (layerOf.get(to)! > layerOf.get(from)!) found.push(`${file} → ${target} (${layers[layerOf.get(from)!]!.name} → ${layers[layerOf.get(to)!]!.name})`);
    }
  }
  return found.sort();
}

/** A cycle among the folders (longer than a pair), as the folders in order, or null. */
function folderCycle(sources: Source[]): string[] | null {
  const edges = new Map<string, Set<string>>();
  for (const { file, text } of sources) {
    const from = serverFolder(file);
    if (!from) continue;
    for (const [, specifier] of text.matchAll(importSpecifiers)) {
      const to = serverFolder(path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier!)));
      if (to && to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (folder: string, trail: string[]): string[] | null => {
    if (state.get(folder) === 'visiting') return [...trail.slice(trail.indexOf(folder)), folder];
    if (state.get(folder) === 'done') return null;
    state.set(folder, 'visiting');
    for (const next of edges.get(folder) ?? []) {
      const cycle = visit(next, [...trail, folder]);
      if (cycle) return cycle;
    }
    state.set(folder, 'done');
    return null;
  };
  for (const folder of [...edges.keys()].sort()) {
    const cycle = visit(folder, []);
    if (cycle) return cycle;
  }
  return null;
}

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

  it('are none in the app', async () => {
    const pairs = twoWayFolderPairs(await sourcesUnder('src/server'));
    expect(pairs, `two-way folder dependencies in src/server:\n${pairs.join('\n')}`).toEqual([]);
  });
});

describe('the layers of src/server', () => {
  it('find an import up the layers, a folder in no layer and a cycle of three folders in samples', () => {
    const sources: Source[] = [
      { file: 'src/server/platform/http-errors.ts', text: "import { flowMessages } from '../flows/flow-messages.ts';" },
      { file: 'src/server/flows/flow-queries.ts', text: "import { inTransaction } from '../database/database.ts';" },
      { file: 'src/server/gadgets/gadget.ts', text: "import { clock } from '../platform/clock.ts';" },
    ];
    expect(importsAgainstTheLayering(sources)).toEqual([
      'src/server/gadgets/gadget.ts: src/server/gadgets/ is in no layer',
      'src/server/platform/http-errors.ts → src/server/flows/flow-messages.ts (platform → records)',
    ]);
    const cycle = folderCycle([
      { file: 'src/server/events/a.ts', text: "import '../experiments/b.ts';" },
      { file: 'src/server/experiments/b.ts', text: "import '../attribution/c.ts';" },
      { file: 'src/server/attribution/c.ts', text: "import '../events/a.ts';" },
    ]);
    expect(cycle).toEqual(['attribution', 'events', 'experiments', 'attribution']);
    expect(folderCycle(sources)).toBeNull();
  });

  it('are kept by the app: no import up the layers, and no cycle among its folders', async () => {
    const sources = await sourcesUnder('src/server');
    const against = importsAgainstTheLayering(sources);
    expect(against, `imports against the layering:\n${against.join('\n')}`).toEqual([]);
    expect(folderCycle(sources)).toBeNull();
  });
});
