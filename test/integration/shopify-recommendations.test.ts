import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeShopify, type FakeShopify, type FakeStorefrontProduct } from '../fakes/fake-shopify.ts';
import { decimalOfCents, fetchShopifyRecommendations, type StorefrontRecommendation } from '../../src/server/integrations/shopify/shopify-recommendations.ts';
import { fetchShopifyProduct } from '../../src/server/integrations/shopify/shopify-products.ts';
import { ServiceError } from '../../src/server/integrations/service-error.ts';

/**
 * The storefront recommendations client against the Shopify stand-in, and the stand-in
 * against Shopify's Ajax API (docs/decisions/0032-vendor-definitions.md, "Shopify's
 * product recommendations").
 */

const trailShoe = '7101';
const sock: FakeStorefrontProduct = { id: 7102, title: 'Trail Sock', handle: 'trail-sock', price: 1200, image: '//cdn.shopify.com/s/files/1/0001/files/trail-sock.jpg' };
const gaiter: FakeStorefrontProduct = { id: 7103, title: 'Ankle Gaiter', price: 2450, available: false, image: null };
const hiddenShell: FakeStorefrontProduct = { id: 7104, title: 'Storm Shell (draft)', price: 17472, published: false };
const bottle: FakeStorefrontProduct = { id: 7105, title: 'Trail Bottle', price: 2400, compareAtPrice: 3000, image: '//cdn.shopify.com/s/files/1/0001/files/bottle.jpg' };

let shopify: FakeShopify;
const connection = () => ({ shopUrl: shopify.baseUrl, timeoutMs: 2_000 });
const ask = (product: string, intent: 'related' | 'complementary' = 'related', limit = 10, timeoutMs?: number) =>
  fetchShopifyRecommendations({ ...connection(), ...(timeoutMs ? { timeoutMs } : {}) }, { productGid: product, intent, limit }, AbortSignal.timeout(10_000));

