import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sendShopifyWebhook, trailShoeOrder } from '../fakes/fake-shopify.ts';
import { credentialsInput, ownerWithFlows, shopifySecret, useEngineScenario, waitForEvent, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { reserveShopifyRequestSlot, SHOPIFY_REQUEST_SPACING_MS } from '../../src/server/engine/shop-facts/shop-product-queries.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

let owner: Owner;
const assistants = [{ name: 'Body', klaviyo_property: 'body_copy', prompt_template: 'About {name}: {description} at {product_url}' }];

const scenario = useEngineScenario({ standIns: allStandIns });
beforeAll(async () => {
  owner = await ownerWithFlows(scenario, { post_purchase: { assistants } });
});
beforeEach(() => {
  scenario.testApp.clock.advance(61_000);
  scenario.shopify.clearFailures();
});

const db = () => scenario.testApp.database.pool;


async function sendOrder(email: string, productId: number) {
  const sent = await sendShopifyWebhook(`${scenario.testApp.baseUrl}${owner.flows.post_purchase.webhookPath}`, 'orders/create', trailShoeOrder(email, productId), shopifySecret);
  expect(sent.status, sent.text).toBe(202);
  return waitForEvent(db(), JSON.parse(sent.text).eventId as string);
}

describe('product details from the shop', () => {
  it('fills in the description and URL of a line item, and asks the shop once per product', async () => {
    scenario.shopify.setProduct('7001', {
      title: 'Trail Shoe',
      description: 'A light shoe for rocky trails',
      onlineStoreUrl: 'https://shop.example/products/trail-shoe',
      featuredImage: { url: 'https://cdn.example/trail-shoe.png' },
      priceRangeV2: { minVariantPrice: { amount: '89.5', currencyCode: 'USD' } },
    });
    const before = scenario.shopify.operationCounts.product ?? 0;
    const first = uniqueEmail('first');
    expect((await sendOrder(first, 7001)).status).toBe('delivered');
    const firstText = scenario.klaviyo.profiles.get(first)?.properties.body_copy;
    expect(firstText).toContain('"description": "A light shoe for rocky trails"');
    expect(firstText).toContain('"product_url": "https://shop.example/products/trail-shoe"');

    const second = uniqueEmail('second');
    expect((await sendOrder(second, 7001)).status).toBe('delivered');
    expect(scenario.klaviyo.profiles.get(second)?.properties.body_copy).toContain('A light shoe for rocky trails');
    expect(scenario.shopify.operationCounts.product! - before).toBe(1);
    const cached = await db().query('SELECT details FROM shopify_product_cache WHERE user_id = $1 AND product_id = $2', [owner.userId, 'gid://shopify/Product/7001']);
    expect(cached.rows[0]?.details).toEqual({
      title: 'Trail Shoe',
      description: 'A light shoe for rocky trails',
      url: 'https://shop.example/products/trail-shoe',
      imageUrl: 'https://cdn.example/trail-shoe.png',
      price: { amount: '89.5', currencyCode: 'USD' },
    });
  });

  it('asks the shop again once the cached details are a day old', async () => {
    scenario.shopify.setProduct('7002', { title: 'Cap', description: 'Old text', onlineStoreUrl: null, featuredImage: null });
    expect((await sendOrder(uniqueEmail('old'), 7002)).status).toBe('delivered');
    scenario.shopify.setProduct('7002', { title: 'Cap', description: 'New text', onlineStoreUrl: null, featuredImage: null });
    await db().query(`UPDATE shopify_product_cache SET fetched_at = fetched_at - interval '25 hours' WHERE product_id = $1`, ['gid://shopify/Product/7002']);
    const email = uniqueEmail('new');
    expect((await sendOrder(email, 7002)).status).toBe('delivered');
    expect(scenario.klaviyo.profiles.get(email)?.properties.body_copy).toContain('"description": "New text"');
  });

  it('delivers without the description when Shopify is down, rate-limits or has no such product', async () => {
    scenario.shopify.setProduct('7003', { title: 'Tent', description: 'A tent', onlineStoreUrl: null, featuredImage: null });
    scenario.shopify.failNext({ on: 'graphql', kind: 'status', status: 503 });
    const down = uniqueEmail('down');
    expect((await sendOrder(down, 7003)).status).toBe('delivered');
    expect(scenario.klaviyo.profiles.get(down)?.properties.body_copy).not.toContain('A tent');

    scenario.shopify.failNext({ on: 'graphql', kind: 'status', status: 429, retryAfterSeconds: 2 });
    const limited = uniqueEmail('limited');
    expect((await sendOrder(limited, 7003)).status).toBe('delivered');
    expect(scenario.klaviyo.profiles.get(limited)?.properties.body_copy).not.toContain('A tent');

    const missing = uniqueEmail('missing');
    expect((await sendOrder(missing, 7999)).status).toBe('delivered');
    expect(scenario.klaviyo.profiles.get(missing)?.properties.body_copy).toContain('About {name}:  at');
    expect(scenario.klaviyo.profiles.get(missing)?.properties.body_copy).toContain('"name": "Trail Shoe"');
    const cached = await db().query('SELECT product_id FROM shopify_product_cache WHERE product_id = ANY($1)', [['gid://shopify/Product/7003', 'gid://shopify/Product/7999']]);
    expect(cached.rows).toEqual([]);
  });

  it("keeps each owner's cache to themselves: another owner's event asks the shop again", async () => {
    const other = await ownerWithFlows(scenario, { post_purchase: { assistants } });
    scenario.shopify.setProduct('7004', { title: 'Stove', description: 'A camp stove', onlineStoreUrl: null, featuredImage: null });
    const before = scenario.shopify.operationCounts.product ?? 0;
    expect((await sendOrder(uniqueEmail('mine'), 7004)).status).toBe('delivered');
    const sent = await sendShopifyWebhook(`${scenario.testApp.baseUrl}${other.flows.post_purchase.webhookPath}`, 'orders/create', trailShoeOrder(uniqueEmail('theirs'), 7004), shopifySecret);
    expect((await waitForEvent(db(), JSON.parse(sent.text).eventId as string)).status).toBe('delivered');
    expect(scenario.shopify.operationCounts.product! - before).toBe(2);
    const owners = await db().query<{ user_id: string }>('SELECT user_id FROM shopify_product_cache WHERE product_id = $1 ORDER BY user_id', [
      'gid://shopify/Product/7004',
    ]);
    expect(owners.rows.map((row) => row.user_id)).toEqual([owner.userId, other.userId].sort());
  });

  it("keeps Shopify's 64-bit product ids exact from the stored body to the shop's lookup", async () => {
    const bigId = '788032119674292922';
    scenario.shopify.setProduct(bigId, { title: 'Summit Pack', description: 'A pack for long days', onlineStoreUrl: null, featuredImage: null });
    const email = uniqueEmail('big-id');
    // The id as Shopify writes it: a bare 64-bit integer in the JSON text.
    const body = JSON.stringify(trailShoeOrder(email, 1)).replace('"product_id":1,', `"product_id":${bigId},`);
    const sent = await sendShopifyWebhook(`${scenario.testApp.baseUrl}${owner.flows.post_purchase.webhookPath}`, 'orders/create', body, shopifySecret);
    expect(sent.status, sent.text).toBe(202);
    const eventId = JSON.parse(sent.text).eventId as string;
    expect((await waitForEvent(db(), eventId)).status).toBe('delivered');
    const detail = await owner.client.call(endpoints.events.detail, { params: { eventId } });
    expect(detail.json.event.normalized.products[0].id).toBe(bigId);
    expect(scenario.klaviyo.profiles.get(email)?.properties.body_copy).toContain('A pack for long days');
  });

  it('spaces requests to one shop about 2 per second, across callers, and each shop on its own', async () => {
    const now = new Date(Date.now() + 3_600_000);
    const waits = await Promise.all([1, 2, 3].map(() => reserveShopifyRequestSlot(db(), 'spaced.myshopify.com', now)));
    expect(waits.sort((a, b) => a - b)).toEqual([0, SHOPIFY_REQUEST_SPACING_MS, 2 * SHOPIFY_REQUEST_SPACING_MS]);
    expect(await reserveShopifyRequestSlot(db(), 'other.myshopify.com', now)).toBe(0);
    expect(await reserveShopifyRequestSlot(db(), 'spaced.myshopify.com', new Date(now.getTime() + 10_000))).toBe(0);
  });

  it('renews a client-credentials token before it expires', async () => {
    const app = await ownerWithFlows(scenario, { post_purchase: { assistants } }, { withCredentials: false });
    const saved = await app.client.call(endpoints.credentials.save, {
      body: credentialsInput({
        shopifyAuthMethod: 'client_credentials',
        shopifyAccessToken: '',
        shopifyClientId: scenario.shopify.clientId,
        shopifyClientSecret: scenario.shopify.clientSecret,
        shopifySigningSecret: '',
      }),
    });
    expect(saved.status, saved.text).toBe(200);
    const sendAs = async (productId: number) => {
      const sent = await sendShopifyWebhook(`${scenario.testApp.baseUrl}${app.flows.post_purchase.webhookPath}`, 'orders/create', trailShoeOrder(uniqueEmail('cc'), productId), scenario.shopify.clientSecret);
      expect(sent.status, sent.text).toBe(202);
      return waitForEvent(db(), JSON.parse(sent.text).eventId as string);
    };
    scenario.shopify.setProduct('7101', { title: 'Lamp', description: 'A head lamp', onlineStoreUrl: null, featuredImage: null });
    scenario.shopify.setProduct('7102', { title: 'Rope', description: 'A climbing rope', onlineStoreUrl: null, featuredImage: null });
    expect((await sendAs(7101)).status).toBe('delivered');
    const tokens = scenario.shopify.counts['access-token'];
    const fetched = scenario.shopify.operationCounts.product!;
    // 23.5 h later the token has under an hour left: the next fetch obtains a new one first.
    scenario.testApp.clock.advance(23.5 * 60 * 60_000);
    expect((await sendAs(7102)).status).toBe('delivered');
    expect(scenario.shopify.counts['access-token']).toBe(tokens + 1);
    expect(scenario.shopify.operationCounts.product).toBe(fetched + 1);
    const cached = await db().query('SELECT product_id FROM shopify_product_cache WHERE user_id = $1 ORDER BY product_id', [app.userId]);
    expect(cached.rows.map((row) => row.product_id)).toEqual(['gid://shopify/Product/7101', 'gid://shopify/Product/7102']);
  });
});
