/**
 * `npm run bench:engine`: events through the whole pipeline (receive, normalise, three
 * assistants, one Klaviyo write each) on one process, against the local fakes with OpenAI
 * answering every call after 1 s, on a fresh PostgreSQL database.
 *
 * Run 1: 2,000 events with the fake Klaviyo unlimited (and the app's Klaviyo limiter off,
 * as for an account with raised limits). Target ≥ 100 events/s.
 * Run 2: events with the fake enforcing Klaviyo's limits (75/s, 700/min per account) and
 * the app's limiter at those limits: throughput sits at the limit, no 429 goes unhandled.
 *
 * Prints events/s, peak concurrent OpenAI calls and Klaviyo writes per minute, and checks
 * that every event was delivered exactly once. Figures are printed, not asserted.
 */
import { Writable } from 'node:stream';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { buildApp } from '../src/server/app.ts';
import { loadConfig } from '../src/server/config.ts';
import { openDatabase } from '../src/server/database/database.ts';
import { createLogger } from '../src/server/logger.ts';
import { createMailer } from '../src/server/mail/mailer.ts';
import { createCredentialCipher, parseCredentialsKey } from '../src/server/credentials/credential-cipher.ts';
import { klaviyoAccountLimits } from '../src/server/engine/klaviyo-rate-limiter.ts';
import type { EngineOptions } from '../src/server/engine/engine.ts';
import { startFakeOpenAI } from '../test/fakes/fake-openai.ts';
import { startFakeKlaviyo } from '../test/fakes/fake-klaviyo.ts';
import { benchKeys, countRows, createBenchDatabase, formatNumber, freePort, seedOwnerWithFlow } from './bench-support.ts';

const assistants = [
  { name: 'Subject Line', klaviyo_property: 'subject_line1', prompt_template: 'Write a subject line for {description}', model: null, instructions: null },
  { name: 'Preview', klaviyo_property: 'preview_text', prompt_template: 'Write preview text about {name} for {first_name}', model: null, instructions: null },
  { name: 'Body', klaviyo_property: 'body_copy', prompt_template: 'Write an email about {products}, total {total} {currency}', model: null, instructions: null },
];

function cartEvent(email: string) {
  return {
    event_id: `evt_${randomUUID()}`,
    event_type: 'cart_abandoned',
    timestamp: new Date().toISOString(),
    properties: {
      customer: { email, first_name: 'Bench', last_name: 'Shopper' },
      cart_id: randomUUID(),
      products: [
        { id: 'p1', name: 'Trail Shoe', price: 89.5, quantity: 1, description: 'A light trail running shoe' },
        { id: 'p2', name: 'Wool Socks', price: 12, quantity: 2, description: 'Merino socks' },
      ],
      total: 113.5,
      currency: 'USD',
      abandoned_at: new Date().toISOString(),
    },
  };
}

/** The most requests in any window of `windowMs` ending at one of them. */
function busiestWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let busiest = 0;
  for (let start = 0, end = 0; end < sorted.length; end += 1) {
    while (sorted[end]! - sorted[start]! >= windowMs) start += 1;
    busiest = Math.max(busiest, end - start + 1);
  }
  return busiest;
}

