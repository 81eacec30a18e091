import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { pixelSnippet } from '../../src/shared/shopify-pixel/pixel-snippet.ts';
import { pixelEventSchema, pixelUrlOf, trustedPixelEvent, type PixelEvent } from '../../src/shared/shopify-pixel/pixel-schemas.ts';

const pixelKey = 'ab'.repeat(32);
const pixelUrl = pixelUrlOf('https://flows.example', pixelKey);
const origin = 'https://test-shop.myshopify.com';

interface RecordedFetch {
  url: string;
  init: { method?: string; keepalive?: boolean; headers?: Record<string, string>; body?: string };
}

interface SandboxOptions {
  customer?: { email: string; firstName?: string; lastName?: string } | null;
  cart?: { id: string } | null;
  cookie?: string | null;
}

/**
 * Shopify's custom-pixel sandbox as far as the snippet uses it: `analytics.subscribe`,
 * `init.data` (customer, cart, shop), `browser.cookie.get` and `fetch`. The snippet runs
 * as the plain script an owner pastes, in its own realm, so nothing of the test leaks in.
 */
function runSnippet(options: SandboxOptions = {}) {
  const handlers = new Map<string, (event: unknown) => unknown>();
  const fetches: RecordedFetch[] = [];
  const cookieReads: string[] = [];
  const sandbox = {
    URL,
    analytics: {
      subscribe(name: string, handler: (event: unknown) => unknown) {
        handlers.set(name, handler);
      },
    },
    init: {
      data: {
        customer: options.customer ?? null,
        cart: options.cart ?? null,
        shop: { name: 'Test Shop', myshopifyDomain: 'test-shop.myshopify.com', storefrontUrl: origin },
      },
    },
    browser: {
      cookie: {
        get: async (name: string) => {
          cookieReads.push(name);
          return options.cookie ?? '';
        },
      },
    },
    fetch: (url: string, init: RecordedFetch['init']) => {
      fetches.push({ url, init });
      return Promise.resolve({ ok: true, status: 202 });
    },
  };
  vm.runInNewContext(pixelSnippet(pixelUrl), sandbox, { filename: 'flowsmith-pixel.js' });

  /** Fires one Shopify event at the snippet's handler and returns the body it sent. */
  async function fire(event: { name: string } & Record<string, unknown>): Promise<PixelEvent> {
    const handler = handlers.get(event.name);
    if (!handler) throw new Error(`the snippet does not subscribe to ${event.name}`);
    const before = fetches.length;
    await handler(event);
    expect(fetches.length).toBe(before + 1);
    const sent = fetches[fetches.length - 1]!;
    expect(sent.url).toBe(pixelUrl);
    expect(sent.init.method).toBe('POST');
    expect(sent.init.keepalive).toBe(true);
    expect(sent.init.headers).toEqual({ 'Content-Type': 'text/plain' });
    const body = JSON.parse(sent.init.body!) as unknown;
    const parsed = pixelEventSchema.safeParse(body);
    if (!parsed.success) throw new Error(`the endpoint would refuse ${sent.init.body}: ${parsed.error.message}`);
    return parsed.data;
  }

  return { handlers, fetches, cookieReads, fire };
}

const documentContext = (path: string) => ({ document: { location: { href: `${origin}${path}`, origin } } });

const variant = {
  id: '4410',
  title: 'Blue / M',
  price: { amount: 49.5, currencyCode: 'EUR' },
  product: { id: '8800', title: 'Linen Shirt', url: '/products/x', vendor: 'Flowsmith', type: 'Shirts' },
  sku: 'LS-BL-M',
  image: { src: 'https://cdn.shopify.com/linen.jpg' },
};

const productViewed = {
  name: 'product_viewed',
  id: 'sh-evt-view-1',
  clientId: 'client-7f3a',
  timestamp: '2025-05-01T10:00:00.000Z',
  type: 'standard',
  context: documentContext('/products/x?variant=4410'),
  data: { productVariant: variant },
};

const addedToCart = {
  name: 'product_added_to_cart',
  id: 'sh-evt-add-1',
  clientId: 'client-7f3a',
  timestamp: '2025-05-01T10:02:00.000Z',
  type: 'standard',
  context: documentContext('/products/x'),
  data: { cartLine: { merchandise: variant, quantity: 2, cost: { totalAmount: { amount: 99, currencyCode: 'EUR' } } } },
};

const checkoutStarted = {
  name: 'checkout_started',
  id: 'sh-evt-checkout-1',
  clientId: 'client-7f3a',
  timestamp: '2025-05-01T10:05:00.000Z',
  type: 'standard',
  context: documentContext('/checkouts/cn/c1-abc'),
  data: {
    checkout: {
      token: 'chk-token-42',
      email: 'checkout@example.com',
      totalPrice: { amount: 128.4, currencyCode: 'EUR' },
      currencyCode: 'EUR',
      lineItems: [
        { quantity: 2, title: 'Linen Shirt', variant },
        {
          quantity: 1,
          title: 'Canvas Tote',
          variant: { id: '5510', title: 'Default Title', price: { amount: 29.4, currencyCode: 'EUR' }, product: { id: '9900', title: 'Canvas Tote', url: '/products/tote' } },
        },
      ],
    },
  },
};

