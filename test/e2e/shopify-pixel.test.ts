import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import type { E2EServer } from '../support/e2e-server.ts';
import { expectNoBrowserErrors, expectNoSeriousA11yViolations, type BrowserErrors, toastOf, dismissToasts, E2E_WAIT_MS } from '../support/browser.ts';
import { createSignedInUser, type E2EUser } from '../support/e2e-accounts.ts';
import type { FakeShopify } from '../fakes/fake-shopify.ts';
import { credentialsInput, defaultAssistants } from '../support/engine-scenario.ts';
import type { FlowType } from '../../src/shared/flows/flow-types.ts';
import { pixelSnippet } from '../../src/shared/shopify-pixel/pixel-snippet.ts';
import { pixelMessages } from '../../src/shared/shopify-pixel/pixel-messages.ts';
import { shopifyConnectMessages } from '../../src/shared/shopify-connect/shopify-connect-messages.ts';
import { checkPixelType } from '../contracts/shopify-definition.ts';
import { useE2ESuite } from '../support/e2e-suite.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

let server: E2EServer;
let shopify: FakeShopify;
let context: BrowserContext;
let page: Page;
let errors: BrowserErrors;
useE2ESuite((started) => ({ server, shopify } = started), (opened) => ({ context, page, errors } = opened));

const toast = (text: string) => toastOf(page, text);

/** An owner with credentials and the given flows saved active (each with its wait); returns the flows' webhook URLs. */
async function ownerWithFlows(waits: Partial<Record<FlowType, number>>): Promise<{ user: E2EUser; webhookUrls: Record<FlowType, string> }> {
  const user = await createSignedInUser(server, context);
  expect((await user.client.call(endpoints.credentials.save, { body: credentialsInput() })).status).toBe(200);
  expect((await user.client.call(endpoints.flows.initialize)).status).toBe(200);
  for (const [flowType, waitMinutes] of Object.entries(waits)) {
    const saved = await user.client.call(endpoints.flows.update, { params: { flowType }, body: { isActive: true, assistants: defaultAssistants, klaviyoEventName: null, waitMinutes } });
    expect(saved.status, saved.text).toBe(200);
  }
  const flows = await user.client.call(endpoints.flows.list);
  expect(flows.status, flows.text).toBe(200);
  const webhookUrls = Object.fromEntries((flows.json.flows as Array<{ flowType: FlowType; webhookUrl: string | null }>).map((flow) => [flow.flowType, flow.webhookUrl]));
  return { user, webhookUrls: webhookUrls as Record<FlowType, string> };
}

/** A subscription as if registered earlier (the store keeps them whatever PUBLIC_URL is now). */
function registerInFakeStore(topic: string, uri: string): void {
  const id = `gid://shopify/WebhookSubscription/e2e-${shopify.webhookSubscriptions.size + 1}`;
  const stamp = new Date().toISOString();
  shopify.webhookSubscriptions.set(id, { id, topic, uri, includeFields: [], format: 'JSON', createdAt: stamp, updatedAt: stamp });
}

describe('the browsing pixel on the Browser Abandonment page', () => {
  it("shows this flow's pixel code with where to paste it, and copies it", async () => {
    const { user, webhookUrls } = await ownerWithFlows({ browser_abandonment: 60 });
    const webhookUrl = webhookUrls.browser_abandonment;
    expect(webhookUrl).toMatch(new RegExp(`^${server.baseUrl}/api/webhooks/browser_abandonment/`));
    const address = await user.client.call(endpoints.flows.pixelAddress);
    expect(address.status, address.text).toBe(200);
    const pixelUrl = address.json.pixelUrl as string;
    expect(pixelUrl).toMatch(new RegExp(`^${server.baseUrl}/api/pixel/[0-9a-f]{64}$`));
    const expectedSnippet = pixelSnippet(pixelUrl);

    await page.goto('/flows/browser-abandonment/store');
    const card = page.getByRole('region', { name: pixelMessages.title });
    await card.getByRole('heading', { level: 2, name: pixelMessages.title }).waitFor();
    for (const step of pixelMessages.steps) await card.getByText(step, { exact: true }).waitFor();
    await card.getByText(pixelMessages.loggedInOnly, { exact: true }).waitFor();
    await card.getByText(pixelMessages.cancelledBy('1 hour'), { exact: true }).waitFor();

    // The code block is labelled, and holds exactly the snippet for this flow's pixel URL.
    const code = page.getByRole('region', { name: pixelMessages.codeLabel });
    expect(await code.textContent()).toBe(expectedSnippet);
    expect(await code.textContent()).toContain(JSON.stringify(pixelUrl));
    // The flow's webhook URL is a secret: it has no place in a storefront's code.
    expect(await code.textContent()).not.toContain(webhookUrl);
    expect(await code.textContent()).not.toContain(webhookUrl.split('/').at(-1)!);
    expect(await code.evaluate((element) => getComputedStyle(element).fontFamily)).toMatch(/mono/i);

    // Product views come from the pixel; the store's orders end the browsing timers, so the
    // Connect store card is here too, with the order topic and why this flow needs it.
    const connectCard = page.getByTestId('connect-store-card');
    await connectCard.getByRole('heading', { name: shopifyConnectMessages.title, exact: true }).waitFor();
    await connectCard.getByText('ORDERS_CREATE').first().waitFor();

    await card.getByRole('button', { name: pixelMessages.copy }).click();
    await toast(pixelMessages.copied).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(expectedSnippet);

    // A clipboard that refuses: the failure toast, not a false success.
    await dismissToasts(page);
    await page.evaluate(() => {
      navigator.clipboard.writeText = () => Promise.reject(new DOMException('Write permission denied.', 'NotAllowedError'));
    });
    await card.getByRole('button', { name: pixelMessages.copy }).click();
    await toast(pixelMessages.copyFailed).waitFor();

    await dismissToasts(page);
    await expectNoSeriousA11yViolations(page);
    expectNoBrowserErrors(errors);
  });
});

