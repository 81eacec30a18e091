/**
 * `npm run bench:delivery`: deliveries at shop-sale scale, and what they cost.
 *
 * One process (ROLE=all), server PostgreSQL (TEST_DATABASE_URL or the local default),
 * local fakes with OpenAI answering every call after 1 s and the fake Klaviyo enforcing
 * Klaviyo's published limits on every endpoint it serves, the app's limiter on.
 *
 * Run 1, backlog: 20,000 abandoned-cart events (BENCH_EVENTS) for one Klaviyo account,
 *   sent as fast as the intake takes them, through a flow of three assistants on one model
 *   with long brand instructions and a Klaviyo event. Prints deliveries per minute
 *   (target ≥ 10,000 sustained) beside texts ready per minute (deliveries cannot run
 *   ahead of the texts; with 300 OpenAI calls at once taking 1 s each, these are the
 *   bound), OpenAI calls per event (target 1), the share of input tokens served from the
 *   prompt cache from the second event on (target ≥ 80 %), 429s (target 0 unhandled),
 *   and checks that every event was delivered exactly once.
 * Run 1b, draining: Klaviyo starts no import job until all deliveries of 20,000 events
 *   (BENCH_DRAIN_EVENTS) queue; prints how fast the queue is written once it does
 *   (target ≥ 10,000/min sustained).
 * Run 2, light load: 60 events at 2 a second; prints how long after its texts were ready
 *   each event's Klaviyo write started (target p50 ≤ 1 s).
 * Run 3, browse abandonment: 2,000 product views by 2,000 different shoppers over a
 *   50-product catalog, instructions naming no shopper; prints OpenAI calls per event
 *   (target ≤ 0.1).
 *
 * Figures are printed, not asserted.
 */
import { randomUUID } from 'node:crypto';
import type { Database } from '../src/server/database/database.ts';
import type { FlowType } from '../src/shared/flows/flow-types.ts';
import type { Assistant } from '../src/shared/flows/flow-schemas.ts';
import { startFakeOpenAI } from '../test/fakes/fake-openai.ts';
import { startFakeKlaviyo } from '../test/fakes/fake-klaviyo.ts';
import { benchKeys, busiestWindow, cartEvent, countRows, formatNumber, profileWrites, sendEvents, startBenchApp } from './bench-support.ts';

type FakeOpenAI = Awaited<ReturnType<typeof startFakeOpenAI>>;
type FakeKlaviyo = Awaited<ReturnType<typeof startFakeKlaviyo>>;

/** A brand voice long enough (well over 1,024 tokens) that prompt caching pays, as real flows' instructions are. */
const brandVoice = Array.from(
  { length: 40 },
  (_, index) =>
    `Rule ${index + 1}: write as Trailhead Outfitters, a small outdoor shop that speaks plainly and warmly, never pushy, never with exclamation marks, and always about the walk rather than the gear.`,
).join('\n');

const cartAssistants: Assistant[] = [
  { name: 'Subject Line', klaviyo_property: 'subject_line1', prompt_template: 'Write a subject line about {products}', model: null, instructions: brandVoice, fallback_text: null, max_length: null },
  { name: 'Preview', klaviyo_property: 'preview_text', prompt_template: 'Write preview text for {first_name} about {products}', model: null, instructions: brandVoice, fallback_text: null, max_length: null },
  { name: 'Body', klaviyo_property: 'body_copy', prompt_template: 'Write a short email about {products}, total {total} {currency}', model: null, instructions: brandVoice, fallback_text: null, max_length: null },
];

const browseAssistants: Assistant[] = [
  { name: 'Teaser', klaviyo_property: 'product_teaser', prompt_template: 'Write a one-line teaser for {name}: {description}', model: null, instructions: brandVoice, fallback_text: null, max_length: null },
];