async function call(url: string) {
  const response = await fetch(url);
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

beforeAll(async () => {
  shopify = await startFakeShopify({
    recommendations: [{ productId: trailShoe, intent: 'related', products: [sock, gaiter, hiddenShell, bottle] }],
  });
});
afterEach(() => shopify.clearFailures());
// close() fails if anything sent or answered broke the definition and was not taken.
afterAll(() => shopify.close());

describe('fetchShopifyRecommendations', () => {
  it("answers the storefront's related products, published only, unavailable ones marked, without a token", async () => {
    const before = shopify.counts.recommendations;
    const found = await ask(`gid://shopify/Product/${trailShoe}`);
    expect(found.map((product) => product.title)).toEqual(['Trail Sock', 'Ankle Gaiter', 'Trail Bottle']);
    expect(found[0]).toEqual<StorefrontRecommendation>({
      gid: 'gid://shopify/Product/7102',
      title: 'Trail Sock',
      url: expect.stringMatching(new RegExp(`^${shopify.baseUrl}/products/trail-sock\\?pr_prod_strat=[^&]+&pr_rec_id=[^&]+&pr_rec_pid=7102&pr_ref_pid=${trailShoe}&pr_seq=uniform$`)) as unknown as string,
      imageUrl: 'https://cdn.shopify.com/s/files/1/0001/files/trail-sock.jpg',
      price: '12.00',
      available: true,
    });
    expect(found[1]).toMatchObject({ gid: 'gid://shopify/Product/7103', available: false, imageUrl: null, price: '24.50' });
    expect(found[2]).toMatchObject({ price: '24.00', url: expect.stringMatching(/\/products\/trail-bottle\?/) });

    expect(shopify.counts.recommendations - before).toBe(1);
    const request = shopify.recommendationRequests().at(-1)!;
    expect(request.path).toBe('/recommendations/products.json');
    expect(Object.fromEntries(request.query)).toEqual({ product_id: trailShoe, intent: 'related', limit: '10' });
    expect(request.headers['x-shopify-access-token']).toBeUndefined();
    expect(request.headers.authorization).toBeUndefined();
  });

  it('finds each recommended product through the Admin API too, by the same title', async () => {
    // 30 s only against a hang: the stand-in's first answer builds Shopify's schema, over 2 s on a busy run.
    const details = await fetchShopifyProduct({ shopUrl: shopify.baseUrl, accessToken: 'shpat_test_valid' }, 'gid://shopify/Product/7102', AbortSignal.timeout(30_000));
    expect(details).toMatchObject({ title: 'Trail Sock', price: { amount: '12.0', currencyCode: 'USD' }, imageUrl: 'https://cdn.shopify.com/s/files/1/0001/files/trail-sock.jpg' });
    const hidden = await fetchShopifyProduct({ shopUrl: shopify.baseUrl, accessToken: 'shpat_test_valid' }, 'gid://shopify/Product/7104', AbortSignal.timeout(30_000));
    expect(hidden).toMatchObject({ title: 'Storm Shell (draft)', url: null });
  });

  it('answers at most `limit`', async () => {
    expect((await ask(trailShoe, 'related', 1)).map((product) => product.title)).toEqual(['Trail Sock']);
    expect(shopify.recommendationRequests().at(-1)!.query.get('limit')).toBe('1');
  });

  it('answers complementary products where the merchant set them up, and none where not', async () => {
    expect(await ask(trailShoe, 'complementary')).toEqual([]);
    shopify.setRecommendations(trailShoe, 'complementary', [bottle]);
    const paired = await ask(trailShoe, 'complementary');
    expect(paired.map((product) => product.gid)).toEqual(['gid://shopify/Product/7105']);
    expect(shopify.recommendationRequests().at(-1)!.query.get('intent')).toBe('complementary');
    // The related list is unchanged.
    expect(await ask(trailShoe)).toHaveLength(3);
  });

  it('has none for a product the storefront does not show: unknown, or not published (404)', async () => {
    expect(await ask('gid://shopify/Product/999999')).toEqual([]);
    expect(await ask('7104')).toEqual([]);
    expect(shopify.recommendationRequests().at(-1)!.status).toBe(404);
  });

  it('keeps product ids past 2^53 exact', async () => {
    shopify.setRecommendations('7106', 'related', [{ id: '9007199254740993', title: 'Big Id Tent', price: 39900 }]);
    expect((await ask('7106')).map((product) => product.gid)).toEqual(['gid://shopify/Product/9007199254740993']);
  });

  it('leaves out a product it cannot read, and keeps the others', async () => {
    shopify.setRecommendations('7107', 'related', [
      { id: 7108, title: 'Priced In Words', price: 100, raw: { price: 'free' } },
      { id: 7109, title: 'No Title', price: 100, raw: { title: null } },
      { id: 7110, title: 'Elsewhere', price: 100, raw: { url: 'javascript:alert(1)' } },
      { id: 7111, title: 'Readable Cap', price: 1999, raw: { surprise_field: { nested: true } } },
    ]);
    expect((await ask('7107')).map((product) => [product.title, product.price])).toEqual([['Readable Cap', '19.99']]);
  });

  it('follows the storefront to its primary domain, and says so when the online store is closed', async () => {
    const primary = await startFakeShopify({ recommendations: [{ productId: trailShoe, intent: 'related', products: [sock] }] });
    try {
      shopify.setStorefrontRedirect(primary.baseUrl);
      const found = await ask(trailShoe);
      expect(found.map((product) => product.title)).toEqual(['Trail Sock']);
      expect(found[0]!.url.startsWith(`${primary.baseUrl}/products/trail-sock?`)).toBe(true);
      expect(shopify.recommendationRequests().at(-1)!.status).toBe(301);
    } finally {
      shopify.setStorefrontRedirect(null);
      await primary.close();
    }
    shopify.setStorefrontPassword(true);
    try {
      const closed = await failure(ask(trailShoe));
      expect(closed).toMatchObject({ code: 'not_found', kind: 'permanent', status: 302 });
      expect(closed.message).toContain('password');
    } finally {
      shopify.setStorefrontPassword(false);
    }
  });

  it('throws a retryable ServiceError on a 5xx, a 429 with its wait, and no answer in time', async () => {
    shopify.failNext({ on: 'recommendations', kind: 'status', status: 503 });
    expect(await failure(ask(trailShoe))).toMatchObject({ service: 'shopify', code: 'server_error', kind: 'retryable', status: 503 });

    shopify.failNext({ on: 'recommendations', kind: 'status', status: 429, retryAfterSeconds: 2 });
    expect(await failure(ask(trailShoe))).toMatchObject({ code: 'rate_limited', retryAfterMs: 2_000 });

    shopify.failNext({ on: 'recommendations', kind: 'hang' });
    const started = performance.now();
    const late = await failure(ask(trailShoe, 'related', 10, 300));
    expect(late).toMatchObject({ code: 'timeout', retryable: true, status: null });
    expect(performance.now() - started).toBeLessThan(5_000);

    // A failure meant for the Admin API leaves the storefront alone.
    shopify.failNext({ on: 'graphql', kind: 'status', status: 503 });
    expect(await ask(trailShoe)).toHaveLength(3);
  });

  it('throws a ServiceError naming the refusal on another 4xx, and never sends what the storefront refuses', async () => {
    shopify.failNext({ on: 'recommendations', kind: 'status', status: 403 });
    expect(await failure(ask(trailShoe))).toMatchObject({ code: 'forbidden', status: 403 });
    const requests = shopify.counts.recommendations;
    await expect(ask(trailShoe, 'related', 11)).rejects.toThrow(RangeError);
    await expect(ask(trailShoe, 'related', 0)).rejects.toThrow(RangeError);
    await expect(ask('gid://shopify/ProductVariant/1')).rejects.toThrow(RangeError);
    expect(shopify.counts.recommendations).toBe(requests);
  });

  it('turns cents into a two-decimal amount', () => {
    expect([0, 5, 99, 100, 2400, 2450, 17472, 123456789].map(decimalOfCents)).toEqual(['0.00', '0.05', '0.99', '1.00', '24.00', '24.50', '174.72', '1234567.89']);
  });
});

describe('the stand-in against the Ajax API', () => {
  it('answers with a locale prefix, related and 10 at most by default, in the storefront product JSON', async () => {
    const answer = await call(`${shopify.baseUrl}/fr/recommendations/products.json?product_id=${trailShoe}`);
    expect(answer.status).toBe(200);
    expect(answer.json!.intent).toBe('related');
    const products = answer.json!.products as Array<Record<string, unknown>>;
    expect(products.map((product) => product.id)).toEqual([7102, 7103, 7105]);
    expect(products[2]).toMatchObject({
      title: 'Trail Bottle',
      handle: 'trail-bottle',
      price: 2400,
      price_min: 2400,
      price_max: 2400,
      compare_at_price: 3000,
      available: true,
      featured_image: '//cdn.shopify.com/s/files/1/0001/files/bottle.jpg',
      images: ['//cdn.shopify.com/s/files/1/0001/files/bottle.jpg'],
    });
    expect(products[2]!.url).toMatch(/^\/products\/trail-bottle\?pr_prod_strat=/);
    expect((await call(`${shopify.baseUrl}/en-us/recommendations/products.json?product_id=${trailShoe}&limit=2`)).json!.products).toHaveLength(2);
  });

  it("refuses invalid parameters with 422 and Shopify's error body, and records each as a violation", async () => {
    const base = `${shopify.baseUrl}/recommendations/products.json`;
    const refused = [`${base}`, `${base}?product_id=abc`, `${base}?product_id=${trailShoe}&limit=0`, `${base}?product_id=${trailShoe}&limit=11`, `${base}?product_id=${trailShoe}&intent=upsell`];
    for (const url of refused) {
      const answer = await call(url);
      expect(answer.status, url).toBe(422);
      expect(answer.json, url).toMatchObject({ status: 422, message: 'Invalid parameter error', description: expect.any(String) as unknown as string });
    }
    const violations = shopify.takeViolations();
    expect(violations).toHaveLength(refused.length);
    expect(violations.every((violation) => violation.side === 'request')).toBe(true);
  });

  it('answers 404 "Product not found" for a product it does not show, without a violation', async () => {
    const answer = await call(`${shopify.baseUrl}/recommendations/products.json?product_id=424242`);
    expect(answer.status).toBe(404);
    expect(answer.json).toMatchObject({ status: 404, message: 'Product not found' });
    expect(shopify.takeViolations()).toEqual([]);
  });
});
