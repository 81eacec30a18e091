/**
 * `npm run bench:ingest`: how fast Flowsmith acknowledges signed Shopify webhooks, in the
 * two ways it runs, beside the least a receiver can do, all in one run.
 *
 * 1. The embedded default, as `npm start` runs it: the real server (src/server/main.ts,
 *    ROLE=all, so the worker processes the events meanwhile against local fakes of OpenAI
 *    and Klaviyo) on embedded PostgreSQL in a fresh data directory.
 * 2. Server PostgreSQL: the real server with ROLE=web (it stores and queues; workers would
 *    run elsewhere) on a fresh database.
 * 3. The baseline: a bare Fastify server that verifies the HMAC and inserts the body, on
 *    the same server database.
 *
 * Each gets ~2 KB signed `orders/create` webhooks from 100 connections for 10 s
 * (autocannon), each with its own webhook and event ids; 2 and 3 take turns in slices of
 * that time (serverRuns), so their ratio is of the same moments. Prints accepted/s and latency,
 * checks that every 2xx answer is a stored event with its job, and prints the ratios.
 * Targets: embedded ≥ 75 % of server with p99 < 100 ms; server ≥ 85 % of the baseline.
 * Runs BENCH_ROUNDS rounds (3) of all three and prints the median of the ratios taken
 * within each round. Figures are printed, not asserted; a 2xx that is not a stored event
 * with its job fails the run.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { openDatabase } from '../src/server/database/database.ts';
import { storedFunctions } from '../src/server/stored-functions.ts';
import { signShopifyBody } from '../src/server/intake/shopify-signature.ts';
import { startFakeOpenAI } from '../test/fakes/fake-openai.ts';
import { startFakeKlaviyo } from '../test/fakes/fake-klaviyo.ts';
import { startFakeShopify } from '../test/fakes/fake-shopify.ts';
import { benchKeys, countRows, createBenchDatabase, formatNumber, freePort, seedOwnerWithFlow, startProcess } from './bench-support.ts';

const connections = Number(process.env.BENCH_CONNECTIONS ?? 100);
const durationSeconds = Number(process.env.BENCH_SECONDS ?? 10);
const slices = Math.max(1, Number(process.env.BENCH_SLICES ?? 4));
const sliceSeconds = durationSeconds / slices;

function orderBody(orderId: string): string {
  const lineItems = Array.from({ length: 4 }, (_, index) => ({
    id: 1000 + index,
    product_id: 7000 + index,
    variant_id: 9000 + index,
    title: `Merino Trail Sock ${index}`,
    variant_title: 'Large / Charcoal',
    sku: `SOCK-${index}-L-CH`,
    price: '14.00',
    quantity: 2,
    vendor: 'Bench Outfitters',
    requires_shipping: true,
    taxable: true,
    grams: 120,
  }));
  return JSON.stringify({
    id: orderId,
    admin_graphql_api_id: `gid://shopify/Order/${orderId}`,
    email: `shopper-${orderId}@example.com`,
    contact_email: `shopper-${orderId}@example.com`,
    created_at: new Date().toISOString(),
    currency: 'USD',
    presentment_currency: 'USD',
    total_price: '112.00',
    subtotal_price: '112.00',
    total_tax: '0.00',
    checkout_token: randomUUID().replace(/-/g, ''),
    cart_token: randomUUID().replace(/-/g, ''),
    order_status_url: `https://bench-shop.myshopify.com/orders/${orderId}/authenticate`,
    customer: { id: 555, email: `shopper-${orderId}@example.com`, first_name: 'Bench', last_name: 'Shopper', accepts_marketing: true },
    billing_address: { first_name: 'Bench', last_name: 'Shopper', address1: '1 Main St', city: 'Springfield', province: 'Illinois', zip: '62701', country: 'United States' },
    shipping_address: { first_name: 'Bench', last_name: 'Shopper', address1: '1 Main St', city: 'Springfield', province: 'Illinois', zip: '62701', country: 'United States' },
    line_items: lineItems,
    note: null,
    tags: 'bench',
  });
}

/** Signed `orders/create` webhooks, each with its own order, webhook and event ids. */
function signedOrders(): autocannon.Request[] {
  let sequence = 0;
  return [
    {
      method: 'POST',
      setupRequest: (request) => {
        sequence += 1;
        const body = orderBody(`${Date.now()}${sequence}`);
        return {
          ...request,
          body,
          headers: {
            'content-type': 'application/json',
            'x-shopify-topic': 'orders/create',
            'x-shopify-hmac-sha256': signShopifyBody(body, benchKeys.signingSecret),
            'x-shopify-shop-domain': 'bench-shop.myshopify.com',
            'x-shopify-api-version': '2026-10',
            'x-shopify-webhook-id': randomUUID(),
            'x-shopify-event-id': randomUUID(),
            'x-shopify-triggered-at': new Date().toISOString(),
          },
        };
      },
    },
  ];
}