function browseEvent(email: string, product: number) {
  return {
    event_id: `evt_${randomUUID()}`,
    event_type: 'product_viewed',
    timestamp: new Date().toISOString(),
    properties: {
      customer: { email, first_name: 'Bench', last_name: 'Shopper' },
      product: { id: `prod-${product}`, name: `Trail Product ${product}`, price: 40 + product, description: `The ${product}th piece of our trail range.` },
      page_url: `https://bench-shop.example/products/${product}`,
      time_spent: 120,
    },
  };
}

const moderationLatencyMs = Number(process.env.BENCH_MODERATION_LATENCY_MS ?? 300);

function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? NaN;
}

interface Harness {
  db: Database;
  openai: FakeOpenAI;
  klaviyo: FakeKlaviyo;
  flowId: string;
  url: string;
  warnings: string[];
  close(): Promise<void>;
}

async function startHarness(flow: { flowType: FlowType; assistants: Assistant[]; klaviyoEventName?: string }): Promise<Harness> {
  // A model writes for about a second; OpenAI's moderation of a batch of texts answers in a
  // fraction of that (an assumption, not a measurement: BENCH_MODERATION_LATENCY_MS sets it).
  const openai = await startFakeOpenAI({ validKeys: [benchKeys.openai], latencyMs: 1_000, moderationLatencyMs: moderationLatencyMs });
  const klaviyo = await startFakeKlaviyo({ validKeys: [benchKeys.klaviyo], enforceRateLimits: true });
  // One text per shopper a day (the cooldown) would skip the repeat shoppers of a large run.
  const app = await startBenchApp({ openaiBaseUrl: openai.apiBaseUrl, klaviyoBaseUrl: klaviyo.baseUrl, flow, shopperCooldown: false });
  return {
    db: app.db,
    openai,
    klaviyo,
    flowId: app.flowId,
    url: app.url,
    warnings: app.warnings,
    async close() {
      await app.close();
      await openai.close();
      await klaviyo.close();
    },
  };
}

async function settled(harness: Harness, timeoutMs: number): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    const open = await countRows(harness.db.pool, `SELECT count(*) FROM events WHERE flow_id = $1 AND status NOT IN ('delivered', 'failed', 'skipped', 'rejected')`, [harness.flowId]);
    if (open === 0 || Date.now() > giveUpAt) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function generationTotals(db: Database, flowId: string) {
  const { rows } = await db.pool.query<{ input: string; cached: string; later_input: string; later_cached: string; reused: string; rows: string }>(
    `WITH ranked AS (
       SELECT g.*, rank() OVER (ORDER BY g.created_at) AS position
         FROM event_generations g JOIN events e ON e.id = g.event_id WHERE e.flow_id = $1)
     SELECT coalesce(sum(input_tokens), 0) AS input, coalesce(sum(cached_input_tokens), 0) AS cached,
            coalesce(sum(input_tokens) FILTER (WHERE position > 3), 0) AS later_input,
            coalesce(sum(cached_input_tokens) FILTER (WHERE position > 3), 0) AS later_cached,
            count(*) FILTER (WHERE reused) AS reused, count(*) AS rows
       FROM ranked`,
    [flowId],
  );
  const row = rows[0]!;
  return { input: Number(row.input), cached: Number(row.cached), laterInput: Number(row.later_input), laterCached: Number(row.later_cached), reused: Number(row.reused), rows: Number(row.rows) };
}