const customer = { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' };

describe("the pixel's address", () => {
  it('is the public URL with /api/pixel/{pixelKey}, and one /api when PUBLIC_URL ends in it', () => {
    expect(pixelUrl).toBe(`https://flows.example/api/pixel/${pixelKey}`);
    expect(pixelUrlOf('https://flows.example/', pixelKey)).toBe(`https://flows.example/api/pixel/${pixelKey}`);
    expect(pixelUrlOf('https://flows.example/api', pixelKey)).toBe(`https://flows.example/api/pixel/${pixelKey}`);
    expect(pixelUrlOf('https://example.com/flowsmith', pixelKey)).toBe(`https://example.com/flowsmith/api/pixel/${pixelKey}`);
  });

  it('is the only address in the snippet, and it is not a webhook URL', () => {
    const snippet = pixelSnippet(pixelUrl);
    expect(snippet.match(/https?:\/\/[^\s"'`]+/g)).toEqual([pixelUrl]);
    expect(snippet).not.toContain('/api/webhooks/');
  });
});

describe('the browsing pixel snippet in a Shopify-like sandbox', () => {
  it('subscribes to the three events the pixel endpoint accepts', () => {
    const { handlers } = runSnippet();
    expect([...handlers.keys()].sort()).toEqual(['checkout_started', 'product_added_to_cart', 'product_viewed']);
  });

  it('sends a product view of a logged-in customer with ids, the email and the cart token of init, and nothing else', async () => {
    const { fire, cookieReads } = runSnippet({ customer, cart: { id: 'gid://shopify/Cart/c1-abc?key=k' } });
    const body = await fire(productViewed);
    expect(body).toEqual({
      name: 'product_viewed',
      id: 'sh-evt-view-1',
      timestamp: '2025-05-01T10:00:00.000Z',
      clientId: 'client-7f3a',
      customer: { email: 'ada@example.com' },
      cartToken: 'c1-abc',
      product: { id: '8800', variantId: '4410', quantity: 1 },
    });
    // What it sends is what the endpoint keeps: no title, price, URL or name travels.
    expect(trustedPixelEvent(body, new Date(body.timestamp))).toEqual(body);
    // init already knew the cart, so the cookie was not needed.
    expect(cookieReads).toEqual([]);
  });

  it("sends a guest's view with no customer, and the cart token from the cart cookie when init has no cart", async () => {
    const { fire, cookieReads } = runSnippet({ customer: null, cart: null, cookie: 'c1-def%3Fkey%3Dsecret' });
    const body = await fire(productViewed);
    expect(body.customer).toBeNull();
    expect(body.cartToken).toBe('c1-def');
    expect(body.product).toEqual({ id: '8800', variantId: '4410', quantity: 1 });
    expect(cookieReads).toEqual(['cart']);
  });

  it('sends no cart token when neither init nor the cookie has a cart', async () => {
    const { fire } = runSnippet({ customer });
    const body = await fire(productViewed);
    expect(body.cartToken).toBeNull();
    expect(body.customer?.email).toBe('ada@example.com');
  });

  it('sends an add-to-cart with the line quantity', async () => {
    const { fire } = runSnippet({ customer, cart: { id: 'gid://shopify/Cart/c1-abc?key=k' } });
    const body = await fire(addedToCart);
    expect(body).toMatchObject({
      name: 'product_added_to_cart',
      id: 'sh-evt-add-1',
      cartToken: 'c1-abc',
      customer: { email: 'ada@example.com' },
      product: { id: '8800', variantId: '4410', quantity: 2 },
    });
  });

  it('sends a started checkout with its token, email and lines', async () => {
    const { fire } = runSnippet({ customer: null, cookie: 'c1-abc' });
    const body = await fire(checkoutStarted);
    expect(body.name).toBe('checkout_started');
    expect(body.customer).toBeNull();
    expect(body.cartToken).toBe('c1-abc');
    expect(body.product ?? null).toBeNull();
    expect(body.checkout).toEqual({
      token: 'chk-token-42',
      email: 'checkout@example.com',
      lineItems: [
        { id: '8800', variantId: '4410', quantity: 2 },
        { id: '9900', variantId: '5510', quantity: 1 },
      ],
    });
    expect(trustedPixelEvent(body, new Date(body.timestamp))).toEqual(body);
  });

  it('sends what the endpoint accepts for a sparse event (guest, no variant, no checkout email)', async () => {
    const { fire } = runSnippet();
    const body = await fire({
      ...checkoutStarted,
      data: { checkout: { token: 'chk-1', lineItems: [{ quantity: 1, variant: { product: { id: '2', title: '', url: '' } } }] } },
    });
    expect(body.checkout).toEqual({
      token: 'chk-1',
      email: null,
      lineItems: [{ id: '2', variantId: null, quantity: 1 }],
    });
  });
});
