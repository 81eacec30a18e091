/**
 * `npm run bench:ingest`: how fast Flowsmith acknowledges signed Shopify webhooks.
 *
 * Starts the real server (src/server/main.ts, ROLE=web: it stores and queues, it does not
 * process) on a fresh PostgreSQL database, then sends ~2 KB signed `orders/create`
 * webhooks from 100 connections for 10 s with autocannon, each with its own webhook and
 * event ids. Prints accepted/s and latency, checks that every 2xx answer is a stored event,
 * then measures a bare node:http receiver (verify HMAC, insert the body) on the same
 * database and prints Flowsmith as a share of it. Targets: ≥ 2,500 accepted/s, p99 < 50 ms,
 * ≥ half the baseline. Figures are printed, not asserted.
 */
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import pg from 'pg';
import { openDatabase } from '../src/server/database/database.ts';
import { signShopifyBody } from '../src/server/intake/shopify-signature.ts';
import { benchKeys, countRows, createBenchDatabase, formatNumber, freePort, seedOwnerWithFlow, startProcess } from './bench-support.ts';

const connections = Number(process.env.BENCH_CONNECTIONS ?? 100);
const durationSeconds = Number(process.env.BENCH_SECONDS ?? 10);

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

async function load(url: string): Promise<{ warmup: autocannon.Result; result: autocannon.Result }> {
  let sequence = 0;
  const requests: autocannon.Request[] = [
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
  // A short warm-up (JIT, connection pools), not counted.
  const warmup = await autocannon({ url, connections, duration: 2, requests });
  return { warmup, result: await autocannon({ url, connections, duration: durationSeconds, requests }) };
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

async function main(): Promise<void> {
  const database = await createBenchDatabase();
  const migrated = await openDatabase({ databaseUrl: database.url, dataDir: null });
  const { flowId } = await seedOwnerWithFlow(migrated.pool, {
    flowType: 'post_purchase',
    assistants: [{ name: 'Thank you', klaviyo_property: 'thank_you_line', prompt_template: 'Thank {first_name} for buying {products}', model: null, instructions: null }],
  });
  await migrated.close();
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  try {
    // Flowsmith: the production entry, web role.
    const port = await freePort();
    const flowsmith = await startProcess(
      '../src/server/main.ts',
      { ROLE: 'web', PORT: String(port), DATABASE_URL: database.url, CREDENTIALS_KEY: benchKeys.credentialsKey, LOG_LEVEL: 'warn', DATA_DIR: '.tmp/bench-data' },
      `http://127.0.0.1:${port}/healthz`,
    );
    let ours;
    let answered2xx = 0;
    try {
      const { warmup, result } = await load(`http://127.0.0.1:${port}/api/webhooks/post_purchase/${flowId}`);
      ours = summary('Flowsmith', result);
      answered2xx = warmup['2xx'] + result['2xx'];
      // Answers cut off when autocannon stops may still be stored; let them land first.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    } finally {
      await flowsmith.stop();
    }
    const stored = await countRows(pool, `SELECT count(*) FROM events WHERE flow_id = $1 AND status <> 'rejected'`, [flowId]);
    const jobs = await countRows(pool, `SELECT count(*) FROM pgboss.job WHERE name = 'process-event'`);

    // The baseline on the same database.
    const baselinePort = await freePort();
    const baselineServer = await startProcess(
      './baseline-server.ts',
      { PORT: String(baselinePort), DATABASE_URL: database.url, SIGNING_SECRET: benchKeys.signingSecret },
      `http://127.0.0.1:${baselinePort}/`,
    );
    let baseline;
    try {
      baseline = summary('Baseline', (await load(`http://127.0.0.1:${baselinePort}/webhook`)).result);
    } finally {
      await baselineServer.stop();
    }

    const line = (row: ReturnType<typeof summary>) =>
      `${row.name.padEnd(10)} ${formatNumber(row.perSecond).padStart(7)} accepted/s   p50 ${formatNumber(row.p50, 1).padStart(6)} ms   p99 ${formatNumber(row.p99, 1).padStart(6)} ms   non-2xx/errors ${row.errors}`;
    console.log(`\nbench:ingest: ${connections} connections, ${durationSeconds} s, ~${formatNumber(Buffer.byteLength(orderBody('1')))} byte signed Shopify webhooks, PostgreSQL`);
    console.log(line(ours));
    console.log(line(baseline));
    console.log(`Flowsmith / baseline: ${formatNumber((ours.perSecond / baseline.perSecond) * 100)} % of the baseline's throughput`);
    // When autocannon stops it drops the requests still in flight (up to one per connection
    // in each of the two runs); the server stores those all the same, unanswered.
    const cutOff = stored - answered2xx;
    const check = jobs === stored && cutOff >= 0 && cutOff <= 2 * connections ? 'OK' : 'MISMATCH';
    console.log(
      `Stored events ${formatNumber(stored)} = 2xx answers ${formatNumber(answered2xx)} + ${formatNumber(cutOff)} requests cut off in flight when the load stopped (≤ ${2 * connections}); queued jobs ${formatNumber(jobs)}: ${check}`,
    );
    console.log(`Targets: ≥ 2,500 accepted/s ${ours.perSecond >= 2_500 ? 'met' : 'NOT met'}; p99 < 50 ms ${ours.p99 < 50 ? 'met' : 'NOT met'}; ≥ 50 % of baseline ${ours.perSecond >= baseline.perSecond / 2 ? 'met' : 'NOT met'}`);
  } finally {
    await pool.end();
    await database.drop();
  }
}

await main();
