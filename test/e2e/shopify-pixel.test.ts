import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { E2EServer } from '../support/e2e-server.ts';
import { startE2EServerWithServices, type E2EWithServices } from '../support/e2e-services.ts';
import { expectNoBrowserErrors, expectNoSeriousA11yViolations, launchBrowser, type BrowserErrors, openPageForEachTest, toastOf, dismissToasts } from '../support/browser.ts';
import { createSignedInUser, type E2EUser } from '../support/e2e-accounts.ts';
import type { FakeShopify } from '../fakes/fake-shopify.ts';
import { credentialsInput, defaultAssistants } from '../fakes/engine-scenario.ts';
import type { FlowType } from '../../src/shared/flows/flow-types.ts';
import { pixelSnippet } from '../../src/shared/shopify-pixel/pixel-snippet.ts';
import { pixelMessages } from '../../src/shared/shopify-pixel/pixel-messages.ts';
import { shopifyConnectMessages } from '../../src/shared/shopify-connect/shopify-connect-messages.ts';
import { flowWebhookTopics } from '../../src/shared/shopify-connect/shopify-connect-schemas.ts';

let services: E2EWithServices;
let server: E2EServer;
let shopify: FakeShopify;
let browser: Browser;
beforeAll(async () => {
  services = await startE2EServerWithServices();
  ({ server, shopify } = services);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await services?.stop();
});

let context: BrowserContext;
let page: Page;
let errors: BrowserErrors;
openPageForEachTest(() => browser, () => server.baseUrl, (opened) => ({ context, page, errors } = opened));

const toast = (text: string) => toastOf(page, text);

/** An owner with credentials and the given flows saved active (each with its wait); returns the flows' webhook URLs. */
async function ownerWithFlows(waits: Partial<Record<FlowType, number>>): Promise<{ user: E2EUser; webhookUrls: Record<FlowType, string> }> {
  const user = await createSignedInUser(server, context);
  expect((await user.client.put('/api/credentials', credentialsInput())).status).toBe(200);
  expect((await user.client.post('/api/flows/initialize')).status).toBe(200);
  for (const [flowType, waitMinutes] of Object.entries(waits)) {
    const saved = await user.client.put(`/api/flows/${flowType}`, { isActive: true, assistants: defaultAssistants, klaviyoEventName: null, waitMinutes });
    expect(saved.status, saved.text).toBe(200);
  }
  const flows = await user.client.get('/api/flows');
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
    const address = await user.client.get('/api/flows/browser_abandonment/pixel');
    expect(address.status, address.text).toBe(200);
    const pixelUrl = address.json.pixelUrl as string;
    expect(pixelUrl).toMatch(new RegExp(`^${server.baseUrl}/api/pixel/[0-9a-f]{64}$`));
    const expectedSnippet = pixelSnippet(pixelUrl);

    await page.goto('/flows/browser-abandonment');
    await page.getByRole('button', { name: 'Configure Flow' }).waitFor();
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

    // Browser abandonment has no Shopify webhook topics, so no Connect store card here.
    expect(await page.getByRole('heading', { name: shopifyConnectMessages.title, exact: true }).count()).toBe(0);

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
  it("lists only this flow's subscriptions and says PUBLIC_URL is not public instead of registering", async () => {
    const { webhookUrls } = await ownerWithFlows({ abandoned_checkout: 30, abandoned_cart: 45 });
    expect(webhookUrls.abandoned_cart).toMatch(new RegExp(`^${server.baseUrl}/api/webhooks/abandoned_cart/`));
    registerInFakeStore('CHECKOUTS_UPDATE', webhookUrls.abandoned_checkout);
    registerInFakeStore('CARTS_CREATE', webhookUrls.abandoned_cart);
    const createsBefore = shopify.operationCounts.webhookSubscriptionCreate ?? 0;

    await page.goto('/flows/abandoned-checkout');
    await page.getByRole('button', { name: 'Configure Flow' }).waitFor();
    const card = page.getByRole('region', { name: shopifyConnectMessages.title });
    await card.getByText(shopifyConnectMessages.flowDescription('Abandoned Checkout', flowWebhookTopics.abandoned_checkout), { exact: true }).waitFor();
    // The e2e server's PUBLIC_URL is 127.0.0.1, which Shopify cannot reach.
    await card.getByRole('alert').filter({ hasText: shopifyConnectMessages.notPublic }).waitFor();
    expect(await card.getByRole('button', { name: shopifyConnectMessages.connect }).isDisabled()).toBe(true);

    await card.getByRole('heading', { level: 3, name: shopifyConnectMessages.flowRegisteredTitle }).waitFor();
    const rows = card.getByRole('listitem');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().innerText()).toContain('CHECKOUTS_UPDATE');
    expect(await rows.first().innerText()).toContain(webhookUrls.abandoned_checkout);
    expect(await card.getByText('CARTS_CREATE').count()).toBe(0);
    // No pixel on a page whose events come by webhook.
    expect(await page.getByRole('heading', { name: pixelMessages.title }).count()).toBe(0);
    await expectNoSeriousA11yViolations(page);

    // The abandoned cart page has the other subscription only.
    await page.goto('/flows/abandoned-cart');
    const cartCard = page.getByRole('region', { name: shopifyConnectMessages.title });
    const cartRows = cartCard.getByRole('listitem');
    await cartRows.first().waitFor();
    expect(await cartRows.count()).toBe(1);
    expect(await cartRows.first().innerText()).toContain('CARTS_CREATE');

    // API settings, without a flow, still lists every flow's.
    await page.goto('/settings/api');
    const settingsRows = page.getByRole('region', { name: shopifyConnectMessages.title }).getByRole('listitem');
    await settingsRows.nth(1).waitFor();
    expect(await settingsRows.count()).toBe(2);

    // Nothing was registered: the server refuses too, but the page never asked.
    expect(shopify.operationCounts.webhookSubscriptionCreate ?? 0).toBe(createsBefore);
    expectNoBrowserErrors(errors);
  });
});