describe('Connect store on a flow page', () => {
  it("lists the topics this flow needs, whether the store has each at the right address and why, and says PUBLIC_URL is not public instead of registering", async () => {
    const { webhookUrls } = await ownerWithFlows({ abandoned_checkout: 30, abandoned_cart: 45 });
    expect(webhookUrls.abandoned_cart).toMatch(new RegExp(`^${server.baseUrl}/api/webhooks/abandoned_cart/`));
    registerInFakeStore('CHECKOUTS_UPDATE', webhookUrls.abandoned_checkout);
    registerInFakeStore('CARTS_CREATE', webhookUrls.abandoned_cart);
    // An order topic an earlier connect left at the cart flow: with Post Purchase off it belongs at the checkout flow.
    registerInFakeStore('ORDERS_CREATE', webhookUrls.abandoned_cart);
    // And a duplicate at an earlier address, which the next connect removes.
    const earlierAddress = webhookUrls.abandoned_checkout.replace(server.baseUrl, 'https://earlier-host.example');
    registerInFakeStore('CHECKOUTS_UPDATE', earlierAddress);
    const createsBefore = shopify.operationCounts.webhookSubscriptionCreate ?? 0;
    const m = shopifyConnectMessages;

    await page.goto('/flows/abandoned-checkout/store');
    const card = page.getByRole('region', { name: m.title });
    await card.getByText(m.flowDescription('Abandoned Checkout'), { exact: true }).waitFor();
    // The e2e server's PUBLIC_URL is 127.0.0.1, which Shopify cannot reach.
    await card.getByRole('alert').filter({ hasText: m.notPublic }).waitFor();
    expect(await card.getByRole('button', { name: m.connect }).isDisabled()).toBe(true);

    // Each topic the flow needs: in words, whether the store has it at the right address, and why.
    const planned = card.getByRole('list', { name: m.flowPlannedTitle });
    await planned.waitFor();
    const rows = planned.getByRole('listitem');
    const rowOf = (topic: string) => rows.filter({ hasText: m.topicInWords(topic) });
    const topics = ['CHECKOUTS_CREATE', 'CHECKOUTS_UPDATE', 'CHECKOUTS_DELETE', 'ORDERS_CREATE'];
    const texts = await rows.allInnerTexts();
    expect(texts.map((text) => text.split('\n')[0])).toEqual(['Checkouts (created)', 'Checkouts (updated)', 'Checkouts (deleted)', 'Orders (created)']);
    topics.forEach((topic, index) => expect(texts[index]).toContain(topic));
    const updated = await rowOf('CHECKOUTS_UPDATE').innerText();
    expect(updated).toContain(m.state.registered);
    expect(updated).toContain(m.reasons.CHECKOUTS_UPDATE);
    expect(updated).toContain(webhookUrls.abandoned_checkout);
    const created = await rowOf('CHECKOUTS_CREATE').innerText();
    expect(created).toContain(m.state.missing);
    expect(created).toContain(m.reasons.CHECKOUTS_CREATE);
    const orders = await rowOf('ORDERS_CREATE').innerText();
    expect(orders).toContain(m.reasons.ordersForTimers('Abandoned Checkout'));
    expect(orders).toContain(m.state.elsewhere);
    expect(orders).toContain(m.deliveredTo('Abandoned Checkout'));
    expect(orders).toContain(`${m.nowAt} ${webhookUrls.abandoned_cart}`);
    expect(await card.getByText(m.topicInWords('CARTS_CREATE')).count()).toBe(0);
    // What the next connect removes: the duplicate at the earlier address.
    const stale = card.getByRole('list', { name: m.staleTitle }).getByRole('listitem');
    expect(await stale.count()).toBe(1);
    expect(await stale.first().innerText()).toContain(earlierAddress);
    // No pixel on a page whose events come by webhook.
    expect(await page.getByRole('heading', { name: pixelMessages.title }).count()).toBe(0);
    await expectNoSeriousA11yViolations(page);

    // The abandoned cart page: its own topics, and the order topic it needs, delivered to the checkout flow.
    await page.goto('/flows/abandoned-cart/store');
    const cartRows = page.getByRole('region', { name: m.title }).getByRole('list', { name: m.flowPlannedTitle }).getByRole('listitem');
    await cartRows.first().waitFor();
    expect(await cartRows.count()).toBe(3);
    expect(await cartRows.first().innerText()).toContain(m.state.registered);
    expect(await cartRows.filter({ hasText: m.topicInWords('ORDERS_CREATE') }).innerText()).toContain(m.deliveredTo('Abandoned Checkout'));

    // API settings, without a flow, lists every planned topic.
    await page.goto('/settings/api');
    const settingsRows = page.getByRole('region', { name: m.title }).getByRole('list', { name: m.plannedTitle }).getByRole('listitem');
    await settingsRows.nth(5).waitFor();
    expect(await settingsRows.count()).toBe(6);

    // Nothing was registered: the server refuses too, but the page never asked.
    expect(shopify.operationCounts.webhookSubscriptionCreate ?? 0).toBe(createsBefore);
    expectNoBrowserErrors(errors);
  });
});

