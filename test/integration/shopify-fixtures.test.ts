import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { sendShopifyWebhook } from '../fakes/fake-shopify.ts';
import { ownerWithFlows, postEvent, sampleEvent, shopifySecret, useEngineScenario, waitForEvent, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * Shopify's own payload shapes (test/fixtures/shopify) end to end: signed webhooks through
 * the intake and the normaliser, an order credited to a delivery in the shop's money, and
 * the privacy requests that name the shopper by customer id and orders only.
 */
const SHOPPER = 'jon.buyer@example.com';
const MINUTE_MS = 60_000;

let owner: Owner;
const scenario = useEngineScenario({ standIns: allStandIns });
beforeAll(async () => {
  owner = await ownerWithFlows(scenario, { abandoned_checkout: { waitMinutes: 30 }, abandoned_cart: {}, post_purchase: {} });
  // Shopify's sample order is a German shopper's (customer_locale "de"), and the stand-in
  // OpenAI writes English: these flows write English, as the language check then expects.
  await scenario.testApp.database.pool.query(`UPDATE flows SET text_rules = '{"language": "en"}' WHERE user_id = $1`, [owner.userId]);
});

const db = () => scenario.testApp.database.pool;
const fixture = (name: string) => readFileSync(new URL(`../fixtures/shopify/${name}`, import.meta.url), 'utf8');

/** The fixture's text with its times moved to `at`, everything else (64-bit ids too) as written. */
function at(text: string, time: Date): string {
  return text.replace(/"(created_at|updated_at|processed_at)": "[^"]+"/g, (_match, key: string) => `"${key}": "${time.toISOString()}"`);
}

async function sendFixture(path: string, topic: string, text: string): Promise<string> {
  const sent = await sendShopifyWebhook(`${scenario.testApp.baseUrl}${path}`, topic, text, shopifySecret);
  expect(sent.status, sent.text).toBe(202);
  return JSON.parse(sent.text).eventId as string;
}

async function sendPrivacyFixture(topic: string, name: string) {
  const url = (await owner.client.call(endpoints.privacy.endpoint)).json.url as string;
  const body = fixture(name);
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-shopify-topic': topic,
      'x-shopify-shop-domain': 'test-shop.myshopify.com',
      'x-shopify-webhook-id': randomUUID(),
      'x-shopify-hmac-sha256': createHmac('sha256', shopifySecret).update(body).digest('base64'),
    },
    body,
  });
  expect(response.status, await response.text()).toBe(200);
}

async function requests() {
  return (await owner.client.call(endpoints.privacy.requests)).json.requests as Array<Record<string, any>>;
}

