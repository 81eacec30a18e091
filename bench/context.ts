/**
 * `npm run bench:context`: what the shopper context (docs/decisions/0049 and 0050) does to
 * the pipeline. The same abandoned carts go through a flow of three assistants twice: once
 * with prompts of the event alone, once with the shopper's history and the shop's
 * recommendations in them, against the local fakes (OpenAI answering after 200 ms, a
 * Shopify storefront with recommendations). Half the shoppers ordered before.
 *
 * Prints, for each run: OpenAI calls per event (one combined call per event either way),
 * the share of input tokens served from the prompt cache (the context is in the per-event
 * part, so the cached fixed part stays as it was), Shopify recommendation requests per
 * event (one per product a day, then the cache), the context's tokens per event as the flow
 * page measures them, and events/s. Figures are printed, not asserted.
 */
import { randomUUID } from 'node:crypto';
import { startFakeOpenAI } from '../test/fakes/fake-openai.ts';
import { startFakeKlaviyo } from '../test/fakes/fake-klaviyo.ts';
import { startFakeShopify } from '../test/fakes/fake-shopify.ts';
import { listRecentPrompts } from '../src/server/generations/generation-queries.ts';
import { contextCostOf } from '../src/server/engine/writing/context-cost.ts';
import type { Assistant } from '../src/shared/flows/flow-schemas.ts';
import { benchKeys, countRows, formatNumber, sendEvents, startBenchApp } from './bench-support.ts';

/** A brand voice long enough (over 1,024 tokens) for OpenAI's prompt cache to serve the fixed part. */
const brandVoice = Array.from(
  { length: 60 },
  (_, index) => `Rule ${index + 1}: write warmly and plainly, as a small outdoor shop that knows its customers by name; never pressure, never exaggerate.`,
).join('\n');

const assistant = (name: string, property: string, template: string): Assistant => ({
  name,
  klaviyo_property: property,
  prompt_template: template,
  model: null,
  instructions: brandVoice,
  fallback_text: null,
  max_length: null,
});

const withoutContext = [
  assistant('Subject Line', 'subject_line1', 'Write a subject line for {name}'),
  assistant('Preview', 'preview_text', 'Write preview text about {name} for {first_name}'),
  assistant('Body', 'body_copy', 'Write an email about {products}, total {total} {currency}'),
];
const withContext = [
  assistant('Subject Line', 'subject_line1', 'Write a subject line for {name} to a {shopper_status}'),
  assistant('Preview', 'preview_text', 'Write preview text about {name} for {first_name}, who last bought {last_purchase}'),
  assistant('Body', 'body_copy', 'Write an email about {products}, total {total} {currency}; suggest {recommendations}'),
];

const products = [
  { id: 8001, title: 'Summit Down Jacket', price: 22900 },
  { id: 8002, title: 'Alpine Merino Beanie', price: 3400 },
  { id: 8003, title: 'Basecamp Camping Mug', price: 1400 },
  { id: 8004, title: 'Trailhead Insulated Bottle', price: 2950 },
  { id: 8005, title: 'Ridge Trail Running Shoes', price: 13900 },
];

function cart(email: string, index: number) {
  const product = products[index % products.length]!;
  return {
    event_id: `evt_${randomUUID()}`,
    event_type: 'cart_abandoned',
    timestamp: new Date().toISOString(),
    properties: {
      customer: { email, first_name: 'Bench', last_name: 'Shopper' },
      cart_id: randomUUID(),
      products: [{ id: String(product.id), name: product.title, price: product.price / 100, quantity: 1 }],
      total: product.price / 100,
      currency: 'USD',
      abandoned_at: new Date().toISOString(),
    },
  };
}

function order(email: string) {
  return {
    event_id: `evt_${randomUUID()}`,
    event_type: 'order_completed',
    timestamp: new Date().toISOString(),
    properties: { customer: { email, first_name: 'Bench', last_name: 'Shopper' }, order_id: randomUUID(), products: [{ id: '8003', name: 'Basecamp Camping Mug', price: 14, quantity: 1 }], total: 14, currency: 'USD' },
  };
}

