import { describe, expect, it } from 'vitest';
import { sourcesUnder, type Source } from '../support/source-files.ts';

/**
 * One home for background work (docs/decisions/0036-background-work.md): only
 * src/server/background/ starts timers and loops that outlive an operation. Everything
 * else that repeats goes through its loop helper (background-loop.ts) and is started, per
 * role, by its one list of parts; so a web process cannot start worker work by accident,
 * and "run again if asked meanwhile" is written once.
 *
 * Found in the source text of src/server:
 * - `setInterval`: a repeating timer;
 * - `setTimeout`: one-shot timers are fine inside a single operation, in the files listed
 *   below with why; anywhere else one is a hand-made loop or wake-up in the making;
 * - a loop that runs until the process stops (`while (!this.stopping)` and the like): a
 *   polling loop.
 */
const backgroundHome = /^src\/server\/background\//;

/**
 * setInterval outside the home: the live stream's comment line keeps one response open
 * (proxies close idle ones); it lives and ends with that response, not with the process.
 */
const allowedIntervals = [/^src\/server\/realtime\/realtime-routes\.ts$/];

/** setTimeout outside the home, each a one-shot inside one operation. */
const allowedTimeouts = [
  // The embedded database: a deadline on starting and stopping its thread, a pause while a
  // client's socket drains, and the limit on an idle open transaction of one connection.
  /^src\/server\/database\/embedded-postgres\.ts$/,
  /^src\/server\/database\/embedded-wire-server\.ts$/,
  // A wait for the database with a deadline (readiness).
  /^src\/server\/database\/database\.ts$/,
  // The clock's sleep, which retries and rate-limit waits call.
  /^src\/server\/platform\/clock\.ts$/,
  // The end of one scrape: gauges of the same scrape share one read of the database.
  /^src\/server\/observability\/metrics\.ts$/,
  // Stopping: how long the jobs in flight, and the queued bulk deliveries, are waited for.
  /^src\/server\/engine\/delivery\/klaviyo-batches\.ts$/,
  // The few milliseconds one batch of profile look-ups gathers before it is sent.
  /^src\/server\/engine\/shop-facts\/known-shoppers\.ts$/,
  // Likewise for one batch of texts for OpenAI's moderation.
  /^src\/server\/engine\/checking\/moderation-batcher\.ts$/,
  // The pause before listening again after a lost LISTEN connection (the poll carries on meanwhile).
  /^src\/server\/realtime\/change-feed\.ts$/,
  // The process's entry: the forced exit of a shutdown that hangs, and the pause before asking a starting database again.
  /^src\/server\/main\.ts$/,
];

const startsInterval = /\bsetInterval\s*\(/;
const startsTimeout = /\bsetTimeout\s*\(/;
const loopsUntilStopped = /\bwhile\s*\(\s*!\s*(?:this\.)?\w*(?:stop|clos|shut)\w*\s*\)/i;

/** Each file outside the home that starts background work itself, with what it starts. */
function backgroundWorkOutsideItsHome(sources: Source[]): string[] {
  const found: string[] = [];
  for (const { file, text } of sources) {
    if (backgroundHome.test(file)) continue;
    const allowed = (patterns: RegExp[]) => patterns.some((pattern) => pattern.test(file));
    if (startsInterval.test(text) && !allowed(allowedIntervals)) found.push(`${file}: setInterval`);
    if (startsTimeout.test(text) && !allowed(allowedTimeouts)) found.push(`${file}: setTimeout`);
    if (loopsUntilStopped.test(text)) found.push(`${file}: a loop until stopped`);
  }
  return found;
}

describe('the background scan', () => {
  it('finds repeating timers, unlisted one-shot timers and loops until stopped outside src/server/background/', () => {
    const violating: Source[] = [
      { file: 'src/server/retention/retention.ts', text: 'timer = setInterval(tick, options.intervalMs);' },
      { file: 'src/server/engine/spine/engine.ts', text: 'const timer = setTimeout(() => sweep(), delayMs);' },
      { file: 'src/server/engine/event-jobs.ts', text: 'while (!this.stopping) {\n  await this.idle(1000);\n}' },
      { file: 'src/server/privacy/privacy-work.ts', text: 'while ( !stopped ) await drain();' },
    ];
    expect(backgroundWorkOutsideItsHome(violating)).toEqual([
      'src/server/retention/retention.ts: setInterval',
      'src/server/engine/spine/engine.ts: setTimeout',
      'src/server/engine/event-jobs.ts: a loop until stopped',
      'src/server/privacy/privacy-work.ts: a loop until stopped',
    ]);
  });

  it('passes the same inside src/server/background/, and a listed one-shot timer elsewhere', () => {
    const clean: Source[] = [
      { file: 'src/server/background/background-loop.ts', text: 'const timer = setTimeout(run, delayMs); while (!this.stopped) {}' },
      { file: 'src/server/background/other-loop.ts', text: 'setInterval(run, 1000);' },
      { file: 'src/server/platform/clock.ts', text: "import { setTimeout as delay } from 'node:timers/promises'; await delay(ms);" },
      { file: 'src/server/engine/shop-facts/known-shoppers.ts', text: 'started.timer = setTimeout(() => send(), GATHER_MS);' },
      { file: 'src/server/realtime/realtime-routes.ts', text: 'const heartbeat = setInterval(() => write(), HEARTBEAT_MS);' },
    ];
    expect(backgroundWorkOutsideItsHome(clean)).toEqual([]);
  });
});

describe("the app's background work", () => {
  it('starts timers and loops only in src/server/background/, and one-shot timers only where listed', async () => {
    expect(backgroundWorkOutsideItsHome(await sourcesUnder('src/server'))).toEqual([]);
  });
});
