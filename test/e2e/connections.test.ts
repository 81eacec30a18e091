import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startE2EServer, type E2EServer } from '../support/e2e-server.ts';
import { dismissToasts, expectNoBrowserErrors, expectNoSeriousA11yViolations, fieldErrorOf, launchBrowser, openPageForEachTest, toastOf, untilSectionsLoaded, type BrowserErrors } from '../support/browser.ts';
import { createSignedInUser } from '../support/e2e-accounts.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.ts';
import { startFakeKlaviyo, type FakeKlaviyo } from '../fakes/fake-klaviyo.ts';
import { startFakeShopify, type FakeShopify } from '../fakes/fake-shopify.ts';
import { connectionMessages as m } from '../../src/shared/connections/connection-messages.ts';
import { credentialMessages, credentialValidationMessages } from '../../src/shared/credentials/credential-messages.ts';
import { serviceConditionMessages } from '../../src/shared/service-conditions/service-condition-messages.ts';
import { connectionWords } from '../../src/server/connections/connection-words.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * "Connect in one click" (docs/decisions/0048-connect-by-oauth.md): a deployment with its
 * own Shopify app and Klaviyo OAuth app. A new owner connects both from the setup screen
 * through the stand-ins' consent pages, saves the OpenAI key and reaches the dashboard
 * without pasting a Shopify or Klaviyo key; a forged or replayed callback gets a page of
 * its own and changes nothing; an uninstall from the shop shows on the dashboard and in
 * API Settings, and "Reconnect Shopify" puts it right; Klaviyo is disconnected after a
 * confirmation.
 */
const apps = {
  shopify: { clientId: 'e2e-shopify-app-client-id', clientSecret: 'e2e-shopify-app-client-secret-0123456789' },
  klaviyo: { clientId: 'e2e-klaviyo-oauth-client-id', clientSecret: 'e2e-klaviyo-oauth-client-secret-0123456789' },
};
const openaiKey = 'sk-proj-e2e-oauth-owner-0123456789';
const shopDomain = 'olive-outfitters.myshopify.com';
const shopName = 'Olive Outfitters';
const callbackPaths = { shopify: '/api/connections/shopify/callback', klaviyo: '/api/connections/klaviyo/callback' };
const appWebhooksPath = '/api/shopify-app/webhooks';

// The Klaviyo app's redirect address names the server's own address, known only once it
// listens (the server needs the stand-ins' addresses to start): it is added then.
const klaviyoRedirectUris: string[] = [];

let browser: Browser | undefined;
let server: E2EServer | undefined;
let openai: FakeOpenAI | undefined;
let klaviyo: FakeKlaviyo | undefined;
let shopify: FakeShopify | undefined;
let context: BrowserContext;
let page: Page;
let errors: BrowserErrors;

/** What the stand-ins' definitions refused (the consent pages name their icon, so Chromium asks for none). */
function refusedBy(fake: FakeKlaviyo | FakeShopify | undefined): string[] {
  return (fake?.takeViolations() ?? []).map((violation) => `${violation.method} ${violation.path}: ${violation.problems.join('; ')}`);
}

/** Stops what was started, once (a failed start stops it, and afterAll then finds nothing). */
async function stopAll(): Promise<void> {
  const started = { browser, server, openai, klaviyo, shopify };
  browser = server = openai = klaviyo = shopify = undefined;
  const refused = [...refusedBy(started.klaviyo), ...refusedBy(started.shopify)];
  await started.browser?.close();
  await started.server?.stop();
  await Promise.all([started.openai?.close(), started.klaviyo?.close(), started.shopify?.close()]);
  if (refused.length > 0) throw new Error(`Against the vendors' definitions:\n${refused.join('\n')}`);
}

