/**
 * `npm run bench:engine`: events through the whole pipeline (receive, normalise, three
 * assistants, one Klaviyo write each) on one process, against the local fakes with OpenAI
 * answering every call after 1 s, on a fresh PostgreSQL database.
 *
 * Run 1: 2,000 events with the fake Klaviyo unlimited (and the app's Klaviyo limiter off,
 * as for an account with raised limits). Target ≥ 100 events/s.
 * Run 2: events with the fake enforcing Klaviyo's limits on every endpoint and the app's
 * limiter at those limits: single writes while the account's 75/s and 700/min allow, bulk
 * import jobs for the backlog beyond (docs/decisions/0020-klaviyo-batches.md); no 429 goes
 * unhandled.
 *
 * Prints events/s, peak concurrent OpenAI calls and Klaviyo writes per minute, and checks
 * that every event was delivered exactly once. Figures are printed, not asserted.
 */
import { randomUUID } from 'node:crypto';
import { klaviyoAccountLimits } from '../src/server/engine/delivery/klaviyo-rate-limiter.ts';
import type { EngineOptions } from '../src/server/engine/spine/engine.ts';
import { startFakeOpenAI } from '../test/fakes/fake-openai.ts';
import { startFakeKlaviyo } from '../test/fakes/fake-klaviyo.ts';
import { benchKeys, busiestWindow, cartEvent, countRows, formatNumber, profileWrites, sendEvents, startBenchApp } from './bench-support.ts';

const assistants = [
  { name: 'Subject Line', klaviyo_property: 'subject_line1', prompt_template: 'Write a subject line for {description}', model: null, instructions: null, fallback_text: null, max_length: null },
  { name: 'Preview', klaviyo_property: 'preview_text', prompt_template: 'Write preview text about {name} for {first_name}', model: null, instructions: null, fallback_text: null, max_length: null },
  { name: 'Body', klaviyo_property: 'body_copy', prompt_template: 'Write an email about {products}, total {total} {currency}', model: null, instructions: null, fallback_text: null, max_length: null },
];


async function run(name: string, events: number, limited: boolean): Promise<void> {
  const openai = await startFakeOpenAI({ validKeys: [benchKeys.openai], latencyMs: 1_000 });
  const klaviyo = await startFakeKlaviyo({ validKeys: [benchKeys.klaviyo], enforceRateLimits: limited });
  const engine: Partial<EngineOptions> = {
    klaviyoLimits: limited ? klaviyoAccountLimits : null,
    // BENCH_CONCURRENCY overrides the worker's jobs in flight (default 200), to see whether it is what binds.
    ...(process.env.BENCH_CONCURRENCY ? { concurrency: Number(process.env.BENCH_CONCURRENCY) } : {}),
  };
  const app = await startBenchApp({ openaiBaseUrl: openai.apiBaseUrl, klaviyoBaseUrl: klaviyo.baseUrl, flow: { flowType: 'abandoned_cart', assistants }, engine });
  const { db, flowId, warnings } = app;
  try {
    const { url } = app;
    const emails = Array.from({ length: events }, (_, index) => `bench-${index}-${randomUUID().slice(0, 8)}@shop.example`);
    const started = Date.now();
    await sendEvents(url, emails.map(cartEvent), 50);
    const received = Date.now();
    for (;;) {
      const open = await countRows(db.pool, `SELECT count(*) FROM events WHERE flow_id = $1 AND status NOT IN ('delivered', 'failed', 'skipped', 'rejected')`, [flowId]);
      if (open === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const finished = Date.now();

    const delivered = await countRows(db.pool, `SELECT count(*) FROM events WHERE flow_id = $1 AND status = 'delivered'`, [flowId]);
    // Writes Klaviyo applied, single or in bulk import jobs: a 429 (the rare one that slips
    // past the limiter's padding) changes nothing and is tried again.
    const successful = profileWrites(klaviyo.requests);
    const writesPerEmail = new Map<string, number>();
    for (const write of successful) writesPerEmail.set(write.email, (writesPerEmail.get(write.email) ?? 0) + 1);
    const throttled = klaviyo.throttledCount;
    const exactlyOnce = emails.every((email) => writesPerEmail.get(email) === 1 && klaviyo.profiles.get(email)?.properties.body_copy !== undefined);
    const seconds = (finished - started) / 1000;
    const writeTimes = successful.map((write) => write.at);

    console.log(`\n${name}: ${formatNumber(events)} events × ${assistants.length} assistants, OpenAI answering in 1 s, PostgreSQL, one process`);
    console.log(`  all received in ${formatNumber((received - started) / 1000, 1)} s; all settled in ${formatNumber(seconds, 1)} s`);
    const target = limited ? "Klaviyo's limits per account; a backlog goes in bulk import jobs" : 'target ≥ 100';
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
    await openai.close();
    await klaviyo.close();
  }
}

await run('Run 1, Klaviyo unlimited', Number(process.env.BENCH_EVENTS ?? 2_000), false);
await run("Run 2, Klaviyo's limits enforced", Number(process.env.BENCH_LIMITED_EVENTS ?? 1_000), true);