describe("Shopify's payloads through Flowsmith", () => {
  const eventIds: string[] = [];

  it('keeps a checkout as received: its 64-bit ids exact, its timer waiting, its prices in the presentment currency', async () => {
    const id = await sendFixture(owner.flows.abandoned_checkout.webhookPath, 'checkouts/update', at(fixture('checkouts-update.json'), scenario.testApp.clock.now()));
    eventIds.push(id);
    const { rows } = await db().query('SELECT status, object_id, checkout_token, cart_token, shopper_email, raw_body FROM events WHERE id = $1', [id]);
    expect(rows[0]).toMatchObject({
      status: 'waiting',
      object_id: '981820079255243537',
      checkout_token: 'bd5a8aa1ecd019dd3520ff791ee3a24c',
      cart_token: 'hWN2SxYtkcYUZbMhQ1L8yVxu',
      shopper_email: SHOPPER,
    });
    expect(rows[0].raw_body).toContain('"id":981820079255243537');
    expect(rows[0].raw_body).toContain('115310627314723954');
  });

  it("credits the order to the shopper's delivery in the shop's money, and the order ends the checkout's timer", async () => {
    scenario.testApp.clock.advance(1_000);
    const reminder = await postEvent(scenario.testApp.baseUrl, owner.flows.abandoned_cart.webhookPath, sampleEvent('abandoned_cart', { email: SHOPPER }));
    expect(reminder.status, reminder.text).toBe(202);
    eventIds.push(reminder.json.eventId as string);
    expect((await waitForEvent(db(), reminder.json.eventId as string)).status).toBe('delivered');
    const { rows: delivered } = await db().query<{ updated_at: Date }>(`SELECT updated_at FROM event_deliveries WHERE event_id = $1 AND status = 'delivered'`, [reminder.json.eventId]);
    const placedAt = new Date(delivered[0]!.updated_at.getTime() + MINUTE_MS);
    const behind = placedAt.getTime() + MINUTE_MS - scenario.testApp.clock.now().getTime();
    if (behind > 0) scenario.testApp.clock.advance(behind);

    const orderId = await sendFixture(owner.flows.post_purchase.webhookPath, 'orders/create', at(fixture('orders-create.json'), placedAt));
    eventIds.push(orderId);
    const order = await waitForEvent(db(), orderId);
    expect(order.status, order.error ?? '').toBe('delivered');
    const { rows: normalized } = await db().query('SELECT normalized, object_id FROM events WHERE id = $1', [orderId]);
    expect(normalized[0]).toMatchObject({ object_id: '820982911946154508', normalized: { total: '183.96', currency: 'EUR', checkoutToken: 'bd5a8aa1ecd019dd3520ff791ee3a24c' } });
    const { rows: credited } = await db().query('SELECT order_key, amount::text AS amount, currency, shopper_email FROM order_attributions WHERE user_id = $1', [owner.userId]);
    expect(credited).toEqual([{ order_key: '820982911946154508', amount: '199.00', currency: 'USD', shopper_email: SHOPPER }]);
    const checkout = await waitForEvent(db(), eventIds[0]!, { statuses: ['skipped', 'delivered', 'failed'] });
    expect(checkout.status).toBe('skipped');
  });

  it('answers a data request without an email with everything the customer id and order find', async () => {
    await sendPrivacyFixture('customers/data_request', 'customers-data-request-no-email.json');
    await expect.poll(async () => (await requests())[0]?.status, { timeout: 15_000 }).toBe('done');
    const [request] = await requests();
    expect(request).toMatchObject({ customerId: '115310627314723954', shopperEmail: null });
    const download = await owner.client.get(request!.exportLocation as string);
    expect(download.json.shoppers).toEqual([SHOPPER]);
    expect(download.json.events.map((event: { id: string }) => event.id).sort()).toEqual([...eventIds].sort());
    expect(download.json.attributedOrders).toEqual([expect.objectContaining({ orderKey: '820982911946154508' })]);
  });

  it('erases the shopper on a redaction whose email is empty, keeping the revenue without the address', async () => {
    await sendPrivacyFixture('customers/redact', 'customers-redact-empty-email.json');
    await expect.poll(async () => (await requests()).filter((request) => request.status === 'done').length, { timeout: 15_000 }).toBe(2);
    expect((await db().query('SELECT id FROM events WHERE id = ANY($1)', [eventIds])).rows).toEqual([]);
    const { rows } = await db().query('SELECT order_key, shopper_email FROM order_attributions WHERE user_id = $1', [owner.userId]);
    expect(rows).toEqual([{ order_key: '820982911946154508', shopper_email: null }]);
  });

  it("erases the shop's events on shop/redact, carts included", async () => {
    const cart = await sendFixture(owner.flows.abandoned_cart.webhookPath, 'carts/update', fixture('carts-update.json'));
    await waitForEvent(db(), cart, { statuses: ['skipped', 'delivered', 'failed', 'received', 'waiting'] });
    await sendPrivacyFixture('shop/redact', 'shop-redact.json');
    await expect.poll(async () => (await requests()).filter((request) => request.status === 'done').length, { timeout: 15_000 }).toBe(3);
    expect((await db().query('SELECT count(*)::int AS n FROM events WHERE user_id = $1', [owner.userId])).rows[0].n).toBe(0);
  });
});
