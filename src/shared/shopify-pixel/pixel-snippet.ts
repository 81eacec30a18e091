/**
 * The custom pixel an owner pastes into Shopify (Settings → Customer events → Add custom
 * pixel) so that product views reach the Browser Abandonment flow. It runs in Shopify's
 * pixel sandbox, where `analytics`, `browser` and `init` are given
 * (docs/product/service-contracts.md §4):
 * - it sends to the pixel's own public address (pixelUrlOf), never the flow's webhook URL,
 *   which is a secret and has no place in a storefront's code;
 * - it sends only what the endpoint keeps (trustedPixelEvent in pixel-schemas.ts): ids,
 *   tokens, quantities and the shopper's email. Product titles, prices and URLs come from
 *   the shop's Admin API, and names from the shopper's Klaviyo profile;
 * - the logged-in customer's email comes from `init.data.customer`; guests' views are
 *   sent too (an add-to-cart of theirs still ends nothing, but their cart token is kept);
 * - `text/plain` keeps the request "simple", so the browser sends no CORS preflight, and
 *   `keepalive` lets it finish when the shopper leaves the page.
 * The snippet is plain ES2017 so every browser Shopify supports runs it.
 */
export function pixelSnippet(pixelUrl: string): string {
  return `// Flowsmith browsing pixel. Paste into Shopify admin: Settings → Customer events → Add custom pixel.
const FLOWSMITH_PIXEL_URL = ${JSON.stringify(pixelUrl)};

function flowsmithCustomer() {
  const customer = init.data && init.data.customer;
  if (!customer || !customer.email) return null;
  return { email: customer.email };
}

function flowsmithToken(value) {
  if (!value) return null;
  const text = decodeURIComponent(String(value));
  const token = text.replace(/^gid:\\/\\/shopify\\/Cart\\//, '').split('?')[0];
  return token || null;
}

async function flowsmithCartToken() {
  const fromInit = flowsmithToken(init.data && init.data.cart && init.data.cart.id);
  if (fromInit) return fromInit;
  try {
    return flowsmithToken(await browser.cookie.get('cart'));
  } catch (error) {
    return null;
  }
}

function flowsmithProduct(variant, quantity) {
  if (!variant || !variant.product || !variant.product.id) return null;
  return {
    id: String(variant.product.id),
    variantId: variant.id ? String(variant.id) : null,
    quantity: quantity || 1,
  };
}

async function flowsmithSend(event, details) {
  const body = Object.assign(
    {
      name: event.name,
      id: event.id,
      timestamp: event.timestamp,
      clientId: event.clientId || null,
      customer: flowsmithCustomer(),
      cartToken: await flowsmithCartToken(),
    },
    details(),
  );
  fetch(FLOWSMITH_PIXEL_URL, { method: 'POST', keepalive: true, headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify(body) }).catch(function () {});
}

analytics.subscribe('product_viewed', function (event) {
  return flowsmithSend(event, function () {
    return { product: flowsmithProduct(event.data.productVariant, 1) };
  });
});

analytics.subscribe('product_added_to_cart', function (event) {
  return flowsmithSend(event, function () {
    const line = event.data.cartLine;
    return { product: line ? flowsmithProduct(line.merchandise, line.quantity) : null };
  });
});

analytics.subscribe('checkout_started', function (event) {
  return flowsmithSend(event, function () {
    const checkout = event.data.checkout || {};
    return {
      checkout: {
        token: checkout.token || null,
        email: checkout.email || null,
        lineItems: (checkout.lineItems || []).slice(0, 100).map(function (line) {
          return flowsmithProduct(line.variant, line.quantity);
        }).filter(Boolean),
      },
    };
  });
});
`;
}
