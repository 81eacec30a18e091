import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Queryable } from '../database/database.ts';
import { inTransaction } from '../database/database.ts';
import type { Clock } from '../platform/clock.ts';
import type { Intake, IntakeRequest } from '../intake/intake.ts';
import { signShopifyBody } from '../intake/shopify-signature.ts';
import { listFlowsForUser, type FlowRecord } from '../flows/flow-queries.ts';
import { releaseWaitingEvent } from '../events/event-queries.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import type { SampleActivityResult } from '../../shared/sandbox/sandbox-schemas.ts';
import { importSandboxProfile, listSandboxProfiles, type SandboxAccount } from './sandbox-queries.ts';
import { SAMPLE_CURRENCY, SAMPLE_SHOP_DOMAIN, sampleProducts, sampleShoppers, type SampleProduct, type SampleShopper } from './sample-shop.ts';
import { unlessRefused } from '../platform/http-errors.ts';

export interface SampleActivityDeps {
  pool: pg.Pool;
  clock: Clock;
  intake: Intake;
  /** Sends a released event's job in the transaction that releases it. */
  enqueue(db: Queryable, job: { eventId: string; attempt: number }): Promise<void>;
}

type Sent = SampleActivityResult['events'][number];

/**
 * The sample shop's shoppers at work: for each flow, the events a real shop would send,
 * through the real intake (signed Shopify webhooks, pixel events), so the owner sees the
 * pipeline as it runs for real. Each shopper is first put on the sandbox Klaviyo list
 * (a real shop's shoppers are on the owner's list; the pixel only speaks of those), and
 * the abandonment waits of these sample events are skipped, so the texts come at once.
 */
export async function sendSampleActivity(deps: SampleActivityDeps, account: SandboxAccount, flowTypes: FlowType[]): Promise<Sent[]> {
  const flows = new Map((await listFlowsForUser(deps.pool, account.userId)).map((flow) => [flow.flowType, flow]));
  const browsing = flows.get('browser_abandonment');
  const round = await nextRound(deps.pool, account.userId);
  const sent: Sent[] = [];
  for (const flowType of flowTypes) {
    const flow = flows.get(flowType);
    if (!flow) continue;
    const shopper = shopperOf(flowType, round);
    await importSandboxProfile(deps.pool, account.userId, { email: shopper.email, firstName: shopper.firstName, lastName: shopper.lastName, properties: {} }, deps.clock.now());
    const product = sampleProducts[(round + flowTypes.indexOf(flowType)) % sampleProducts.length]!;
    const now = deps.clock.now();
    switch (flowType) {
      case 'browser_abandonment':
        sent.push(await sendPixel(deps, flow, { name: 'product_viewed', shopper, product, now }));
        break;
      case 'abandoned_cart': {
        const cartToken = `sample-cart-${randomUUID()}`;
        // Shopify's carts name no shopper: the pixel's add-to-cart says whose cart it is.
        if (browsing) await sendPixel(deps, browsing, { name: 'product_added_to_cart', shopper, product, now, cartToken });
        sent.push(await sendWebhook(deps, account, flow, { topic: 'carts/update', payload: cartPayload(cartToken, product, now), shopper }));
        break;
      }
      case 'abandoned_checkout':
        sent.push(await sendWebhook(deps, account, flow, { topic: 'checkouts/update', payload: checkoutPayload(shopper, product, now), shopper }));
        break;
      case 'post_purchase':
        sent.push(await sendWebhook(deps, account, flow, { topic: 'orders/create', payload: orderPayload(shopper, product, now), shopper }));
        break;
    }
  }
  for (const event of sent) await skipWait(deps, event.eventId);
  return sent;
}

/** The first round uses the shoppers' plain addresses; later rounds new ones, so no shopper's cooldown holds a round back. */
async function nextRound(db: Queryable, userId: string): Promise<number> {
  const known = new Set((await listSandboxProfiles(db, userId)).map((profile) => profile.email));
  let round = 0;
  while (Object.values(sampleShoppers).some((shopper) => known.has(shopperEmail(shopper, round)))) round += 1;
  return round;
}

function shopperEmail(shopper: SampleShopper, round: number): string {
  return round === 0 ? shopper.email : shopper.email.replace('@', `+${round}@`);
}

function shopperOf(flowType: FlowType, round: number): SampleShopper {
  const shopper = sampleShoppers[flowType];
  return { ...shopper, email: shopperEmail(shopper, round) };
}

