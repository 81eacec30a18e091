import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ownerWithFlows, useEngineScenario, credentialsInput, sampleEvent, postEvent, waitForEvent, settleOnTheAppClock, shopifyToken, allStandIns } from '../support/engine-scenario.ts';
import { shopifyInstallLaunchUrl, signShopifyQuery, signShopifyWebhook } from '../fakes/fake-shopify.ts';
import { pressConsentButton } from '../fakes/oauth-consent-page.ts';
import { insertSignedInOwner } from '../support/owner-builder.ts';
import { uniqueEmail } from '../support/accounts.ts';
import type { HttpClient } from '../support/http-client.ts';
import { createShopifyInstallations } from '../../src/server/connections/shopify-installations.ts';
import { fetchShop } from '../../src/server/integrations/shopify/shopify-admin.ts';
import { listShopSubscriptions } from '../../src/server/shopify-connect/webhook-subscriptions.ts';
import { connectionWords } from '../../src/server/connections/connection-words.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * Connecting a shop through the deployment's own Shopify app (docs/decisions/0048-connect-by-oauth.md),
 * against the Shopify stand-in's install page and token endpoint: the callback's checks,
 * expiring tokens renewed once across processes, a lost answer, an uninstall that stops
 * the shop's events until it is connected again.
 */
const app = { clientId: 'flowsmith-app-client-id', clientSecret: 'flowsmith-app-client-secret-0123456789' };
const shop = 'test-shop.myshopify.com';
// Shopify calls below are given 30 s, only against a hang: they are not about time, and the
// stand-in's first answer builds Shopify's schema, which took over 2 s on a busy run.
const scenario = useEngineScenario({
  standIns: allStandIns,
  env: { SHOPIFY_API_KEY: app.clientId, SHOPIFY_API_SECRET: app.clientSecret },
  shopify: { app, shopName: 'Trail Goods' },
});

// The stand-in serves one shop, which one owner at a time may have connected: each test
// ends with the app uninstalled from it, as Shopify would tell Flowsmith.
afterEach(async () => {
  await scenario.shopify.uninstall();
  await scenario.testApp.app.connections.shopify.uninstalled(shop);
});

/** The owner's way through Shopify's install page: the callback's address as Shopify sends the browser to it. */
async function approveInstall(client: HttpClient, options: { returnTo?: string } = {}): Promise<string> {
  const started = await client.call(endpoints.connections.startShopify, { body: { shop, returnTo: options.returnTo ?? '/setup' } });
  expect(started.status, started.text).toBe(200);
  const authorizeUrl = started.json.authorizeUrl as string;
  expect(new URL(authorizeUrl).searchParams.get('scope')).toBe('read_orders,read_products');
  const page = await fetch(authorizeUrl, { redirect: 'manual' });
  // An installation that already has every scope asked is sent straight back, as Shopify does.
  const pressed = page.status === 302 ? page : await pressConsentButton(authorizeUrl, await page.text(), 'Install');
  expect(pressed.status).toBe(302);
  const callback = new URL(pressed.headers.get('location')!);
  expect(`${callback.origin}${callback.pathname}`).toBe(`${scenario.testApp.baseUrl}/api/connections/shopify/callback`);
  return `${callback.pathname}${callback.search}`;
}

/** An owner who connected the shop and saved their other keys (setup done). */
async function connectedOwner() {
  const owner = await insertSignedInOwner(scenario.testApp, { email: uniqueEmail('oauth-shop') });
  const answered = await owner.client.get(await approveInstall(owner.client));
  expect(answered.status).toBe(303);
  expect(answered.headers.get('location')).toBe('/setup?connected=shopify');
  const saved = await owner.client.call(endpoints.credentials.save, { body: credentialsInput({ shopifyAuthMethod: 'oauth', shopifyDomain: shop, shopifyAccessToken: '', shopifySigningSecret: '' }) });
  expect(saved.status, saved.text).toBe(200);
  return owner;
}