beforeAll(async () => {
  browser = await launchBrowser();
  try {
    openai = await startFakeOpenAI({ validKeys: [openaiKey], models: ['gpt-5-mini', 'gpt-5'] });
    klaviyo = await startFakeKlaviyo({ oauthApp: { ...apps.klaviyo, redirectUris: klaviyoRedirectUris }, accountName: klaviyoAccountName });
    shopify = await startFakeShopify({ shopDomain, shopName, app: apps.shopify });
    server = await startE2EServer({
      env: {
        OPENAI_BASE_URL: openai.apiBaseUrl,
        KLAVIYO_BASE_URL: klaviyo.baseUrl,
        SHOPIFY_BASE_URL: shopify.baseUrl,
        SHOPIFY_API_KEY: apps.shopify.clientId,
        SHOPIFY_API_SECRET: apps.shopify.clientSecret,
        KLAVIYO_CLIENT_ID: apps.klaviyo.clientId,
        KLAVIYO_CLIENT_SECRET: apps.klaviyo.clientSecret,
        KLAVIYO_OAUTH_BASE_URL: klaviyo.baseUrl,
      },
    });
    klaviyoRedirectUris.push(`${server.baseUrl}${callbackPaths.klaviyo}`);
  } catch (error) {
    await stopAll();
    throw error;
  }
});
afterAll(stopAll);

openPageForEachTest(
  () => browser!,
  () => server!.baseUrl,
  (opened) => ({ context, page, errors } = opened),
);

// What a failed test left on screen and the server's warnings, printed (as e2e-suite.ts does).
afterEach(async ({ task }) => {
  if (task.result?.state !== 'fail' || !page) return;
  const text = await page.locator('body').innerText({ timeout: 2_000 }).catch((error: Error) => `(unreadable: ${error.message})`);
  console.log(`the page at ${page.url()}:\n${text.slice(0, 2_000)}`);
  const problems = (server?.output() ?? '').split('\n').filter((line) => Number(/"level":(\d+)/.exec(line)?.[1] ?? 0) >= 40);
  console.log(`the server's warnings and errors:\n${problems.slice(-30).join('\n') || '(none)'}`);
});

const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true });
const field = (label: string) => page.getByLabel(label, { exact: true });
const button = (name: string) => page.getByRole('button', { name, exact: true });
const notice = (text: string) => page.getByRole('status').filter({ hasText: text }).first();
const onOrigin = (base: string) => (url: URL) => url.origin === new URL(base).origin;
const onAppPage = (path: string) => (url: URL) => url.origin === new URL(server!.baseUrl).origin && url.pathname === path;

/** On the service's consent page: approve with its button, then back on `returnTo`. */
async function approveOn(service: 'shopify' | 'klaviyo', returnTo: string): Promise<void> {
  await page.waitForURL(onOrigin(service === 'shopify' ? shopify!.baseUrl : klaviyo!.baseUrl));
  await button(service === 'shopify' ? 'Install' : 'Allow').click();
  await page.waitForURL(onAppPage(returnTo));
  await notice(m.connected[service]).waitFor();
  // The outcome leaves the address at once; its words stay on the page.
  await expect.poll(() => new URL(page.url()).search).toBe('');
}

/** The Klaviyo account's name, as Klaviyo's accounts endpoint gives it: the owner sees whom they connected. */
const klaviyoAccountName = 'Olive Outfitters Marketing';