/** The load of one run: `seconds` of signed webhooks from every connection. */
function hammer(url: string, seconds: number): Promise<autocannon.Result> {
  return autocannon({ url, connections, duration: seconds, requests: signedOrders() });
}

/** A short warm-up (JIT, connection pools), not counted, then the measured run. */
async function load(url: string): Promise<{ warmup: autocannon.Result; result: autocannon.Result }> {
  const warmup = await hammer(url, 2);
  return { warmup, result: await hammer(url, durationSeconds) };
}

function summary(name: string, result: autocannon.Result) {
  const accepted = result['2xx'];
  return {
    name,
    accepted,
    perSecond: accepted / (result.duration || durationSeconds),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}

type Row = ReturnType<typeof summary>;

/**
 * One row from runs in slices: accepted per second over all of them, and the median of
 * their latency percentiles (autocannon keeps no histogram to merge).
 */
function sliceSummary(name: string, results: autocannon.Result[]): Row {
  const accepted = results.reduce((sum, result) => sum + result['2xx'], 0);
  const seconds = results.reduce((sum, result) => sum + (result.duration || sliceSeconds), 0);
  return {
    name,
    accepted,
    perSecond: accepted / seconds,
    p50: median(results.map((result) => result.latency.p50)),
    p99: median(results.map((result) => result.latency.p99)),
    errors: results.reduce((sum, result) => sum + result.non2xx + result.errors + result.timeouts, 0),
  };
}

const postPurchaseAssistants = [
  { name: 'Thank you', klaviyo_property: 'thank_you_line', prompt_template: 'Thank {first_name} for buying {products}', model: null, instructions: null, fallback_text: null, max_length: null },
];

/** Loads one running Flowsmith and checks that every 2xx answer became a stored event with its job. */
async function measureFlowsmith(
  name: string,
  port: number,
  flowId: string,
  stop: () => Promise<void>,
  count: () => Promise<{ stored: number; jobs: number }>,
): Promise<{ row: Row; check: string }> {
  let row: Row;
  let answered2xx = 0;
  try {
    const { warmup, result } = await load(`http://127.0.0.1:${port}/api/webhooks/post_purchase/${flowId}`);
    row = summary(name, result);
    answered2xx = warmup['2xx'] + result['2xx'];
    // Answers cut off when autocannon stops may still be stored; let them land first.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  } finally {
    await stop();
  }
  return { row, check: storedCheck(name, answered2xx, 2, await count()) };
}

/**
 * Every 2xx answer a stored event with its job. When autocannon stops it drops the
 * requests still in flight (up to one per connection in each of its `runs`); the server
 * stores those all the same, unanswered.
 */
function storedCheck(name: string, answered2xx: number, runs: number, { stored, jobs }: { stored: number; jobs: number }): string {
  const cutOff = stored - answered2xx;
  const ok = jobs === stored && cutOff >= 0 && cutOff <= runs * connections;
  return `${name}: stored events ${formatNumber(stored)} = 2xx answers ${formatNumber(answered2xx)} + ${formatNumber(cutOff)} cut off in flight (≤ ${runs * connections}); jobs ${formatNumber(jobs)}: ${ok ? 'OK' : 'MISMATCH'}`;
}

const countSql = {
  stored: `SELECT count(*) FROM events WHERE flow_id = $1 AND status <> 'rejected'`,
  // Stored events with their job: still queued, or already taken up by the embedded run's
  // worker (which deletes a job once it has run, docs/decisions/0033). An event still
  // 'received' without a job would be one lost.
  jobs: `SELECT count(*) FROM events e
           LEFT JOIN (SELECT DISTINCT data->>'eventId' AS event_id FROM pgboss.job WHERE name = 'process-event') AS j ON j.event_id = e.id
          WHERE e.flow_id = $1 AND e.status <> 'rejected' AND (e.status <> 'received' OR j.event_id IS NOT NULL)`,
};

/** The embedded default: seed a fresh data directory, then run `main.ts` on it as `npm start` does. */
async function embeddedRun(): Promise<{ row: Row; check: string; processed: string }> {
  const dataDir = path.resolve(`.tmp/bench-embedded-${randomUUID().slice(0, 8)}`);
  const seeded = await openDatabase({ databaseUrl: undefined, dataDir, storedFunctions });
  const { flowId } = await seedOwnerWithFlow(seeded.pool, { flowType: 'post_purchase', assistants: postPurchaseAssistants });
  await seeded.close();
  const openai = await startFakeOpenAI({ validKeys: [benchKeys.openai], latencyMs: 1_000 });
  const klaviyo = await startFakeKlaviyo({ validKeys: [benchKeys.klaviyo] });
  // The orders name products 7000-7003; the worker fetches their descriptions from the shop.
  const products = Object.fromEntries(
    Array.from({ length: 4 }, (_, index) => [
      String(7000 + index),
      { title: `Merino Trail Sock ${index}`, description: 'Warm, light socks for long trails.', onlineStoreUrl: null, featuredImage: null },
    ]),
  );
  const shopify = await startFakeShopify({ shopDomain: 'bench-shop.myshopify.com', accessTokens: [benchKeys.shopifyToken], products });
  try {
    const port = await freePort();
    const flowsmith = await startProcess(
      '../src/server/main.ts',
      {
        PORT: String(port),
        // BENCH_EMBEDDED_ROLE=web measures the embedded intake without its worker (to see what the worker costs).
        ...(process.env.BENCH_EMBEDDED_ROLE ? { ROLE: process.env.BENCH_EMBEDDED_ROLE } : {}),
        DATA_DIR: dataDir,
        CREDENTIALS_KEY: benchKeys.credentialsKey,
        LOG_LEVEL: 'warn',
        OPENAI_BASE_URL: openai.apiBaseUrl,
        KLAVIYO_BASE_URL: klaviyo.baseUrl,
        SHOPIFY_BASE_URL: shopify.baseUrl,
      },
      `http://127.0.0.1:${port}/healthz`,
    );
    let processed = '';
    const measured = await measureFlowsmith('Embedded', port, flowId, flowsmith.stop, async () => {
      const reopened = await openDatabase({ databaseUrl: undefined, dataDir, storedFunctions });
      try {
        const stored = await countRows(reopened.pool, countSql.stored, [flowId]);
        const delivered = await countRows(reopened.pool, `SELECT count(*) FROM events WHERE flow_id = $1 AND status = 'delivered'`, [flowId]);
        // Taken up: any event the worker has moved on from 'received' (post-purchase texts wait for their send time first).
        const takenUp = await countRows(reopened.pool, `SELECT count(*) FROM events WHERE flow_id = $1 AND status NOT IN ('received', 'rejected')`, [flowId]);
        processed = `Embedded worker meanwhile took up ${formatNumber(takenUp)} and delivered ${formatNumber(delivered)} of the ${formatNumber(stored)} events (OpenAI answering in 1 s)`;
        return { stored, jobs: await countRows(reopened.pool, countSql.jobs, [flowId]) };
      } finally {
        await reopened.close();
      }
    });
    return { ...measured, processed };
  } finally {
    await openai.close();
    await klaviyo.close();
    await shopify.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * Server PostgreSQL and the baseline, both up at once and loaded in turn, in slices
 * (BENCH_SLICES, 4) that add up to BENCH_SECONDS each, in the order S B B S S B...: a
 * neighbour's burst or a drift of the machine's speed then falls on both alike. Run one
 * after the other, 10 s each, the two differed by up to 17 points from one round to the
 * next on the same code.
 */
async function serverRuns(): Promise<{ flowsmith: { row: Row; check: string }; baseline: Row }> {
  const database = await createBenchDatabase();
  const migrated = await openDatabase({ databaseUrl: database.url, dataDir: null, storedFunctions });
  const { flowId } = await seedOwnerWithFlow(migrated.pool, { flowType: 'post_purchase', assistants: postPurchaseAssistants });
  await migrated.close();
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  try {
    const port = await freePort();
    const flowsmith = await startProcess(
      '../src/server/main.ts',
      { ROLE: 'web', PORT: String(port), DATABASE_URL: database.url, CREDENTIALS_KEY: benchKeys.credentialsKey, LOG_LEVEL: 'warn', DATA_DIR: '.tmp/bench-data' },
      `http://127.0.0.1:${port}/healthz`,
    );
    const flowsmithUrl = `http://127.0.0.1:${port}/api/webhooks/post_purchase/${flowId}`;
    let flowsmithStopped = false;
    const stopFlowsmith = async () => {
      if (!flowsmithStopped) await flowsmith.stop();
      flowsmithStopped = true;
    };
    try {
      const baselinePort = await freePort();
      const baselineServer = await startProcess(
        './baseline-server.ts',
        { PORT: String(baselinePort), DATABASE_URL: database.url, SIGNING_SECRET: benchKeys.signingSecret },
        `http://127.0.0.1:${baselinePort}/`,
      );
      const baselineUrl = `http://127.0.0.1:${baselinePort}/webhook`;
      const flowsmithRuns: autocannon.Result[] = [];
      const baselineRuns: autocannon.Result[] = [];
      let flowsmithWarmup: autocannon.Result;
      try {
        flowsmithWarmup = await hammer(flowsmithUrl, 2);
        await hammer(baselineUrl, 2);
        for (let slice = 0; slice < slices; slice++) {
          const flowsmithFirst = slice % 2 === 0;
          for (const turn of flowsmithFirst ? ['flowsmith', 'baseline'] : ['baseline', 'flowsmith']) {
            if (turn === 'flowsmith') flowsmithRuns.push(await hammer(flowsmithUrl, sliceSeconds));
            else baselineRuns.push(await hammer(baselineUrl, sliceSeconds));
          }
        }
      } finally {
        await baselineServer.stop();
      }
      // Answers cut off when autocannon stops may still be stored; let them land first.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await stopFlowsmith();
      const answered2xx = [flowsmithWarmup, ...flowsmithRuns].reduce((sum, result) => sum + result['2xx'], 0);
      const check = storedCheck('Server PG', answered2xx, 1 + slices, {
        stored: await countRows(pool, countSql.stored, [flowId]),
        jobs: await countRows(pool, countSql.jobs, [flowId]),
      });
      return { flowsmith: { row: sliceSummary('Server PG', flowsmithRuns), check }, baseline: sliceSummary('Baseline', baselineRuns) };
    } finally {
      await stopFlowsmith();
    }
  } finally {
    await pool.end();
    await database.drop();
  }
}

const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));

function median(values: number[]): number {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * The three setups run in rounds, each round all three back to back, and the ratios are
 * taken within a round and then their median: on this 2-core machine one 10 s run can
 * differ from the next by 15 points (a checkpoint, a neighbour's burst), and a ratio of
 * two runs seconds apart is steadier than one of runs minutes apart.
 */
async function main(): Promise<void> {
  // BENCH_SERVER_ONLY=1 skips the embedded run (to compare changes to the server path quickly).
  const serverOnly = Boolean(process.env.BENCH_SERVER_ONLY);
  const line = (row: Row) =>
    `${row.name.padEnd(10)} ${formatNumber(row.perSecond).padStart(7)} accepted/s   p50 ${formatNumber(row.p50, 1).padStart(6)} ms   p99 ${formatNumber(row.p99, 1).padStart(6)} ms   non-2xx/errors ${row.errors}`;
  console.log(`\nbench:ingest: ${connections} connections, ${durationSeconds} s each, ~${formatNumber(Buffer.byteLength(orderBody('1')))} byte signed Shopify webhooks, ${rounds} rounds`);
  const embeddedShares: number[] = [];
  const serverShares: number[] = [];
  const embeddedP99s: number[] = [];
  const checks: string[] = [];
  for (let round = 1; round <= rounds; round++) {
    const embedded = serverOnly
      ? { row: { name: 'Embedded', accepted: 0, perSecond: NaN, p50: NaN, p99: NaN, errors: 0 }, check: '', processed: '' }
      : await embeddedRun();
    // The embedded run leaves its data files to be written out; let that finish (and the
    // machine settle) before the next run, so the server run does not pay for it.
    if (!serverOnly) {
      execFileSync('sync');
      await new Promise((resolve) => setTimeout(resolve, 5_000));
    }
    const server = await serverRuns();
    const embeddedShare = (embedded.row.perSecond / server.flowsmith.row.perSecond) * 100;
    const serverShare = (server.flowsmith.row.perSecond / server.baseline.perSecond) * 100;
    embeddedShares.push(embeddedShare);
    serverShares.push(serverShare);
    embeddedP99s.push(embedded.row.p99);
    console.log(`\nRound ${round} of ${rounds}`);
    if (!serverOnly) console.log(line(embedded.row) + '   (npm start as shipped: embedded PostgreSQL, worker on)');
    console.log(line(server.flowsmith.row) + '   (ROLE=web on server PostgreSQL)');
    console.log(line(server.baseline) + '   (bare Fastify + HMAC + INSERT on server PostgreSQL)');
    console.log(`${serverOnly ? '' : `Embedded / server PG: ${formatNumber(embeddedShare)} %   `}Server PG / baseline: ${formatNumber(serverShare)} %`);
    if (!serverOnly) console.log(embedded.processed);
    checks.push(...[embedded.check, server.flowsmith.check].filter(Boolean));
  }
  const embeddedShare = median(embeddedShares);
  const serverShare = median(serverShares);
  const embeddedP99 = median(embeddedP99s);
  console.log(`\nEvery 2xx a stored event with its job:`);
  for (const check of checks) console.log(`  ${check}`);
  console.log(`\nMedian of ${rounds} rounds:${serverOnly ? '' : ` embedded / server PG ${formatNumber(embeddedShare)} % (rounds: ${embeddedShares.map((share) => formatNumber(share)).join(', ')}), embedded p99 ${formatNumber(embeddedP99)} ms;`} server PG / baseline ${formatNumber(serverShare)} % (rounds: ${serverShares.map((share) => formatNumber(share)).join(', ')})`);
  const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
  console.log(
    `Targets: ${serverOnly ? '' : `embedded ≥ 75 % of server ${verdict(embeddedShare >= 75)}; embedded p99 < 100 ms ${verdict(embeddedP99 < 100)}; `}server ≥ 85 % of baseline ${verdict(serverShare >= 85)}`,
  );
  if (checks.some((check) => check.endsWith('MISMATCH'))) process.exitCode = 1;
}

await main();