async function run(name: string, events: number, limited: boolean): Promise<void> {
  const openai = await startFakeOpenAI({ validKeys: [benchKeys.openai], latencyMs: 1_000 });
  const klaviyo = await startFakeKlaviyo({ validKeys: [benchKeys.klaviyo], enforceRateLimits: limited });
  const database = await createBenchDatabase();
  const db = await openDatabase({ databaseUrl: database.url, dataDir: null, poolSize: 30 });
  const port = await freePort();
  const config = loadConfig({
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATABASE_URL: database.url,
    DATA_DIR: path.resolve('.tmp/bench-data'),
    OPENAI_BASE_URL: openai.apiBaseUrl,
    KLAVIYO_BASE_URL: klaviyo.baseUrl,
    ROLE: 'all',
  });
  const warnings: string[] = [];
  const logger = createLogger('warn', new Writable({ write: (chunk: Buffer, _encoding, done) => (warnings.push(chunk.toString()), done()) }));
  const engine: Partial<EngineOptions> = {
    klaviyoLimits: limited ? klaviyoAccountLimits : null,
    // BENCH_CONCURRENCY overrides the worker's jobs in flight (default 200), to see whether it is what binds.
    ...(process.env.BENCH_CONCURRENCY ? { concurrency: Number(process.env.BENCH_CONCURRENCY) } : {}),
  };
  const app = await buildApp({
    config,
    database: db,
    logger,
    mailer: createMailer({ smtpUrl: undefined, mailFrom: config.mailFrom, outboxDir: path.resolve('.tmp/bench-data/outbox'), logger }),
    authSecret: 'bench-secret-that-is-long-enough-for-signing',
    credentialCipher: createCredentialCipher(parseCredentialsKey(benchKeys.credentialsKey)),
    engine,
  });
  const { flowId } = await seedOwnerWithFlow(db.pool, { flowType: 'abandoned_cart', assistants });
  // The flow's daily cap (2,000 by default) would skip part of a larger run.
  await db.pool.query('UPDATE flows SET daily_generation_cap = 1000000 WHERE id = $1', [flowId]);
  await app.listen({ port, host: '127.0.0.1' });
  try {
    const url = `http://127.0.0.1:${port}/api/webhooks/abandoned_cart/${flowId}`;
    const emails = Array.from({ length: events }, (_, index) => `bench-${index}-${randomUUID().slice(0, 8)}@shop.example`);
    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (next < emails.length) {
          const email = emails[next++]!;
          const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(cartEvent(email)) });
          if (response.status !== 202) throw new Error(`webhook answered ${response.status}: ${await response.text()}`);
        }
      }),
    );
    const received = Date.now();
    for (;;) {
      const open = await countRows(db.pool, `SELECT count(*) FROM events WHERE flow_id = $1 AND status NOT IN ('delivered', 'failed', 'skipped', 'rejected')`, [flowId]);
      if (open === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const finished = Date.now();

    const delivered = await countRows(db.pool, `SELECT count(*) FROM events WHERE flow_id = $1 AND status = 'delivered'`, [flowId]);
    const writes = klaviyo.requests.filter((request) => request.path === '/api/profile-import');
    // Writes Klaviyo applied: a 429 (the rare one that slips past the limiter's padding) changes nothing and is tried again.
    const successful = writes.filter((request) => request.status !== null && request.status < 300);
    const writesPerEmail = new Map<string, number>();
    for (const request of successful) {
      const email = (request.body as any).data.attributes.email as string;
      writesPerEmail.set(email, (writesPerEmail.get(email) ?? 0) + 1);
    }
    const throttled = klaviyo.throttledCount;
    const exactlyOnce = emails.every((email) => writesPerEmail.get(email) === 1 && klaviyo.profiles.get(email)?.properties.body_copy !== undefined);
    const seconds = (finished - started) / 1000;
    const writeTimes = successful.map((request) => request.receivedAt);

    console.log(`\n${name}: ${formatNumber(events)} events × ${assistants.length} assistants, OpenAI answering in 1 s, PostgreSQL, one process`);
    console.log(`  all received in ${formatNumber((received - started) / 1000, 1)} s; all settled in ${formatNumber(seconds, 1)} s`);
    const target = limited ? "Klaviyo's 700/min steady and 75/s burst per account bound it" : 'target ≥ 100';
    console.log(`  throughput         ${formatNumber(events / seconds, 1)} events/s (${target})`);
    console.log(`  OpenAI calls       ${formatNumber(openai.responsesServed)}, peak ${formatNumber(openai.peakInFlight)} at once`);
    console.log(
      `  Klaviyo writes     ${formatNumber(successful.length)}; busiest second ${busiestWindow(writeTimes, 1_000)}, busiest minute ${busiestWindow(writeTimes, 60_000)}, average ${formatNumber((successful.length / seconds) * 60)}/min`,
    );
    console.log(`  429 answers        ${throttled} (each retried after its Retry-After)`);
    console.log(`  delivered          ${formatNumber(delivered)} of ${formatNumber(events)}; every event written exactly once: ${exactlyOnce ? 'yes' : 'NO'}`);
    if (warnings.length > 0) console.log(`  ${warnings.length} warning log lines, first: ${warnings[0]!.slice(0, 300)}`);
  } finally {
    await app.close();
    await db.close();
    await database.drop();
    await openai.close();
    await klaviyo.close();
  }
}

await run('Run 1, Klaviyo unlimited', Number(process.env.BENCH_EVENTS ?? 2_000), false);
await run("Run 2, Klaviyo's limits enforced", Number(process.env.BENCH_LIMITED_EVENTS ?? 1_000), true);
