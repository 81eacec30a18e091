import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sendShopifyWebhook } from '../fakes/fake-shopify.ts';
import { ownerWithFlows, postEvent, sampleEvent, shopifySecret, useEngineScenario, waitForEvent, type Owner, allStandIns } from '../support/engine-scenario.ts';
import type { RevenueResponse } from '../../src/shared/attribution/attribution-schemas.ts';
import type { FlowType } from '../../src/shared/flows/flow-types.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';
import { endpointAddress } from '../../src/shared/api/endpoint.ts';

/**
 * Revenue recovered (docs/decisions/0030-revenue-attribution.md): orders credited to the
 * owner's most recent delivery to their shopper within the window, once per order, in the
 * order's currency, and the figures GET /api/revenue gives for 7 and 30 days.
 *
 * Deliveries are stamped by the database when Klaviyo accepts them; orders say when they
 * were placed. Each order here is placed relative to a delivery's stamp, and the app's
 * manual clock is moved on so that it is received after it was placed.
 */
const scenario = useEngineScenario({ standIns: allStandIns });

const db = () => scenario.testApp.database.pool;
const DAY_MS = 24 * 60 * 60 * 1000;
const MINUTE_MS = 60_000;
const flowsOfOwner = { abandoned_cart: {}, abandoned_checkout: {}, browser_abandonment: {}, post_purchase: {} } as const;

function newShopper(): string {
  return `shopper-${randomUUID()}@example.com`;
}

/** A generic sample event through the flow, delivered; returns its id and when Klaviyo accepted it. */
async function deliver(owner: Owner, flowType: FlowType, email: string): Promise<{ eventId: string; deliveredAt: Date }> {
  scenario.testApp.clock.advance(1_000);
  const sent = await postEvent(scenario.testApp.baseUrl, owner.flows[flowType].webhookPath, sampleEvent(flowType, { email }));
  expect(sent.status, sent.text).toBe(202);
  const eventId = sent.json.eventId as string;
  const settled = await waitForEvent(db(), eventId);
  expect(settled.status, settled.error ?? '').toBe('delivered');
  const { rows } = await db().query<{ updated_at: Date }>(`SELECT updated_at FROM event_deliveries WHERE event_id = $1 AND status = 'delivered'`, [eventId]);
  return { eventId, deliveredAt: rows[0]!.updated_at };
}

/** Moves the app's clock on to at least `at` (plus a minute), so an order placed then can be received. */
function clockPast(at: Date): void {
  const behind = at.getTime() + MINUTE_MS - scenario.testApp.clock.now().getTime();
  if (behind > 0) scenario.testApp.clock.advance(behind);
}

interface ShopifyOrder {
  id: number;
  email: string;
  placedAt: Date;
  total?: string;
  currency?: string;
  /** What the buyer paid in their own currency, when it is not the shop's. */
  presentment?: { amount: string; currency: string };
}

/**
 * A Shopify order webhook to the owner's abandoned-checkout flow, where an order is only
 * a signal (the event ends skipped), so it brings no delivery of its own.
 */
async function sendShopifyOrder(owner: Owner, order: ShopifyOrder, topic: 'orders/create' | 'orders/paid' = 'orders/create'): Promise<string> {
  clockPast(order.placedAt);
  const payload = {
    id: order.id,
    order_number: 1000 + (order.id % 1000),
    email: order.email,
    customer: { email: order.email, first_name: 'Kim', last_name: 'Buyer' },
    line_items: [{ title: 'Trail Shoe', price: order.total ?? '89.50', quantity: 1, product_id: 42 }],
    total_price: order.total ?? '89.50',
    currency: order.currency ?? 'USD',
    ...(order.presentment
      ? {
          presentment_currency: order.presentment.currency,
          total_price_set: {
            shop_money: { amount: order.total ?? '89.50', currency_code: order.currency ?? 'USD' },
            presentment_money: { amount: order.presentment.amount, currency_code: order.presentment.currency },
          },
        }
      : {}),
    created_at: order.placedAt.toISOString(),
    updated_at: order.placedAt.toISOString(),
  };
  const sent = await sendShopifyWebhook(`${scenario.testApp.baseUrl}${owner.flows.abandoned_checkout.webhookPath}`, topic, payload, shopifySecret);
  expect(sent.status, sent.text).toBe(202);
  const eventId = JSON.parse(sent.text).eventId as string;
  await waitForEvent(db(), eventId);
  return eventId;
}

