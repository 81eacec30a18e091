/**
 * The custom pixel an owner pastes into Shopify (Settings → Customer events → Add custom
 * pixel) so that product views reach the Browser Abandonment flow. It runs in Shopify's
 * pixel sandbox, where `analytics`, `browser` and `init` are given (INTEGRATIONS.md):
 * - it sends only what pixel-schemas.ts accepts, picked out of Shopify's event data;
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
  return { email: customer.email, firstName: customer.firstName || null, lastName: customer.lastName || null };
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

function flowsmithProduct(variant, quantity, origin) {
  if (!variant || !variant.product || !variant.product.id) return null;
  const url = variant.product.url ? new URL(variant.product.url, origin).href.slice(0, 2000) : null;
  return {
    id: String(variant.product.id),
    title: (variant.product.title || variant.title || '').slice(0, 500) || null,
    url: url,
    price: variant.price ? variant.price.amount : null,
    currencyCode: variant.price ? variant.price.currencyCode : null,
    quantity: quantity || 1,
  };
}

async function flowsmithSend(event, details) {
  const location = event.context && event.context.document && event.context.document.location;
  const body = Object.assign(
    {
      name: event.name,
      id: event.id,
      timestamp: event.timestamp,
      clientId: event.clientId || null,
      customer: flowsmithCustomer(),
      cartToken: await flowsmithCartToken(),
      // Bounded as the endpoint requires: long tracking parameters must not cost the event.
      url: location ? String(location.href).slice(0, 2000) : null,
    },
    details(location ? location.origin : 'https://' + (init.data.shop && init.data.shop.myshopifyDomain)),
  );
  fetch(FLOWSMITH_PIXEL_URL, { method: 'POST', keepalive: true, headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify(body) }).catch(function () {});
}

analytics.subscribe('product_viewed', function (event) {
  return flowsmithSend(event, function (origin) {
    return { product: flowsmithProduct(event.data.productVariant, 1, origin) };
  });
});

analytics.subscribe('product_added_to_cart', function (event) {
  return flowsmithSend(event, function (origin) {
    const line = event.data.cartLine;
    return { product: line ? flowsmithProduct(line.merchandise, line.quantity, origin) : null };
  });
});

analytics.subscribe('checkout_started', function (event) {
  return flowsmithSend(event, function (origin) {
    const checkout = event.data.checkout || {};
    return {
      checkout: {
        token: checkout.token || null,
        email: checkout.email || null,
        totalPrice: checkout.totalPrice ? checkout.totalPrice.amount : null,
        currencyCode: checkout.currencyCode || null,
        lineItems: (checkout.lineItems || []).slice(0, 100).map(function (line) {
          return flowsmithProduct(line.variant, line.quantity, origin);
        }).filter(Boolean),
      },
    };
  });
});
`;
}