/**
 * A storefront on an origin of its own (localhost, where the app is 127.0.0.1), running
 * the pasted snippet the way Shopify runs a custom pixel: as a plain script with globals
 * `analytics` (subscribe), `init` (held to RegisterInit) and `browser`. `/` runs it in the page itself; `/sandboxed`
 * runs it in an iframe sandboxed to scripts only, as Shopify's pixel sandbox does, whose
 * requests carry `Origin: null`. `window.fireShopifyEvent(event)` is Shopify publishing an event.
 */
async function startStorefront(snippet: string, customerEmail: string): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  const init = registerInit(origin, customerEmail);
  const sandboxScript = `
    const subscribers = new Map();
    window.analytics = { subscribe(name, callback) { subscribers.set(name, callback); return () => subscribers.delete(name); } };
    window.init = ${JSON.stringify(init)};
    window.browser = { cookie: { get: async () => '' } };
    window.fireShopifyEvent = async (event) => { await subscribers.get(event.name)(event); return true; };
  `;
  const pixelPage = `<!doctype html><title>Storefront</title><script>${sandboxScript}</script><script>${snippet}</script>`;
  const html = (body: string) => `<!doctype html><html lang="en"><head><title>Storefront</title></head><body>${body}</body></html>`;
  server.on('request', (request, response) => {
    response.setHeader('content-type', 'text/html; charset=utf-8');
    if (request.url === '/pixel-frame') return response.end(pixelPage);
    if (request.url === '/sandboxed') return response.end(html('<iframe title="pixel" sandbox="allow-scripts" src="/pixel-frame"></iframe>'));
    return response.end(pixelPage);
  });
  return { origin, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The context Shopify gives every event and `init`: the storefront page the shopper is on. */
function pageContext(storefrontOrigin: string, path: string) {
  const url = new URL(path, storefrontOrigin);
  const location = { hash: '', host: url.host, hostname: url.hostname, href: url.href, origin: url.origin, pathname: url.pathname, port: url.port, protocol: url.protocol, search: '' };
  return {
    document: { characterSet: 'UTF-8', location, referrer: '', title: 'Storm Shell' },
    navigator: { cookieEnabled: true, language: 'en', languages: ['en'], userAgent: 'Chromium' },
    window: {
      innerHeight: 800, innerWidth: 1280, location, origin: url.origin, outerHeight: 800, outerWidth: 1280,
      pageXOffset: 0, pageYOffset: 0, screen: { height: 800, width: 1280 }, screenX: 0, screenY: 0, scrollX: 0, scrollY: 0,
    },
  };
}

/** The sandbox's `init` for a logged-in shopper, held to the Web Pixels API's RegisterInit type. */
function registerInit(storefrontOrigin: string, email: string) {
  const init = {
    context: pageContext(storefrontOrigin, '/products/storm-shell'),
    data: {
      customer: { email, firstName: 'Kim', lastName: 'Buyer', id: '115310627314723954', ordersCount: 1, phone: null },
      cart: null,
      shop: { countryCode: 'DE', myshopifyDomain: 'test-shop.myshopify.com', name: 'Test Shop', paymentSettings: { currencyCode: 'EUR' }, storefrontUrl: storefrontOrigin },
      purchasingCompany: null,
    },
    customerPrivacy: { analyticsProcessingAllowed: true, marketingAllowed: true, preferencesProcessingAllowed: true, saleOfDataAllowed: true },
  };
  expect(checkPixelType('RegisterInit', init).problems, 'init as Shopify defines it').toEqual([]);
  return init;
}

/** A product_viewed event as Shopify's Web Pixels API publishes it, held to its type definition. */
function productViewedEvent(storefrontOrigin: string, productId: string) {
  const event = {
    id: `sh-${randomUUID()}`,
    name: 'product_viewed' as const,
    type: 'standard' as const,
    seq: 3,
    clientId: `client-${randomUUID()}`,
    timestamp: new Date().toISOString(),
    context: pageContext(storefrontOrigin, '/products/storm-shell'),
    data: {
      productVariant: {
        id: '4201',
        image: null,
        price: { amount: 149, currencyCode: 'EUR' },
        product: { id: productId, title: 'Storm Shell', type: null, untranslatedTitle: 'Storm Shell', url: '/products/storm-shell', vendor: 'Test Shop' },
        sku: null,
        title: 'M',
        untranslatedTitle: 'M',
      },
    },
  };
  const checked = checkPixelType('PixelEventsProductViewed', event);
  expect(checked.problems, 'the event as Shopify defines it').toEqual([]);
  return event;
}

describe('the pixel running in a storefront on another origin', () => {
  for (const where of ['/', '/sandboxed'] as const) {
    it(`reaches the flow from ${where === '/' ? 'the storefront page' : "a sandboxed frame, as Shopify's custom pixels run"}, and the view waits on its timer`, async () => {
      const { user } = await ownerWithFlows({ browser_abandonment: 60 });
      const pixelUrl = (await user.client.call(endpoints.flows.pixelAddress)).json.pixelUrl as string;
      const email = `viewer-${randomUUID()}@example.com`;
      const storefront = await startStorefront(pixelSnippet(pixelUrl), email);
      try {
        expect(new URL(storefront.origin).origin).not.toBe(new URL(server.baseUrl).origin);
        const shopPage = await context.newPage();
        // What the storefront's browser got: a status, or the reason it got none (a CORS block).
        const answers: Array<number | string> = [];
        shopPage.on('requestfinished', (request) => {
          if (request.url() === pixelUrl) void request.response().then((response) => answers.push(response?.status() ?? 'no response'));
        });
        shopPage.on('requestfailed', (request) => {
          if (request.url() === pixelUrl) answers.push(request.failure()?.errorText ?? 'failed');
        });
        await shopPage.goto(`${storefront.origin}${where}`);
        const runner = where === '/' ? shopPage.mainFrame() : await (await shopPage.waitForSelector('iframe')).contentFrame();
        await runner!.waitForFunction(() => 'fireShopifyEvent' in window);
        const event = productViewedEvent(storefront.origin, '8801');
        expect(await runner!.evaluate((shopifyEvent) => (window as unknown as { fireShopifyEvent(e: unknown): Promise<boolean> }).fireShopifyEvent(shopifyEvent), event)).toBe(true);

        await expect.poll(() => answers, { timeout: E2E_WAIT_MS }).toEqual([202]);
        expect(server.output()).not.toMatch(/"cross_site"/);
        await expect
          .poll(async () => {
            const listed = await user.client.call(endpoints.events.list, { query: { flowType: 'browser_abandonment' } });
            const events = listed.json.events as Array<{ source: string; status: string; shopperEmail: string | null; waitsUntil: string | null }>;
            return events.map(({ source, status, shopperEmail, waitsUntil }) => ({ source, status, shopperEmail, waiting: waitsUntil !== null }));
          }, { timeout: E2E_WAIT_MS, interval: 250 })
          .toEqual([{ source: 'pixel', status: 'waiting', shopperEmail: email, waiting: true }]);
        await shopPage.close();
      } finally {
        await storefront.close();
      }
    });
  }
});