async function backlogRun(events: number): Promise<void> {
  const harness = await startHarness({ flowType: 'abandoned_cart', assistants: cartAssistants, klaviyoEventName: 'AI content ready' });
  try {
    const emails = Array.from({ length: events }, (_, index) => `bench-${index}-${randomUUID().slice(0, 8)}@shop.example`);
    // The process's memory at its peak (the app and the stand-ins share it), sampled every 250 ms.
    let peakRss = process.memoryUsage().rss;
    const sampling = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 250);
    const started = Date.now();
    await sendEvents(harness.url, emails.map(cartEvent), 50);
    const received = Date.now();
    await settled(harness, 30 * 60_000);
    const finished = Date.now();
    clearInterval(sampling);
    const delivered = await countRows(harness.db.pool, `SELECT count(*) FROM events WHERE flow_id = $1 AND status = 'delivered'`, [harness.flowId]);
    const deliveriesPerEvent = await countRows(
      harness.db.pool,
      `SELECT count(*) FROM (SELECT d.event_id FROM event_deliveries d JOIN events e ON e.id = d.event_id
         WHERE e.flow_id = $1 AND d.status = 'delivered' GROUP BY d.event_id HAVING count(*) > 1) twice`,
      [harness.flowId],
    );
    const writes = profileWrites(harness.klaviyo.requests);
    const writesPerEmail = new Map<string, number>();
    for (const write of writes) writesPerEmail.set(write.email, (writesPerEmail.get(write.email) ?? 0) + 1);
    const missing = emails.filter((email) => harness.klaviyo.profiles.get(email)?.properties.body_copy === undefined).length;
    // A bulk job posted again after a failure writes the same properties once more (Klaviyo's import is idempotent).
    const rewritten = emails.filter((email) => (writesPerEmail.get(email) ?? 0) > 1).length;
    const klaviyoEvents = new Map<string, number>();
    for (const event of harness.klaviyo.events) klaviyoEvents.set(event.email ?? '', (klaviyoEvents.get(event.email ?? '') ?? 0) + 1);
    const eventsNotOnce = emails.filter((email) => klaviyoEvents.get(email) !== 1).length;
    const exactlyOnce = deliveriesPerEvent === 0 && missing === 0 && eventsNotOnce === 0;
    const writeTimes = writes.map((write) => write.at);
    const firstWrite = Math.min(...writeTimes);
    const lastWrite = Math.max(...writeTimes);
    const deliverySpanMinutes = Math.max(lastWrite - firstWrite, 1) / 60_000;
    const tokens = await generationTotals(harness.db, harness.flowId);
    const calls = harness.openai.responsesServed;
    // When each event's texts were all ready: deliveries cannot run ahead of these.
    const { rows: readyRows } = await harness.db.pool.query<{ ready: Date }>(
      `SELECT max(g.created_at) AS ready FROM event_generations g JOIN events e ON e.id = g.event_id WHERE e.flow_id = $1 GROUP BY g.event_id`,
      [harness.flowId],
    );
    const readyTimes = readyRows.map((row) => row.ready.getTime());
    const readySpanMinutes = Math.max(Math.max(...readyTimes) - Math.min(...readyTimes), 1) / 60_000;

    console.log(`\nRun 1, backlog: ${formatNumber(events)} events × ${cartAssistants.length} assistants on one model, one Klaviyo account, Klaviyo's limits enforced`);
    console.log(`  all received in ${formatNumber((received - started) / 1000, 1)} s; all settled in ${formatNumber((finished - started) / 1000, 1)} s`);
    console.log(
      `  deliveries         ${formatNumber(delivered / deliverySpanMinutes)}/min from the first Klaviyo write to the last; busiest minute ${formatNumber(busiestWindow(writeTimes, 60_000))} (target ≥ 10,000/min)`,
    );
    console.log(
      `  texts ready        ${formatNumber(readyTimes.length / readySpanMinutes)}/min from the first event's texts to the last; busiest minute ${formatNumber(busiestWindow(readyTimes, 60_000))} (deliveries follow these: writing is not the bound when the two match; run 1b measures writing alone)`,
    );
    console.log(`  OpenAI calls       ${formatNumber(calls)}, ${formatNumber(calls / events, 2)} per event (target 1), peak ${formatNumber(harness.openai.peakInFlight)} at once`);
    console.log(
      `  cached input       ${formatNumber((tokens.laterCached / Math.max(tokens.laterInput, 1)) * 100, 1)} % of input tokens from the second event on (target ≥ 80 %); ${formatNumber((tokens.cached / Math.max(tokens.input, 1)) * 100, 1)} % overall`,
    );
    console.log(`  429 answers        ${harness.klaviyo.throttledCount} from Klaviyo (each waited for and retried)`);
    console.log(`  memory             ${formatNumber(peakRss / 1024 / 1024)} MB at its peak (resident, the app with the stand-ins)`);
    console.log(`  delivered          ${formatNumber(delivered)} of ${formatNumber(events)}; every event delivered exactly once: ${exactlyOnce ? 'yes' : 'NO'}`);
    console.log(
      `                     (events delivered twice ${deliveriesPerEvent}, profiles without their texts ${missing}, Klaviyo events not exactly once ${eventsNotOnce}; profiles imported again after a failed job ${rewritten})`,
    );
    const warnings = new Map<string, number>();
    for (const line of harness.warnings) {
      const error = /"err":\{"type":"[^"]*","message":"([^"]{0,120})/.exec(line)?.[1];
      const message = `${/"msg":"([^"]*)"/.exec(line)?.[1] ?? line.slice(0, 80)}${error ? ` (${error})` : ''}`;
      warnings.set(message, (warnings.get(message) ?? 0) + 1);
    }
    for (const [message, count] of warnings) console.log(`  warning ×${count}: ${message}`);
  } finally {
    await harness.close();
  }
}

/**
 * Run 1b: how fast one account's backlog drains once Klaviyo takes it. Klaviyo accepts
 * import jobs but starts none (an account whose imports wait behind others) until every
 * event's texts are written and its delivery queued; then it works as usual, and the
 * whole queue is written: the sustained rate is the queue over the time from the
 * release to the last event marked delivered.
 */
async function drainRun(events: number): Promise<void> {
  const harness = await startHarness({ flowType: 'abandoned_cart', assistants: cartAssistants, klaviyoEventName: 'AI content ready' });
  try {
    const release = harness.klaviyo.holdImportJobs();
    const emails = Array.from({ length: events }, (_, index) => `drain-${index}-${randomUUID().slice(0, 8)}@shop.example`);
    await sendEvents(harness.url, emails.map(cartEvent), 50);
    const giveUpAt = Date.now() + 20 * 60_000;
    let waiting = 0;
    for (;;) {
      waiting = await countRows(harness.db.pool, `SELECT count(*) FROM events WHERE flow_id = $1 AND status = 'delivering'`, [harness.flowId]);
      const open = await countRows(harness.db.pool, `SELECT count(*) FROM events WHERE flow_id = $1 AND status IN ('received', 'waiting', 'generating')`, [harness.flowId]);
      if (open === 0 || Date.now() > giveUpAt) break;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    const releasedAt = new Date();
    release();
    await settled(harness, 15 * 60_000);
    const { rows } = await harness.db.pool.query<{ delivered: string; last: Date | null }>(
      `SELECT count(*) AS delivered, max(finished_at) AS last FROM events WHERE flow_id = $1 AND status = 'delivered' AND finished_at >= $2`,
      [harness.flowId, releasedAt],
    );
    const drained = Number(rows[0]!.delivered);
    const spanMs = Math.max((rows[0]!.last?.getTime() ?? releasedAt.getTime()) - releasedAt.getTime(), 1);
    const posts = harness.klaviyo.requests.filter((request) => request.method === 'POST' && request.path === '/api/profile-bulk-import-jobs' && request.status === 202);
    const delivered = await countRows(harness.db.pool, `SELECT count(*) FROM events WHERE flow_id = $1 AND status = 'delivered'`, [harness.flowId]);
    console.log(`\nRun 1b, draining a backlog: ${formatNumber(events)} events; Klaviyo starts no import job until all ${formatNumber(waiting)} deliveries wait`);
    console.log(
      `  drained            ${formatNumber(drained)} deliveries in ${formatNumber(spanMs / 1000, 1)} s from Klaviyo starting to the last marked delivered: ${formatNumber((drained / spanMs) * 60_000)}/min sustained (target ≥ 10,000/min), in ${posts.length} import jobs`,
    );
    console.log(`  delivered          ${formatNumber(delivered)} of ${formatNumber(events)}; 429 answers ${harness.klaviyo.throttledCount}`);
  } finally {
    await harness.close();
  }
}

async function lightRun(events: number): Promise<void> {
  const harness = await startHarness({ flowType: 'abandoned_cart', assistants: cartAssistants });
  try {
    const emails = Array.from({ length: events }, (_, index) => `light-${index}-${randomUUID().slice(0, 8)}@shop.example`);
    await sendEvents(harness.url, emails.map(cartEvent), 1, 500);
    await settled(harness, 5 * 60_000);
    // When each event's last text was stored, by the database's clock (same machine).
    const { rows } = await harness.db.pool.query<{ email: string; ready: Date }>(
      `SELECT e.shopper_email AS email, max(g.created_at) AS ready FROM events e JOIN event_generations g ON g.event_id = e.id
        WHERE e.flow_id = $1 AND e.status = 'delivered' GROUP BY e.shopper_email`,
      [harness.flowId],
    );
    const writeAt = new Map(profileWrites(harness.klaviyo.requests).map((write) => [write.email.toLowerCase(), write.at]));
    const lags = rows.flatMap((row) => (writeAt.has(row.email) ? [writeAt.get(row.email)! - row.ready.getTime()] : []));
    console.log(`\nRun 2, light load: ${formatNumber(events)} events at 2 a second`);
    console.log(
      `  texts ready → Klaviyo write: p50 ${formatNumber(percentile(lags, 0.5))} ms, p90 ${formatNumber(percentile(lags, 0.9))} ms, max ${formatNumber(Math.max(...lags))} ms over ${lags.length} events (target p50 ≤ 1,000 ms)`,
    );
  } finally {
    await harness.close();
  }
}

async function browseRun(events: number, products: number): Promise<void> {
  const harness = await startHarness({ flowType: 'browser_abandonment', assistants: browseAssistants });
  try {
    const bodies = Array.from({ length: events }, (_, index) => browseEvent(`viewer-${index}-${randomUUID().slice(0, 8)}@shop.example`, index % products));
    await sendEvents(harness.url, bodies, 50);
    await settled(harness, 10 * 60_000);
    const delivered = await countRows(harness.db.pool, `SELECT count(*) FROM events WHERE flow_id = $1 AND status = 'delivered'`, [harness.flowId]);
    const tokens = await generationTotals(harness.db, harness.flowId);
    const calls = harness.openai.responsesServed;
    console.log(`\nRun 3, browse abandonment: ${formatNumber(events)} views by ${formatNumber(events)} shoppers over ${products} products, instructions naming no shopper`);
    console.log(`  OpenAI calls       ${formatNumber(calls)}, ${formatNumber(calls / events, 3)} per event (target ≤ 0.1); ${formatNumber(tokens.reused)} texts reused`);
    console.log(`  delivered          ${formatNumber(delivered)} of ${formatNumber(events)}`);
  } finally {
    await harness.close();
  }
}

// BENCH_RUNS=1b,3 runs only those runs (all four by default).
console.log(`Stand-in OpenAI: 1,000 ms to write, ${moderationLatencyMs} ms to moderate a batch of texts`);
const runs = new Set((process.env.BENCH_RUNS ?? '1,1b,2,3').split(','));
if (runs.has('1')) await backlogRun(Number(process.env.BENCH_EVENTS ?? 20_000));
if (runs.has('1b')) await drainRun(Number(process.env.BENCH_DRAIN_EVENTS ?? 20_000));
if (runs.has('2')) await lightRun(Number(process.env.BENCH_LIGHT_EVENTS ?? 60));
if (runs.has('3')) await browseRun(Number(process.env.BENCH_BROWSE_EVENTS ?? 2_000), 50);