async function attributionsOf(owner: Owner) {
  const { rows } = await db().query<{
    order_key: string;
    flow_type: string;
    delivery_event_id: string | null;
    order_event_id: string | null;
    amount: string | null;
    currency: string | null;
    shopper_email: string | null;
  }>('SELECT order_key, flow_type, delivery_event_id, order_event_id, amount::text AS amount, currency, shopper_email FROM order_attributions WHERE user_id = $1 ORDER BY ordered_at', [
    owner.userId,
  ]);
  return rows;
}

async function revenueOf(owner: Owner, days: 7 | 30): Promise<RevenueResponse> {
  const response = await owner.client.call(endpoints.revenue.read, { query: { days } });
  expect(response.status, response.text).toBe(200);
  return response.json as RevenueResponse;
}

const orderId = () => Math.floor(Math.random() * 1e12);

describe('revenue attribution', () => {
  it('credits an order inside the window to the delivery, keeping its amount and currency', async () => {
    const owner = await ownerWithFlows(scenario, flowsOfOwner);
    const email = newShopper();
    const delivery = await deliver(owner, 'abandoned_cart', email);
    const id = orderId();
    const orderEventId = await sendShopifyOrder(owner, { id, email: email.toUpperCase(), placedAt: new Date(delivery.deliveredAt.getTime() + 2 * DAY_MS), total: '120.00', currency: 'EUR' });
    expect(await attributionsOf(owner)).toEqual([
      { order_key: String(id), flow_type: 'abandoned_cart', delivery_event_id: delivery.eventId, order_event_id: orderEventId, amount: '120.00', currency: 'EUR', shopper_email: email },
    ]);
  });

  it("credits the shop's money, in the shop's currency, when the buyer paid in another", async () => {
    const owner = await ownerWithFlows(scenario, flowsOfOwner);
    const email = newShopper();
    const delivery = await deliver(owner, 'abandoned_cart', email);
    await sendShopifyOrder(owner, { id: orderId(), email, placedAt: new Date(delivery.deliveredAt.getTime() + MINUTE_MS), total: '100.00', currency: 'USD', presentment: { amount: '92.00', currency: 'EUR' } });
    expect((await attributionsOf(owner)).map((row) => [row.amount, row.currency])).toEqual([['100.00', 'USD']]);
  });

  it('keeps an amount of any size and precision exactly as the shop gave it', async () => {
    const owner = await ownerWithFlows(scenario, flowsOfOwner);
    const email = newShopper();
    const delivery = await deliver(owner, 'abandoned_cart', email);
    await sendShopifyOrder(owner, { id: orderId(), email, placedAt: new Date(delivery.deliveredAt.getTime() + MINUTE_MS), total: '123456789012345678901234.56789', currency: 'JPY' });
    expect((await attributionsOf(owner)).map((row) => [row.amount, row.currency])).toEqual([['123456789012345678901234.56789', 'JPY']]);
    expect((await revenueOf(owner, 7)).total.revenue).toEqual([{ currency: 'JPY', orders: 1, amount: '123456789012345678901234.56789' }]);
  });

  it('does not credit an order placed after the window', async () => {
    const owner = await ownerWithFlows(scenario, flowsOfOwner);
    const email = newShopper();
    const delivery = await deliver(owner, 'abandoned_cart', email);
    await sendShopifyOrder(owner, { id: orderId(), email, placedAt: new Date(delivery.deliveredAt.getTime() + 5 * DAY_MS + MINUTE_MS) });
    expect(await attributionsOf(owner)).toEqual([]);
    // The same delivery does earn an order inside the window: only the time kept the first out.
    const inside = orderId();
    await sendShopifyOrder(owner, { id: inside, email, placedAt: new Date(delivery.deliveredAt.getTime() + 5 * DAY_MS - MINUTE_MS) });
    expect((await attributionsOf(owner)).map((row) => row.order_key)).toEqual([String(inside)]);
  });

  it("follows the owner's window: 6 days credits what 5 do not", async () => {
    const owner = await ownerWithFlows(scenario, flowsOfOwner);
    const saved = await owner.client.call(endpoints.revenue.saveSettings, { body: { windowDays: 6 } });
    expect(saved.status, saved.text).toBe(200);
    expect((await owner.client.call(endpoints.revenue.settings)).json).toEqual({ windowDays: 6 });
    const email = newShopper();
    const delivery = await deliver(owner, 'abandoned_cart', email);
    await sendShopifyOrder(owner, { id: orderId(), email, placedAt: new Date(delivery.deliveredAt.getTime() + 5 * DAY_MS + MINUTE_MS) });
    expect((await attributionsOf(owner)).map((row) => row.delivery_event_id)).toEqual([delivery.eventId]);
  });

  it('refuses a window outside 1 to 30 days and a period other than 7 or 30 with 400', async () => {
    const owner = await ownerWithFlows(scenario, {});
    for (const windowDays of [0, 31, 2.5, '5']) {
      const response = await owner.client.call(endpoints.revenue.saveSettings, { body: { windowDays } });
      expect(response.status, response.text).toBe(400);
    }
    for (const days of ['1', '365', 'x', '']) {
      const response = await owner.client.call(endpoints.revenue.read, { query: { days } });
      expect(response.status, response.text).toBe(400);
    }
  });

  it('credits the most recent of two deliveries from two flows', async () => {
    const owner = await ownerWithFlows(scenario, flowsOfOwner);
    const email = newShopper();
    await deliver(owner, 'abandoned_cart', email);
    const later = await deliver(owner, 'browser_abandonment', email);
    await sendShopifyOrder(owner, { id: orderId(), email, placedAt: new Date(later.deliveredAt.getTime() + MINUTE_MS) });
    expect((await attributionsOf(owner)).map((row) => [row.flow_type, row.delivery_event_id])).toEqual([['browser_abandonment', later.eventId]]);
  });

  it('credits an order once when it arrives twice and as orders/create then orders/paid', async () => {
    const owner = await ownerWithFlows(scenario, flowsOfOwner);
    const email = newShopper();
    const delivery = await deliver(owner, 'abandoned_cart', email);
    const order = { id: orderId(), email, placedAt: new Date(delivery.deliveredAt.getTime() + MINUTE_MS) };
    const first = await sendShopifyOrder(owner, order);
    const again = await sendShopifyOrder(owner, order);
    const paid = await sendShopifyOrder(owner, order, 'orders/paid');
    expect(new Set([first, again, paid]).size).toBe(3);
    expect((await attributionsOf(owner)).map((row) => row.order_event_id)).toEqual([first]);
  });

  it('does not credit an order before any delivery, nor one placed before the delivery', async () => {
    const owner = await ownerWithFlows(scenario, flowsOfOwner);
    const email = newShopper();
    await sendShopifyOrder(owner, { id: orderId(), email, placedAt: scenario.testApp.clock.now() });
    const delivery = await deliver(owner, 'abandoned_cart', email);
    await sendShopifyOrder(owner, { id: orderId(), email, placedAt: new Date(delivery.deliveredAt.getTime() - MINUTE_MS) });
    expect(await attributionsOf(owner)).toEqual([]);
    const after = orderId();
    await sendShopifyOrder(owner, { id: after, email, placedAt: new Date(delivery.deliveredAt.getTime() + MINUTE_MS) });
    expect((await attributionsOf(owner)).map((row) => row.order_key)).toEqual([String(after)]);
  });

  it("never uses another owner's deliveries", async () => {
    const owner = await ownerWithFlows(scenario, flowsOfOwner);
    const other = await ownerWithFlows(scenario, flowsOfOwner);
    const email = newShopper();
    const othersDelivery = await deliver(other, 'abandoned_cart', email);
    await sendShopifyOrder(owner, { id: orderId(), email, placedAt: new Date(othersDelivery.deliveredAt.getTime() + MINUTE_MS) });
    expect(await attributionsOf(owner)).toEqual([]);
    expect(await attributionsOf(other)).toEqual([]);
    // The owner's own delivery to the shopper does count.
    const own = await deliver(owner, 'abandoned_cart', email);
    await sendShopifyOrder(owner, { id: orderId(), email, placedAt: new Date(own.deliveredAt.getTime() + MINUTE_MS) });
    expect((await attributionsOf(owner)).map((row) => row.delivery_event_id)).toEqual([own.eventId]);
  });

  it("credits a generic order_completed to the delivery before it, not to the post-purchase content it triggered", async () => {
    const owner = await ownerWithFlows(scenario, flowsOfOwner);
    const email = newShopper();
    const cart = await deliver(owner, 'abandoned_cart', email);
    const order = sampleEvent('post_purchase', { email });
    const placedAt = new Date(cart.deliveredAt.getTime() + MINUTE_MS);
    order.properties.purchased_at = placedAt.toISOString();
    (order.properties as Record<string, unknown>).order_id = `ord_${randomUUID()}`;
    clockPast(placedAt);
    const sent = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, order);
    expect(sent.status, sent.text).toBe(202);
    expect((await waitForEvent(db(), sent.json.eventId)).status).toBe('delivered');
    // The same order sent again (a new event id) is still the one order.
    scenario.testApp.clock.advance(1_000);
    const resent = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, { ...order, event_id: `evt_${randomUUID()}` });
    expect(resent.status, resent.text).toBe(202);
    await waitForEvent(db(), resent.json.eventId);
    expect(await attributionsOf(owner)).toEqual([
      expect.objectContaining({ order_key: order.properties.order_id, flow_type: 'abandoned_cart', delivery_event_id: cart.eventId, amount: '113.5', currency: 'USD' }),
    ]);
  });

  it('gives deliveries, orders, revenue per currency, conversion and cost for 7 and 30 days', async () => {
    const owner = await ownerWithFlows(scenario, flowsOfOwner);
    const other = await ownerWithFlows(scenario, flowsOfOwner);
    const email = newShopper();
    const cart = await deliver(owner, 'abandoned_cart', email);
    await sendShopifyOrder(owner, { id: orderId(), email, placedAt: new Date(cart.deliveredAt.getTime() + MINUTE_MS), total: '40.00', currency: 'EUR' });
    const browse = await deliver(owner, 'browser_abandonment', email);
    await sendShopifyOrder(owner, { id: orderId(), email, placedAt: new Date(browse.deliveredAt.getTime() + MINUTE_MS), total: '10.50', currency: 'USD' });
    await sendShopifyOrder(owner, { id: orderId(), email, placedAt: new Date(browse.deliveredAt.getTime() + 2 * MINUTE_MS), total: '5.25', currency: 'USD' });
    // Another owner's delivery and order count for them alone.
    const othersDelivery = await deliver(other, 'abandoned_cart', email);
    await sendShopifyOrder(other, { id: orderId(), email, placedAt: new Date(othersDelivery.deliveredAt.getTime() + MINUTE_MS), total: '999.00', currency: 'EUR' });

    const { rows } = await db().query<{ cost: string; tokens: string }>(
      `SELECT COALESCE(sum(cost_usd), 0)::text AS cost, COALESCE(sum(input_tokens + cached_input_tokens + output_tokens), 0)::text AS tokens
         FROM flow_daily_spend s JOIN flows f ON f.id = s.flow_id WHERE f.user_id = $1`,
      [owner.userId],
    );
    const week = await revenueOf(owner, 7);
    expect(week.days).toBe(7);
    expect(week.windowDays).toBe(5);
    expect(week.total).toMatchObject({
      deliveries: 2,
      attributedOrders: 3,
      revenue: [
        { currency: 'EUR', orders: 1, amount: '40.00' },
        { currency: 'USD', orders: 2, amount: '15.75' },
      ],
      conversionRate: 1.5,
    });
    expect(week.total.costUsd).toBeCloseTo(Number(rows[0]!.cost), 8);
    expect(week.total.tokens).toBe(Number(rows[0]!.tokens));
    expect(week.total.tokens).toBeGreaterThan(0);
    const flow = (response: RevenueResponse, flowType: FlowType) => response.flows.find((entry) => entry.flowType === flowType)!;
    expect(flow(week, 'abandoned_cart')).toMatchObject({ deliveries: 1, attributedOrders: 1, revenue: [{ currency: 'EUR', orders: 1, amount: '40.00' }], conversionRate: 1 });
    expect(flow(week, 'browser_abandonment')).toMatchObject({ deliveries: 1, attributedOrders: 2, revenue: [{ currency: 'USD', orders: 2, amount: '15.75' }], conversionRate: 2 });
    expect(flow(week, 'post_purchase')).toMatchObject({ deliveries: 0, attributedOrders: 0, revenue: [], conversionRate: null, costUsd: 0, tokens: 0 });
    expect(week.orders.map((order) => [order.flowType, order.deliveryEventId, order.currency, order.amount])).toEqual([
      ['browser_abandonment', browse.eventId, 'USD', '5.25'],
      ['browser_abandonment', browse.eventId, 'USD', '10.50'],
      ['abandoned_cart', cart.eventId, 'EUR', '40.00'],
    ]);

    // Ten days on: the week is empty, the month still holds everything.
    scenario.testApp.clock.advance(10 * DAY_MS);
    const laterWeek = await revenueOf(owner, 7);
    expect(laterWeek.total).toMatchObject({ deliveries: 0, attributedOrders: 0, revenue: [], conversionRate: null, costUsd: 0, tokens: 0 });
    expect(laterWeek.orders).toEqual([]);
    const month = await revenueOf(owner, 30);
    expect(month.total).toMatchObject({ deliveries: 2, attributedOrders: 3, conversionRate: 1.5 });
    expect(month.total.revenue.map((entry) => entry.currency)).toEqual(['EUR', 'USD']);
    expect(month.total.costUsd).toBeCloseTo(Number(rows[0]!.cost), 8);
  });

  it('keeps the credit when retention deletes the events it names', async () => {
    const owner = await ownerWithFlows(scenario, flowsOfOwner);
    const email = newShopper();
    const delivery = await deliver(owner, 'abandoned_cart', email);
    const orderEventId = await sendShopifyOrder(owner, { id: orderId(), email, placedAt: new Date(delivery.deliveredAt.getTime() + MINUTE_MS), total: '30.00', currency: 'GBP' });
    await db().query('DELETE FROM events WHERE id = ANY($1)', [[delivery.eventId, orderEventId]]);
    expect((await attributionsOf(owner)).map((row) => [row.delivery_event_id, row.order_event_id, row.amount])).toEqual([[null, null, '30.00']]);
    const month = await revenueOf(owner, 30);
    expect(month.orders.map((order) => [order.deliveryEventId, order.amount, order.currency])).toEqual([[null, '30.00', 'GBP']]);
  });

  it('keeps the revenue of an erased shopper but not their address, and exports their orders before', async () => {
    const owner = await ownerWithFlows(scenario, flowsOfOwner);
    const email = newShopper();
    const delivery = await deliver(owner, 'abandoned_cart', email);
    const id = orderId();
    await sendShopifyOrder(owner, { id, email, placedAt: new Date(delivery.deliveredAt.getTime() + MINUTE_MS), total: '45.00', currency: 'USD' });
    const exported = await owner.client.call(endpoints.privacy.shopperExport, { query: { email } });
    expect(exported.status, exported.text).toBe(200);
    expect(JSON.stringify(exported.json)).toContain(String(id));
    const erased = await owner.client.call(endpoints.privacy.eraseShopper, { body: { email, unsetKlaviyo: false } });
    expect(erased.status, erased.text).toBe(200);
    expect((await attributionsOf(owner)).map((row) => [row.order_key, row.amount, row.shopper_email])).toEqual([[String(id), '45.00', null]]);
    expect((await revenueOf(owner, 30)).total.revenue).toEqual([expect.objectContaining({ currency: 'USD' })]);
  });

  it('is refused without a session', async () => {
    const response = await fetch(`${scenario.testApp.baseUrl}${endpointAddress(endpoints.revenue.read, { query: { days: 7 } })}`);
    expect(response.status).toBe(401);
  });
});