/** The Shopify connections as another process of the same deployment builds them (on the same database), or one at another public address. */
function installationsOfAnotherProcess(options: { publicUrl?: string } = {}) {
  const { testApp } = scenario;
  return createShopifyInstallations({
    pool: testApp.database.pool,
    cipher: testApp.app.credentialCipher,
    clock: testApp.clock,
    logger: testApp.app.log as never,
    conditions: testApp.app.serviceConditions,
    app,
    publicUrl: options.publicUrl ?? testApp.config.publicUrl,
    shopifyBaseUrl: testApp.config.shopifyBaseUrl,
  });
}

const refreshes = () => scenario.shopify.tokenRequests.filter((request) => request.grantType === 'refresh_token');

describe('connecting a shop by OAuth', () => {
  it('comes back connected with an expiring offline token, and the saved record names the shop', async () => {
    const owner = await insertSignedInOwner(scenario.testApp, { email: uniqueEmail('oauth-first') });
    expect((await owner.client.get(await approveInstall(owner.client))).headers.get('location')).toBe('/setup?connected=shopify');
    const exchange = scenario.shopify.tokenRequests.filter((request) => request.grantType === 'authorization_code').at(-1)!;
    expect(exchange.expiring).toBe('1');
    const status = await owner.client.call(endpoints.connections.status);
    expect(status.json).toMatchObject({
      offered: { shopify: true, klaviyo: false },
      shopify: { shopDomain: shop, shopName: 'Trail Goods', state: 'connected', scopes: ['read_orders', 'read_products'], renewedAt: null },
      klaviyo: null,
    });
    // No token in any answer.
    expect(status.text).not.toMatch(/shpua_|shprt_|access_token/);
    const saved = await owner.client.call(endpoints.credentials.save, { body: credentialsInput({ shopifyAuthMethod: 'oauth', shopifyDomain: shop, shopifyAccessToken: '', shopifySigningSecret: '' }) });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.json.credentials).toMatchObject({ shopifyAuthMethod: 'oauth', shopifyDomain: shop, shopifyAccessToken: null });
    const connection = await scenario.testApp.app.shopifyTokens.connectionFor(owner.userId);
    expect((await fetchShop(connection!, AbortSignal.timeout(30_000))).myshopifyDomain).toBe(shop);
  });

  it('refuses to save the OAuth method for a shop this owner has not connected', async () => {
    const owner = await insertSignedInOwner(scenario.testApp, { email: uniqueEmail('oauth-none') });
    const saved = await owner.client.call(endpoints.credentials.save, { body: credentialsInput({ shopifyAuthMethod: 'oauth', shopifyDomain: shop, shopifyAccessToken: '' }) });
    expect(saved.status).toBe(400);
    expect(saved.json.fieldErrors.shopifyDomain).toMatch(/not connected to this account/);
  });

  it('renews before expiry and after a 401, once across two processes, and recovers a lost answer', async () => {
    const owner = await connectedOwner();
    const before = refreshes().length;
    const { testApp } = scenario;
    const otherProcess = () => installationsOfAnotherProcess();
    const first = await testApp.app.shopifyTokens.connectionFor(owner.userId);
    // 56 minutes on: within five minutes of the hour's expiry.
    testApp.clock.advance(56 * 60_000);
    const [a, b, c] = await Promise.all([otherProcess().connectionFor(owner.userId), otherProcess().connectionFor(owner.userId), testApp.app.shopifyTokens.connectionFor(owner.userId)]);
    expect(refreshes().length - before).toBe(1);
    expect(new Set([a.accessToken, b.accessToken, c!.accessToken]).size).toBe(1);
    expect(a.accessToken).not.toBe(first!.accessToken);
    expect((await owner.client.call(endpoints.connections.status)).json.shopify.renewedAt).not.toBeNull();

    // Shopify stops taking the token early: the 401 renews it.
    scenario.shopify.expireAccessTokens();
    await expect(fetchShop({ shopUrl: a.shopUrl, accessToken: a.accessToken }, AbortSignal.timeout(30_000))).rejects.toMatchObject({ code: 'unauthorized' });
    await testApp.app.shopifyTokens.invalidate(owner.userId, a.accessToken);
    const renewed = await testApp.app.shopifyTokens.connectionFor(owner.userId);
    expect((await fetchShop(renewed!, AbortSignal.timeout(30_000))).myshopifyDomain).toBe(shop);
    expect(refreshes().length - before).toBe(2);

    // The next renewal's answer is lost on the wire: the stored refresh token still works.
    testApp.clock.advance(56 * 60_000);
    scenario.shopify.loseNextTokenAnswer();
    await expect(testApp.app.shopifyTokens.connectionFor(owner.userId)).rejects.toMatchObject({ retryable: true });
    const recovered = await testApp.app.shopifyTokens.connectionFor(owner.userId);
    expect((await fetchShop(recovered!, AbortSignal.timeout(30_000))).myshopifyDomain).toBe(shop);
    const [lost, retried] = refreshes().slice(-2);
    expect(lost!.lost).toBe(true);
    expect(retried!.refreshToken).toBe(lost!.refreshToken);
  });

  it('starts from Shopify\'s install link: connects the signed-in owner, and sends a signed-out visitor to sign in with the shop filled in', async () => {
    const owner = await insertSignedInOwner(scenario.testApp, { email: uniqueEmail('oauth-launch') });
    const launch = new URL(shopifyInstallLaunchUrl(`${scenario.testApp.baseUrl}/api/connections/shopify/install`, shop, app.clientSecret));
    const path = `${launch.pathname}${launch.search}`;
    const started = await owner.client.get(path);
    expect(started.status).toBe(303);
    const authorize = new URL(started.headers.get('location')!);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${scenario.shopify.baseUrl}/admin/oauth/authorize`);
    expect(authorize.searchParams.get('client_id')).toBe(app.clientId);
    const signedOut = await fetch(`${scenario.testApp.baseUrl}${path}`, { redirect: 'manual' });
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get('location')).toBe(`/settings/api?shop=${shop}`);
    const forged = await owner.client.get(path.replace(`shop=${shop}`, 'shop=other-shop.myshopify.com'));
    expect(forged.status).toBe(400);
  });

  it('returns the owner to their page when the token endpoint fails, and the next try connects', async () => {
    const owner = await insertSignedInOwner(scenario.testApp, { email: uniqueEmail('oauth-retry') });
    const callback = await approveInstall(owner.client, { returnTo: '/settings/api' });
    scenario.shopify.failTokenRequests(1, 503);
    const failed = await owner.client.get(callback);
    expect(failed.headers.get('location')).toBe('/settings/api?connection_error=failed&service=shopify');
    expect((await owner.client.call(endpoints.connections.status)).json.shopify).toBeNull();
    expect((await owner.client.get(await approveInstall(owner.client))).headers.get('location')).toBe('/setup?connected=shopify');
  });

  it('counts the tokens in the Encryption Warning\'s self-check', async () => {
    const owner = await connectedOwner();
    expect((await owner.client.call(endpoints.credentials.encryption)).json).toEqual({ working: true, error: null });
    // A token changed in storage no longer decrypts.
    const other = await scenario.testApp.database.pool.query<{ access_token: string }>('SELECT access_token FROM shopify_installations WHERE user_id = $1', [owner.userId]);
    await scenario.testApp.database.pool.query("UPDATE shopify_installations SET access_token = $2 WHERE user_id = $1", [owner.userId, other.rows[0]!.access_token.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A'))]);
    expect((await owner.client.call(endpoints.credentials.encryption)).json.working).toBe(false);
  });

  it('says by name when Shopify granted fewer scopes than asked', async () => {
    const owner = await insertSignedInOwner(scenario.testApp, { email: uniqueEmail('oauth-fewer') });
    scenario.shopify.grantOnly(['read_orders']);
    try {
      const answered = await owner.client.get(await approveInstall(owner.client, { returnTo: '/settings/api' }));
      expect(answered.headers.get('location')).toBe('/settings/api?connection_error=scopes_missing&service=shopify');
      expect((await owner.client.call(endpoints.connections.status)).json.shopify.scopes).toEqual(['read_orders']);
    } finally {
      scenario.shopify.grantOnly(null);
    }
  });
});

describe('a renewal that fails', () => {
  /** An owner with an abandoned-cart flow whose shop is connected through the deployment's app. */
  async function ownerOnTheApp() {
    const owner = await ownerWithFlows(scenario, { abandoned_cart: { waitMinutes: 0 } });
    expect((await owner.client.get(await approveInstall(owner.client))).status).toBe(303);
    return owner;
  }

  it('is tried again later when the token endpoint answers 5xx or never answers, and the shop keeps its place', async () => {
    const { testApp } = scenario;
    const owner = await ownerOnTheApp();
    const before = refreshes().length;
    testApp.clock.advance(56 * 60_000);
    scenario.shopify.failTokenRequests(1, 503);
    await expect(testApp.app.shopifyTokens.connectionFor(owner.userId)).rejects.toMatchObject({ retryable: true });
    scenario.shopify.failTokenRequests(1, 'timeout');
    await expect(testApp.app.shopifyTokens.connectionFor(owner.userId)).rejects.toMatchObject({ retryable: true });
    // Neither failure told the owner anything was wrong, nor dropped the installation.
    expect((await owner.client.call(endpoints.connections.status)).json.shopify).toMatchObject({ state: 'connected', problem: null });
    expect((await owner.client.call(endpoints.serviceConditions.list)).json.conditions).toEqual([]);
    const renewed = await testApp.app.shopifyTokens.connectionFor(owner.userId);
    expect((await fetchShop(renewed!, AbortSignal.timeout(30_000))).myshopifyDomain).toBe(shop);
    // The failed requests carried out nothing, so the one that worked used the same refresh token.
    const tried = refreshes().slice(before);
    expect(tried).toHaveLength(3);
    expect(new Set(tried.map((request) => request.refreshToken)).size).toBe(1);
  }, 30_000);

  it('refused for good (an uninstall whose webhook never came) tells the owner, keeps the events waiting, and a reconnect sends them', async () => {
    const { testApp } = scenario;
    const owner = await ownerOnTheApp();
    // The merchant uninstalls, and no app/uninstalled reaches Flowsmith: the next renewal is refused.
    await scenario.shopify.uninstall();
    testApp.clock.advance(56 * 60_000);
    const refused = await testApp.app.shopifyTokens.connectionFor(owner.userId).catch((error: unknown) => error);
    expect(refused).toMatchObject({ retryable: true });
    const status = (await owner.client.call(endpoints.connections.status)).json.shopify;
    expect(status.problem).toBe(connectionWords.shopifyRenewalRefused('The refresh token is invalid, expired or revoked'));
    expect(status.problem).toBe("Shopify refused to renew Flowsmith's access to the store (The refresh token is invalid, expired or revoked).");
    expect((await owner.client.call(endpoints.serviceConditions.list)).json.conditions).toEqual([
      expect.objectContaining({ kind: 'shopify_uninstalled', detail: status.problem }),
    ]);
    const stored = await testApp.database.pool.query('SELECT access_token, refresh_token FROM shopify_installations WHERE user_id = $1', [owner.userId]);
    expect(stored.rows).toEqual([{ access_token: null, refresh_token: null }]);

    const writtenBefore = scenario.openai.responsesRequests().length;
    const posted = await postEvent(testApp.baseUrl, owner.flows.abandoned_cart.webhookPath, sampleEvent('abandoned_cart', { email: `refused-${randomUUID()}@example.com` }));
    expect(posted.status).toBe(202);
    await waitForEvent(testApp.database.pool, posted.json.eventId, { statuses: ['waiting'] });
    expect(scenario.openai.responsesRequests().length).toBe(writtenBefore);

    expect((await owner.client.get(await approveInstall(owner.client))).status).toBe(303);
    expect((await owner.client.call(endpoints.serviceConditions.list)).json.conditions).toEqual([]);
    const settled = await settleOnTheAppClock(scenario, [posted.json.eventId], { stepMs: 60_000 });
    expect(settled.get(posted.json.eventId)!.status).toBe('delivered');
  });
});

it('registers app/uninstalled and app/scopes_update at the shop when PUBLIC_URL is https, and Shopify\'s uninstall then reaches the app', async () => {
  const { testApp } = scenario;
  const owner = await insertSignedInOwner(testApp, { email: uniqueEmail('oauth-register') });
  // A deployment at a public https address: the one Shopify takes for webhooks (the test app itself listens on http).
  const publicUrl = 'https://app.flowsmith-test.example';
  const deployed = installationsOfAnotherProcess({ publicUrl });
  const authorizeUrl = await deployed.begin(owner.userId, shop, '/setup');
  const page = await fetch(authorizeUrl, { redirect: 'manual' });
  const pressed = page.status === 302 ? page : await pressConsentButton(authorizeUrl, await page.text(), 'Install');
  const callback = new URL(pressed.headers.get('location')!);
  expect(`${callback.origin}${callback.pathname}`).toBe(`${publicUrl}/api/connections/shopify/callback`);
  expect(await deployed.complete(Object.fromEntries(callback.searchParams), owner.userId)).toEqual({ kind: 'connected', returnTo: '/setup' });

  const connection = await deployed.connectionFor(owner.userId);
  const registered = (await listShopSubscriptions(connection, AbortSignal.timeout(30_000))).filter((subscription) => subscription.uri === `${publicUrl}/api/shopify-app/webhooks`);
  expect(registered.map((subscription) => subscription.topic).sort()).toEqual(['APP_SCOPES_UPDATE', 'APP_UNINSTALLED']);

  // Shopify posts the uninstall to the registered address, which here is the test app.
  scenario.shopify.setWebhookDeliveryUrl((uri) => uri.replace(publicUrl, testApp.baseUrl));
  try {
    const deliveries = await scenario.shopify.uninstall();
    expect(deliveries.map((delivery) => [delivery.topic, delivery.status])).toEqual([['app/uninstalled', 200]]);
  } finally {
    scenario.shopify.setWebhookDeliveryUrl((uri) => uri);
  }
  expect((await owner.client.call(endpoints.connections.status)).json.shopify.state).toBe('uninstalled');
});

describe('a callback that is not genuine', () => {
  const page = (answer: { status: number; text: string; headers: Headers }) => {
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toMatch(/text\/html/);
    return answer.text;
  };

  it('is refused with a page and changes nothing: a forged hmac, a replay, another account, another shop, a foreign domain, an old one', async () => {
    const owner = await insertSignedInOwner(scenario.testApp, { email: uniqueEmail('oauth-forged') });
    const stranger = await insertSignedInOwner(scenario.testApp, { email: uniqueEmail('oauth-stranger') });
    const genuine = await approveInstall(owner.client);
    const query = Object.fromEntries(new URL(genuine, 'http://x').searchParams);

    // A changed code under the genuine hmac: refused before the state is touched.
    const forged = new URLSearchParams({ ...query, code: 'attackers-code' });
    expect(page(await owner.client.get(`/api/connections/shopify/callback?${forged}`))).toContain('was not signed by Shopify');
    // Someone else's session with the genuine answer: refused, and the state is spent.
    expect(page(await stranger.client.get(genuine))).toContain('another Flowsmith account');
    expect(page(await owner.client.get(genuine))).toContain('already used');
    expect((await owner.client.call(endpoints.connections.status)).json.shopify).toBeNull();
    expect((await stranger.client.call(endpoints.connections.status)).json.shopify).toBeNull();

    // A genuine signature for another shop than the one the owner named.
    const started = await owner.client.call(endpoints.connections.startShopify, { body: { shop, returnTo: '/setup' } });
    const state = new URL(started.json.authorizeUrl as string).searchParams.get('state')!;
    const now = String(Math.floor(Date.now() / 1000));
    const signed = (params: Record<string, string>) => new URLSearchParams({ ...params, hmac: signShopifyQuery(params, app.clientSecret) });
    expect(page(await owner.client.get(`/api/connections/shopify/callback?${signed({ code: 'c', shop: 'other-shop.myshopify.com', state, timestamp: now })}`))).toContain(
      'another shop',
    );
    expect(page(await owner.client.get(`/api/connections/shopify/callback?${signed({ code: 'c', shop: 'evil.example.com', state, timestamp: now })}`))).toContain('myshopify.com');
    const old = String(Math.floor(Date.now() / 1000) - 600);
    expect(page(await owner.client.get(`/api/connections/shopify/callback?${signed({ code: 'c', shop, state, timestamp: old })}`))).toContain('was not signed by Shopify');
    // Nothing a stranger sent is shown: the page holds only Flowsmith's words.
    const echoed = await owner.client.get(`/api/connections/shopify/callback?shop=%3Cscript%3E&hmac=x&state=y&code=z`);
    expect(page(echoed)).not.toContain('<script>');
    expect((await owner.client.call(endpoints.connections.status)).json.shopify).toBeNull();
  });

  it('refuses a shop another owner has connected, with the reason', async () => {
    await connectedOwner();
    const second = await insertSignedInOwner(scenario.testApp, { email: uniqueEmail('oauth-second') });
    const started = await second.client.call(endpoints.connections.startShopify, { body: { shop, returnTo: '/setup' } });
    expect(started.status).toBe(409);
    expect(started.json).toMatchObject({ error: 'shop_taken' });
  });
});

describe('an uninstall', () => {
  async function sendAppWebhook(topic: string, payload: unknown, secret = app.clientSecret) {
    const body = JSON.stringify(payload);
    return fetch(`${scenario.testApp.baseUrl}/api/shopify-app/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-shopify-topic': topic,
        'x-shopify-shop-domain': shop,
        'x-shopify-hmac-sha256': signShopifyWebhook(body, secret),
        'x-shopify-webhook-id': randomUUID(),
      },
      body,
    });
  }

  it('ends the tokens at once, stops the shop\'s events with the cause shown, and a re-install picks them up again', async () => {
    const { testApp } = scenario;
    const owner = await ownerWithFlows(scenario, { abandoned_cart: { waitMinutes: 0 } });
    // The owner moves from their own app's token to the deployment's app.
    const callback = await approveInstall(owner.client);
    expect((await owner.client.get(callback)).status).toBe(303);
    expect((await owner.client.call(endpoints.credentials.read)).json.credentials).toMatchObject({ shopifyAuthMethod: 'oauth', shopifyAccessToken: null });

    testApp.clock.advance(1_000);
    expect((await sendAppWebhook('app/uninstalled', { id: 1, myshopify_domain: shop }, 'not-the-secret')).status).toBe(401);
    // The merchant uninstalls: Shopify ends the tokens and sends the webhook the app's configuration subscribes to.
    await scenario.shopify.uninstall();
    expect((await sendAppWebhook('app/uninstalled', { id: 1, myshopify_domain: shop })).status).toBe(200);
    const status = (await owner.client.call(endpoints.connections.status)).json.shopify;
    expect(status).toMatchObject({ state: 'uninstalled', problem: connectionWords.shopifyUninstalled(shop) });
    await expect(testApp.app.shopifyTokens.connectionFor(owner.userId)).rejects.toMatchObject({ retryable: true });
    // Deleted, not only marked: nothing of the ended grant is kept.
    const stored = await testApp.database.pool.query('SELECT access_token, refresh_token FROM shopify_installations WHERE user_id = $1', [owner.userId]);
    expect(stored.rows).toEqual([{ access_token: null, refresh_token: null }]);
    const conditions = (await owner.client.call(endpoints.serviceConditions.list)).json.conditions;
    expect(conditions).toEqual([expect.objectContaining({ kind: 'shopify_uninstalled' })]);

    const writtenBefore = scenario.openai.responsesRequests().length;
    const posted = await postEvent(testApp.baseUrl, owner.flows.abandoned_cart.webhookPath, sampleEvent('abandoned_cart', { email: `uninstalled-${randomUUID()}@example.com` }));
    expect(posted.status).toBe(202);
    const waiting = await waitForEvent(testApp.database.pool, posted.json.eventId, { statuses: ['waiting'] });
    expect(waiting.error).toContain('uninstalled');
    expect(scenario.openai.responsesRequests().length).toBe(writtenBefore);

    // Installed again: the same flows go on, and the waiting event is delivered.
    expect((await owner.client.get(await approveInstall(owner.client))).status).toBe(303);
    expect((await owner.client.call(endpoints.connections.status)).json.shopify.state).toBe('connected');
    expect((await owner.client.call(endpoints.serviceConditions.list)).json.conditions).toEqual([]);
    const settled = await settleOnTheAppClock(scenario, [posted.json.eventId], { stepMs: 60_000 });
    expect(settled.get(posted.json.eventId)!.status).toBe('delivered');
  });

  it('keeps the granted scopes true when Shopify says they changed', async () => {
    const owner = await connectedOwner();
    const answered = await sendAppWebhook('app/scopes_update', { id: 1, previous: ['read_orders', 'read_products'], current: ['read_orders'], updated_at: new Date().toISOString(), shop_id: 1 });
    expect(answered.status).toBe(200);
    expect((await owner.client.call(endpoints.connections.status)).json.shopify.scopes).toEqual(['read_orders']);
    // A body that is not Shopify's is refused with 400, never a 5xx.
    expect((await sendAppWebhook('app/scopes_update', { current: 'read_orders' })).status).toBe(400);
    expect((await sendAppWebhook('shop/unknown_topic', {})).status).toBe(400);
  });

  it('keeps the compliance webhooks working at the app\'s address, for the shop\'s owner', async () => {
    const owner = await connectedOwner();
    const answered = await sendAppWebhook('customers/redact', { shop_id: 1, shop_domain: shop, customer: { id: 7, email: 'gone@example.com', phone: null }, orders_to_redact: [] });
    expect(answered.status).toBe(200);
    const requests = await owner.client.call(endpoints.privacy.requests);
    expect(JSON.stringify(requests.json)).toContain('customers/redact');
  });
});

// The Shopify token of the keys path still works beside the deployment's app.
it('leaves the keys path unchanged for an owner who saves their own app\'s token', async () => {
  const owner = await ownerWithFlows(scenario, {});
  const connection = await scenario.testApp.app.shopifyTokens.connectionFor(owner.userId);
  expect(connection?.accessToken).toBe(shopifyToken);
});

it('says why the store cannot be asked for its webhooks while the app is uninstalled', async () => {
  const owner = await ownerWithFlows(scenario, {});
  expect((await owner.client.get(await approveInstall(owner.client))).status).toBe(303);
  await scenario.shopify.uninstall();
  await scenario.testApp.app.connections.shopify.uninstalled(shop);
  const listed = await owner.client.call(endpoints.shopify.subscriptions);
  expect(listed.status).toBe(502);
  expect(listed.json.message).toBe(connectionWords.shopifyUninstalled(shop));
});