describe('connecting Shopify and Klaviyo in one click', () => {
  it('takes a new owner from setup through both consent pages to the dashboard, shows an uninstall, reconnects, and disconnects Klaviyo', async () => {
    const user = await createSignedInUser(server!, context, { fullName: 'Olive Owner' });
    const starts: string[] = [];
    const shopifyCallbacks: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === endpoints.connections.startShopify.path) starts.push(url.pathname);
      if (url.pathname === callbackPaths.shopify) shopifyCallbacks.push(request.url());
    });

    // The setup screen leads with the one-click connections; the key fields are one step away.
    await page.goto('/setup');
    await heading('Complete Your Setup').waitFor();
    await button(m.connectShopify).waitFor();
    await button(m.connectKlaviyo).waitFor();
    expect(await field('Klaviyo API Key').count()).toBe(0);
    expect(await field('Shopify Client ID').count()).toBe(0);
    await expectNoSeriousA11yViolations(page);
    await button(m.useShopifyKeys).click();
    await field('Shopify Client ID').waitFor();
    expect(await button(m.connectShopify).count()).toBe(0);
    await button(m.useShopifyKeys).click();
    await field('Shopify Client ID').waitFor({ state: 'detached' });

    // The shop's domain is checked before anything is sent.
    await field('Shopify Store Domain').fill('not a shop');
    await button(m.connectShopify).click();
    await expect.poll(() => fieldErrorOf(page, 'Shopify Store Domain')).toBe(credentialValidationMessages.shopifyDomainInvalid);
    expect(starts).toEqual([]);

    // Connect Shopify: Shopify's consent page, Install, and back on setup, connected.
    await field('Shopify Store Domain').fill(`https://${shopDomain.replace('olive', 'Olive')}/admin`);
    await button(m.connectShopify).click();
    await approveOn('shopify', '/setup');
    const shopifySection = page.getByTestId('shopify-credentials');
    await shopifySection.getByText(m.shopifyConnectedTo(shopName, shopDomain), { exact: true }).waitFor();
    await shopifySection.getByText(m.how.oauth, { exact: true }).waitFor();
    expect(await shopifySection.getByText(/^Scopes: .*read_orders/).count()).toBe(1);
    expect(await shopifySection.getByText(m.notRenewed, { exact: true }).count()).toBe(1);
    expect(await field('Shopify Store Domain').count()).toBe(0);

    // A replayed callback is refused with a page of its own (its state was used once).
    expect(shopifyCallbacks).toHaveLength(1);
    const replayed = await page.goto(shopifyCallbacks[0]!);
    expect(replayed?.status()).toBe(400);
    await page.getByRole('heading', { level: 1, name: connectionWords.refusedPageTitle }).waitFor();
    await page.getByText(connectionWords.unknownState).waitFor();

    // Connect Klaviyo: Klaviyo's consent page, Allow, and back on setup, connected.
    await page.goto('/setup');
    await button(m.connectKlaviyo).click();
    await approveOn('klaviyo', '/setup');
    const klaviyoSection = page.getByTestId('klaviyo-credentials');
    await klaviyoSection.getByText(`Connected as ${klaviyoAccountName}`, { exact: true }).waitFor();
    expect(await klaviyoSection.getByText(/^Scopes: .*profiles:write/).count()).toBe(1);
    expect(await field('Klaviyo API Key').count()).toBe(0);
    await expectNoSeriousA11yViolations(page);

    // The OpenAI key as before; Save is still the one way to finish setup.
    await field('OpenAI API Key').fill(openaiKey);
    await field('OpenAI Model').fill('gpt-5-mini');
    await button('Save and Continue').click();
    await toastOf(page, credentialMessages.setupCompleted).waitFor();
    await page.waitForURL('**/dashboard');
    const saved = (await user.client.call(endpoints.credentials.read)).json as { credentials: Record<string, unknown> };
    expect(saved.credentials).toMatchObject({ shopifyAuthMethod: 'oauth', shopifyDomain: shopDomain, klaviyoAuthMethod: 'oauth', klaviyoApiKey: null, shopifyAccessToken: null });

    // API Settings says how each is connected, as whom, with which scopes.
    await page.goto('/settings/api');
    await heading('API Settings').waitFor();
    await untilSectionsLoaded(page);
    const connections = page.getByTestId('connections-card');
    await connections.getByText(m.shopifyConnectedTo(shopName, shopDomain), { exact: true }).waitFor();
    await connections.getByTestId('klaviyo-connection').getByText(`Connected as ${klaviyoAccountName}`, { exact: true }).waitFor();
    await page.getByText(m.rows.shopify, { exact: true }).waitFor();
    await page.getByText(m.rows.klaviyo, { exact: true }).waitFor();
    await dismissToasts(page);
    await expectNoSeriousA11yViolations(page);

    // The app is uninstalled from the shop: the dashboard says so, and API Settings offers to reconnect.
    // Shopify takes only https addresses, so the app's uninstall webhook comes from its
    // configuration rather than from a subscription the server made: added here as such.
    const now = new Date().toISOString();
    shopify!.webhookSubscriptions.set('gid://shopify/WebhookSubscription/app-configuration', {
      id: 'gid://shopify/WebhookSubscription/app-configuration',
      topic: 'APP_UNINSTALLED',
      uri: `${server!.baseUrl}${appWebhooksPath}`,
      includeFields: [],
      format: 'JSON',
      createdAt: now,
      updatedAt: now,
    });
    const deliveries = await shopify!.uninstall();
    expect(deliveries.map((delivery) => delivery.status)).toEqual([200]);
    await expect.poll(async () => ((await user.client.call(endpoints.connections.status)).json as { shopify: { state: string } }).shopify.state).toBe('uninstalled');
    await page.goto('/dashboard');
    await page.getByTestId('service-conditions').getByText(serviceConditionMessages.title.shopify_uninstalled, { exact: true }).waitFor();
    await page.goto('/settings/api');
    const shopifyCard = page.getByTestId('shopify-connection');
    const stopped = shopifyCard.getByRole('alert').filter({ hasText: m.shopifyStoppedTitle });
    await stopped.getByText(connectionWords.shopifyUninstalled(shopDomain), { exact: true }).waitFor();
    await stopped.getByText(m.shopifyStopped, { exact: true }).waitFor();
    await untilSectionsLoaded(page);
    await expectNoSeriousA11yViolations(page);
    await shopifyCard.getByRole('button', { name: m.reconnectShopify }).click();
    await approveOn('shopify', '/settings/api');
    await shopifyCard.getByText(m.shopifyConnectedTo(shopName, shopDomain), { exact: true }).waitFor();
    await page.goto('/dashboard');
    await heading('Welcome, Olive Owner').waitFor();
    expect(await page.getByText(serviceConditionMessages.title.shopify_uninstalled, { exact: true }).count()).toBe(0);

    // Disconnect Klaviyo: asked first, saying what stops.
    await page.goto('/settings/api');
    await heading('API Settings').waitFor();
    await untilSectionsLoaded(page);
    const klaviyoCard = page.getByTestId('klaviyo-connection');
    await klaviyoCard.getByRole('button', { name: m.disconnect, exact: true }).click();
    const confirmation = klaviyoCard.getByRole('group', { name: m.disconnectTitle });
    await confirmation.getByText(m.disconnectExplanation).waitFor();
    await confirmation.getByRole('button', { name: m.disconnectConfirm }).click();
    await toastOf(page, 'Klaviyo is disconnected').waitFor();
    await klaviyoCard.getByText(m.notConnected, { exact: true }).waitFor();
    await klaviyoCard.getByRole('button', { name: m.connectKlaviyo }).waitFor();
    expect(((await user.client.call(endpoints.connections.status)).json as { klaviyo: unknown }).klaviyo).toBeNull();

    expectNoBrowserErrors(errors);
  });

  it('names the permission Shopify did not grant, and asks to connect again', async () => {
    // The first test leaves the shop connected to its owner: the merchant uninstalls the app first.
    await shopify!.uninstall();
    shopify!.grantOnly(['read_orders']);
    try {
      await createSignedInUser(server!, context, { fullName: 'Fewer Scopes' });
      await page.goto('/setup');
      await field('Shopify Store Domain').fill(shopDomain);
      await button(m.connectShopify).click();
      await page.waitForURL(onOrigin(shopify!.baseUrl));
      await button('Install').click();
      await page.waitForURL(onAppPage('/setup'));
      await page.getByTestId('shopify-credentials').getByText(m.scopesMissing(['read_products']), { exact: true }).waitFor();
      await expectNoSeriousA11yViolations(page);
    } finally {
      shopify!.grantOnly(null);
    }
    expectNoBrowserErrors(errors);
  });

  it('refuses a forged Shopify callback with a page of its own and connects nothing', async () => {
    const user = await createSignedInUser(server!, context, { fullName: 'Forged Callback' });
    const forged = new URLSearchParams({ code: 'forged-code', shop: shopDomain, state: 'forged-state', timestamp: String(Math.floor(Date.now() / 1000)), hmac: '0'.repeat(64) });
    const answer = await page.goto(`${callbackPaths.shopify}?${forged.toString()}`);
    expect(answer?.status()).toBe(400);
    await page.getByRole('heading', { level: 1, name: connectionWords.refusedPageTitle }).waitFor();
    await page.getByText(connectionWords.forgedCallback).waitFor();
    expect(((await user.client.call(endpoints.connections.status)).json as { shopify: unknown }).shopify).toBeNull();

    // An error code in the address is shown in the app's words, then leaves the address.
    await page.goto('/setup?connection_error=denied&service=klaviyo');
    await page.getByRole('alert').filter({ hasText: m.errors.denied('klaviyo') }).waitFor();
    await expect.poll(() => new URL(page.url()).search).toBe('');
    expectNoBrowserErrors(errors);
  });
});