async function run(name: string, assistants: Assistant[], events: number): Promise<void> {
  // A clean sentence for every field: the stand-in's default echo of the prompt would fail the checks.
  const openai = await startFakeOpenAI({
    validKeys: [benchKeys.openai],
    latencyMs: 200,
    responder: (body) => {
      const sentence = 'Your cart is still waiting for you, and we kept it just as you left it.';
      const format = body.text?.format;
      if (format?.type !== 'json_schema') return sentence;
      return JSON.stringify(Object.fromEntries(Object.keys(format.schema?.properties ?? {}).map((key) => [key, sentence])));
    },
  });
  const klaviyo = await startFakeKlaviyo({ validKeys: [benchKeys.klaviyo] });
  const shopify = await startFakeShopify({ accessTokens: [benchKeys.shopifyToken], shopDomain: 'bench-shop.myshopify.com' });
  for (const product of products) shopify.setStorefrontProduct(product);
  for (const product of products) {
    shopify.setRecommendations(
      product.id,
      'related',
      products.filter((other) => other !== product),
    );
  }
  const app = await startBenchApp({ openaiBaseUrl: openai.apiBaseUrl, klaviyoBaseUrl: klaviyo.baseUrl, shopifyBaseUrl: shopify.baseUrl, flow: { flowType: 'abandoned_cart', assistants }, shopperCooldown: false });
  const { db, flowId } = app;
  try {
    const emails = Array.from({ length: events }, (_, index) => `context-${index}-${randomUUID().slice(0, 8)}@shop.example`);
    // Half the shoppers ordered before: their orders come in through the owner's post purchase flow.
    const orderFlowId = randomUUID();
    await db.pool.query(
      `INSERT INTO flows (id, user_id, flow_type, is_active, webhook_url, assistants, wait_minutes, klaviyo_event_name)
       SELECT $2, user_id, 'post_purchase', true, NULL, $3::jsonb, 0, NULL FROM flows WHERE id = $1`,
      [flowId, orderFlowId, JSON.stringify([withoutContext[0]])],
    );
    const orderUrl = app.url.replace(`/abandoned_cart/${flowId}`, `/post_purchase/${orderFlowId}`);
    await sendEvents(orderUrl, emails.filter((_, index) => index % 2 === 0).map(order), 20);
    for (;;) {
      const open = await countRows(db.pool, `SELECT count(*) FROM events WHERE flow_id = $1 AND status NOT IN ('delivered', 'failed', 'skipped', 'rejected')`, [orderFlowId]);
      if (open === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const callsBefore = openai.responsesServed;
    const tokensBefore = openai.tokens;
    const started = Date.now();
    await sendEvents(app.url, emails.map(cart), 50);
    for (;;) {
      const open = await countRows(db.pool, `SELECT count(*) FROM events WHERE flow_id = $1 AND status NOT IN ('delivered', 'failed', 'skipped', 'rejected')`, [flowId]);
      if (open === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const seconds = (Date.now() - started) / 1000;
    const delivered = await countRows(db.pool, `SELECT count(*) FROM events WHERE flow_id = $1 AND status = 'delivered'`, [flowId]);
    const calls = openai.responsesServed - callsBefore;
    const input = openai.tokens.input - tokensBefore.input;
    const cached = openai.tokens.cached - tokensBefore.cached;
    const owner = await db.pool.query<{ user_id: string }>('SELECT user_id FROM flows WHERE id = $1', [flowId]);
    const prompts = (await listRecentPrompts(db.pool, owner.rows[0]!.user_id, new Date(started - 60_000))).filter((prompt) => prompt.flowId === flowId);
    const cost = contextCostOf(prompts);
    console.log(`\n${name}: ${formatNumber(events)} carts × ${assistants.length} assistants, OpenAI answering in 200 ms, one process`);
    console.log(`  delivered            ${formatNumber(delivered)} of ${formatNumber(events)} in ${formatNumber(seconds, 1)} s (${formatNumber(events / seconds, 1)} events/s)`);
    console.log(`  OpenAI calls/event   ${formatNumber(calls / events, 2)}`);
    console.log(`  cached input share   ${formatNumber(input > 0 ? (cached / input) * 100 : 0, 1)} % of ${formatNumber(input)} input tokens`);
    console.log(`  Shopify asks/event   ${formatNumber(shopify.recommendationRequests().length / events, 3)} (recommendation requests)`);
    console.log(`  context tokens/event ${cost ? formatNumber(cost.tokensPerEvent, 1) : '0'} (estimated, as the flow page shows it)`);
  } finally {
    await app.close();
    await openai.close();
    await klaviyo.close();
    await shopify.close();
  }
}

const events = Number(process.env.BENCH_EVENTS ?? 500);
await run('Without the shopper context', withoutContext, events);
await run('With history and recommendations', withContext, events);