async function skipWait(deps: SampleActivityDeps, eventId: string): Promise<void> {
  await inTransaction(deps.pool, async (client) => {
    const attempt = await releaseWaitingEvent(client, eventId);
    if (attempt !== null) await deps.enqueue(client, { eventId, attempt });
  });
}

async function sendPixel(
  deps: SampleActivityDeps,
  flow: FlowRecord,
  event: { name: 'product_viewed' | 'product_added_to_cart'; shopper: SampleShopper; product: SampleProduct; now: Date; cartToken?: string },
): Promise<Sent> {
  const body = {
    name: event.name,
    id: `sample-${randomUUID()}`,
    timestamp: event.now.toISOString(),
    clientId: `sample-client-${event.shopper.firstName.toLowerCase()}`,
    customer: { email: event.shopper.email },
    ...(event.cartToken ? { cartToken: event.cartToken } : {}),
    product: { id: event.product.id, quantity: 1 },
  };
  const request: IntakeRequest = { headers: { 'content-type': 'text/plain' }, contentType: 'text/plain', body: Buffer.from(JSON.stringify(body)) };
  const accepted = unlessRefused(await deps.intake.accept({ kind: 'pixel', flow, request }));
  return { flowType: flow.flowType, eventId: accepted.eventId, topic: event.name, shopperEmail: event.shopper.email };
}

async function sendWebhook(
  deps: SampleActivityDeps,
  account: SandboxAccount,
  flow: FlowRecord,
  webhook: { topic: string; payload: Record<string, unknown>; shopper: SampleShopper },
): Promise<Sent> {
  const { topic, payload, shopper } = webhook;
  const body = Buffer.from(JSON.stringify(payload));
  const request: IntakeRequest = {
    headers: {
      'content-type': 'application/json',
      'x-shopify-topic': topic,
      'x-shopify-hmac-sha256': signShopifyBody(body, account.shopSigningSecret),
      'x-shopify-shop-domain': SAMPLE_SHOP_DOMAIN,
      'x-shopify-api-version': '2026-10',
      'x-shopify-webhook-id': randomUUID(),
      'x-shopify-event-id': randomUUID(),
      'x-shopify-triggered-at': deps.clock.now().toISOString(),
    },
    contentType: 'application/json',
    body,
  };
  const accepted = unlessRefused(await deps.intake.accept({ kind: 'webhook', flow, request }));
  return { flowType: flow.flowType, eventId: accepted.eventId, topic, shopperEmail: shopper.email };
}

/** Shopify's ids are 64-bit numbers; the sample shop's are made up, in a range of their own. */
function sampleId(): string {
  return `77${Date.now()}${Math.floor(Math.random() * 1000)
    .toString()
    .padStart(3, '0')}`;
}

function lineItem(product: SampleProduct) {
  return { id: sampleId(), product_id: product.id, variant_id: sampleId(), title: product.title, price: product.price, quantity: 1 };
}

function customer(shopper: SampleShopper) {
  return { id: sampleId(), email: shopper.email, first_name: shopper.firstName, last_name: shopper.lastName };
}

function cartPayload(token: string, product: SampleProduct, now: Date) {
  const time = now.toISOString();
  return { id: token, token, line_items: [lineItem(product)], created_at: time, updated_at: time };
}

function checkoutPayload(shopper: SampleShopper, product: SampleProduct, now: Date) {
  const time = now.toISOString();
  const token = `sample-checkout-${randomUUID()}`;
  return {
    id: sampleId(),
    token,
    cart_token: `sample-cart-${randomUUID()}`,
    email: shopper.email,
    customer: customer(shopper),
    line_items: [lineItem(product)],
    total_price: product.price,
    currency: SAMPLE_CURRENCY,
    abandoned_checkout_url: `https://${SAMPLE_SHOP_DOMAIN}/checkouts/${token}/recover`,
    completed_at: null,
    created_at: time,
    updated_at: time,
  };
}

function orderPayload(shopper: SampleShopper, product: SampleProduct, now: Date) {
  const time = now.toISOString();
  return {
    id: sampleId(),
    order_number: Math.floor(1000 + Math.random() * 9000),
    checkout_token: `sample-checkout-${randomUUID()}`,
    cart_token: `sample-cart-${randomUUID()}`,
    email: shopper.email,
    customer: customer(shopper),
    line_items: [lineItem(product)],
    total_price: product.price,
    currency: SAMPLE_CURRENCY,
    financial_status: 'paid',
    created_at: time,
    updated_at: time,
  };
}
