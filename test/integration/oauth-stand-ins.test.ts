import '@shopify/shopify-api/adapters/node';
import { ApiVersion, LogSeverity, shopifyApi } from '@shopify/shopify-api';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { klaviyoSdkRevision } from '../contracts/klaviyo-definition.ts';
import { startFakeKlaviyo, type FakeKlaviyo, type FakeKlaviyoOptions } from '../fakes/fake-klaviyo.ts';
import { pressConsentButton, readConsentForm } from '../fakes/oauth-consent-page.ts';
import { shopifyInstallLaunchUrl, signShopifyQuery, startFakeShopify, type FakeShopify } from '../fakes/fake-shopify.ts';

/**
 * The OAuth endpoints of the Shopify and Klaviyo stand-ins held to the vendors' documents
 * (test/contracts/oauth-contract.ts): consent page to callback, the code exchange, refresh
 * rotation, lost answers, refusals, Bearer and expiry, uninstall. The Shopify callback is
 * checked with Shopify's own library, the code exchange sent with its exact body.
 */

async function call(url: string | URL, init: RequestInit = {}) {
  const response = await fetch(url, { redirect: 'manual', ...init });
  const text = await response.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** A local receiver for webhooks: what it got, answering 200. */
async function startReceiver() {
  const received: Array<{ path: string; headers: IncomingHttpHeaders; body: string }> = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '/', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('the Shopify stand-in, OAuth', () => {
  const app = { clientId: 'flowsmith-client-id', clientSecret: 'flowsmith-client-secret' };
  const redirectUri = 'https://app.flowsmith-test.example/api/shopify/callback';
  const hookUri = 'https://app.flowsmith-test.example/api/shopify-app/webhooks';
  const library = shopifyApi({
    apiKey: app.clientId,
    apiSecretKey: app.clientSecret,
    scopes: ['read_orders', 'read_products'],
    hostName: 'app.flowsmith-test.example',
    apiVersion: ApiVersion.October26,
    isEmbeddedApp: false,
    logger: { level: LogSeverity.Error, log: async () => {} },
  });
  let shopify: FakeShopify;
  let clock: number;

  beforeEach(async () => {
    clock = Date.now();
    shopify = await startFakeShopify({ app, now: () => clock });
  });
  afterEach(async () => {
    await shopify.close();
  });

  const authorizeUrl = (params: Record<string, string | null> = {}) => {
    const url = new URL(`${shopify.baseUrl}/admin/oauth/authorize`);
    const all: Record<string, string | null> = { client_id: app.clientId, scope: 'read_orders,read_products', redirect_uri: redirectUri, state: 'state-123', ...params };
    for (const [name, value] of Object.entries(all)) if (value !== null) url.searchParams.set(name, value);
    return url.toString();
  };

  /**
   * The merchant opens the install page and presses Install: the callback's query. An
   * installation that already has every scope asked skips the page (`expectPage` false).
   */
  async function install(expectPage = true): Promise<Record<string, string>> {
    const url = authorizeUrl();
    const page = await call(url);
    expect(page.status).toBe(expectPage ? 200 : 302);
    const pressed = expectPage ? await pressConsentButton(url, page.text, 'Install') : page;
    expect(pressed.status).toBe(302);
    const location = new URL(pressed.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    return Object.fromEntries(location.searchParams);
  }

  /** What Shopify's library sends: JSON, exactly these fields (lib/auth/oauth/oauth.mjs, refresh-token.mjs). */
  const token = (body: Record<string, string>, contentType = 'application/json') =>
    call(`${shopify.baseUrl}/admin/oauth/access_token`, {
      method: 'POST',
      headers: { 'Content-Type': contentType, Accept: 'application/json' },
      body: contentType === 'application/json' ? JSON.stringify(body) : new URLSearchParams(body).toString(),
    });
  const exchange = (code: string, extra: Record<string, string> = { expiring: '1' }) => token({ client_id: app.clientId, client_secret: app.clientSecret, code, ...extra });
  const refresh = (refreshToken: string) => token({ client_id: app.clientId, client_secret: app.clientSecret, refresh_token: refreshToken, grant_type: 'refresh_token' });
  const graphql = (accessToken: string, query: string, variables?: Record<string, unknown>) =>
    call(`${shopify.baseUrl}/admin/api/2026-10/graphql.json`, {
      method: 'POST',
      headers: { 'X-Shopify-Access-Token': accessToken, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });

  it('serves the install page, and Install sends the browser back with a callback the official library validates', async () => {
    const page = await call(authorizeUrl());
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('<title>Install Flowsmith</title>');
    expect(page.text).toContain('<h1>Install Flowsmith</h1>');
    expect(page.text).toContain('test-shop.myshopify.com');
    expect(page.text).toContain('<li>read_orders</li>');
    expect(readConsentForm(page.text).buttons.map((button) => button.label)).toEqual(['Install', 'Cancel']);

    const query = await install();
    expect(Object.keys(query).sort()).toEqual(['code', 'hmac', 'host', 'shop', 'state', 'timestamp']);
    expect(query).toMatchObject({ shop: 'test-shop.myshopify.com', state: 'state-123' });
    expect(Buffer.from(query.host!, 'base64url').toString()).toBe('admin.shopify.com/store/test-shop');
    expect(Number(query.timestamp)).toBe(Math.floor(clock / 1000));
    expect(await library.utils.validateHmac(query)).toBe(true);
    expect(signShopifyQuery(query, app.clientSecret)).toBe(query.hmac);
    // A changed parameter or another secret does not validate.
    expect(await library.utils.validateHmac({ ...query, shop: 'other-shop.myshopify.com' })).toBe(false);
    expect(signShopifyQuery(query, 'another-secret')).not.toBe(query.hmac);
    expect(shopify.installed).toBe(true);
    expect(shopify.grantedScopes).toEqual(['read_orders', 'read_products']);

    // The link Shopify opens the app with validates too.
    const launch = new URL(shopifyInstallLaunchUrl('https://app.flowsmith-test.example/?from=admin', 'test-shop.myshopify.com', app.clientSecret));
    expect([...launch.searchParams.keys()].sort()).toEqual(['from', 'hmac', 'host', 'shop', 'timestamp']);
    expect(await library.utils.validateHmac(Object.fromEntries(launch.searchParams))).toBe(true);
  });

  it('refuses a bad authorize request with a 400 page naming the problem, and records each as a violation', async () => {
    const cases: Array<[Record<string, string | null>, string]> = [
      [{ client_id: 'someone-else' }, 'someone-else'],
      [{ redirect_uri: null }, 'redirect_uri is missing'],
      [{ state: null }, 'state parameter is missing'],
      [{ scope: 'read_orders,read_everything' }, 'Scope undefined: read_everything'],
    ];
    for (const [params, words] of cases) {
      const refused = await call(authorizeUrl(params));
      expect(refused.status).toBe(400);
      expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
      expect(refused.text).toContain(words);
    }
    expect(shopify.takeViolations()).toHaveLength(cases.length);
    expect(shopify.installed).toBe(false);
  });

  it('Cancel installs nothing and does not call the app back', async () => {
    const url = authorizeUrl();
    const cancelled = await pressConsentButton(url, (await call(url)).text, 'Cancel');
    expect(cancelled.status).toBe(200);
    expect(cancelled.headers.get('location')).toBeNull();
    expect(await cancelled.text()).toContain('Installation cancelled');
    expect(shopify.installed).toBe(false);
  });

  it("exchanges the code, sent with the library's exact JSON body, for an expiring offline token the Admin API takes; the code works once", async () => {
    const { code } = await install();
    const answer = await exchange(code!);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      access_token: expect.stringMatching(/^shpat_/),
      scope: 'read_orders,read_products',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^shprt_/),
      refresh_token_expires_in: 90 * 24 * 3600,
    });
    expect((await graphql(answer.json.access_token, '{ shop { myshopifyDomain } }')).json.data.shop.myshopifyDomain).toBe('test-shop.myshopify.com');
    const scopes = await graphql(answer.json.access_token, '{ currentAppInstallation { accessScopes { handle } } }');
    expect(scopes.json.data.currentAppInstallation.accessScopes.map((scope: { handle: string }) => scope.handle)).toEqual(['read_orders', 'read_products']);

    const again = await exchange(code!);
    expect(again.status).toBe(400);
    expect(again.json).toEqual({ error: 'invalid_request', error_description: 'The authorization code was not found or was already used' });
    expect(shopify.tokenRequests.map((request) => [request.grantType, request.expiring, request.status])).toEqual([
      ['authorization_code', '1', 200],
      ['authorization_code', '1', 400],
    ]);

    // Authorizing again with nothing new to grant skips the page, with a new code. A form
    // body is taken as well; without expiring '1' the token does not expire.
    const second = await install(false);
    expect(await library.utils.validateHmac(second)).toBe(true);
    const lasting = await token({ client_id: app.clientId, client_secret: app.clientSecret, code: second.code!, expiring: '0' }, 'application/x-www-form-urlencoded');
    expect(lasting.json).toEqual({ access_token: expect.stringMatching(/^shpat_/), scope: 'read_orders,read_products' });
  });

  it('refuses a wrong client secret (invalid_client) and a code past its 10 minutes', async () => {
    const { code } = await install();
    const wrong = await token({ client_id: app.clientId, client_secret: 'not-the-secret', code: code!, expiring: '1' });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error).toBe('invalid_client');
    clock += 10 * 60_000 + 1;
    const late = await exchange(code!);
    expect(late.status).toBe(400);
    expect(late.json.error).toBe('invalid_request');
    // A body of another shape is Shopify's invalid_request, and a violation.
    const shaped = await token({ client_id: app.clientId, client_secret: app.clientSecret, code: code!, expiring: '1', grant_type: 'authorization_code' });
    expect(shaped.json.error).toBe('invalid_request');
    expect(shopify.takeViolations()).toHaveLength(1);
  });

  it('rotates the refresh token: the previous one stays good until the new one is used, then it is refused', async () => {
    const first = (await exchange((await install()).code!)).json;
    const renewed = await refresh(first.refresh_token);
    expect(renewed.status).toBe(200);
    expect(renewed.json.refresh_token).toMatch(/^shprt_/);
    expect(renewed.json.refresh_token).not.toBe(first.refresh_token);
    expect(renewed.json.access_token).not.toBe(first.access_token);
    expect(renewed.json.refresh_token_expires_in).toBe(90 * 24 * 3600);

    // The new refresh token unused yet: the previous one still renews.
    const retried = await refresh(first.refresh_token);
    expect(retried.status).toBe(200);
    // Using a replacement retires the token it replaced, and its other replacement.
    const latest = await refresh(retried.json.refresh_token);
    expect(latest.status).toBe(200);
    const old = await refresh(first.refresh_token);
    expect(old.status).toBe(400);
    expect(old.json.error).toBe('invalid_grant');
    expect((await refresh(renewed.json.refresh_token)).json.error).toBe('invalid_grant');
    // Access tokens live out their own hour.
    expect((await graphql(first.access_token, '{ shop { name } }')).status).toBe(200);
    expect(shopify.tokenRequests.filter((request) => request.grantType === 'refresh_token').map((request) => request.refreshToken)).toEqual([
      first.refresh_token,
      first.refresh_token,
      retried.json.refresh_token,
      first.refresh_token,
      renewed.json.refresh_token,
    ]);
    // A refresh token past its 90 days is refused.
    clock += 90 * 24 * 3_600_000 + 1;
    expect((await refresh(latest.json.refresh_token)).json.error).toBe('invalid_grant');
  });

  it('loses an answer: the renewal is carried out, the app never hears it, and the previous refresh token recovers', async () => {
    const first = (await exchange((await install()).code!)).json;
    shopify.loseNextTokenAnswer();
    await expect(refresh(first.refresh_token)).rejects.toThrow();
    expect(shopify.tokenRequests.at(-1)).toMatchObject({ grantType: 'refresh_token', refreshToken: first.refresh_token, lost: true });
    const recovered = await refresh(first.refresh_token);
    expect(recovered.status).toBe(200);
    expect((await graphql(recovered.json.access_token, '{ shop { name } }')).status).toBe(200);
    expect((await refresh(recovered.json.refresh_token)).status).toBe(200);
    expect((await refresh(first.refresh_token)).json.error).toBe('invalid_grant');
  });

  it('fails token requests on demand (a 5xx, a hang) without doing them, and expires access tokens with 401', async () => {
    const first = (await exchange((await install()).code!)).json;
    shopify.failTokenRequests(1, 503);
    expect((await refresh(first.refresh_token)).status).toBe(503);
    shopify.failTokenRequests(1, 'timeout');
    await expect(
      fetch(`${shopify.baseUrl}/admin/oauth/access_token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ client_id: app.clientId, client_secret: app.clientSecret, refresh_token: first.refresh_token, grant_type: 'refresh_token' }),
        signal: AbortSignal.timeout(150),
      }),
    ).rejects.toThrow();
    expect(shopify.tokenRequests.map((request) => request.status)).toEqual([200, 503, null]);

    shopify.expireAccessTokens();
    const expired = await graphql(first.access_token, '{ shop { name } }');
    expect(expired.status).toBe(401);
    expect(expired.json).toEqual({ errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
    // The refresh token still renews (nothing was done by the failed requests).
    const renewed = await refresh(first.refresh_token);
    expect(renewed.status).toBe(200);
    expect((await graphql(renewed.json.access_token, '{ shop { name } }')).status).toBe(200);
  });

  it('grants fewer scopes than asked when told to', async () => {
    shopify.grantOnly(['read_orders']);
    const answer = (await exchange((await install()).code!)).json;
    expect(answer.scope).toBe('read_orders');
    const product = await graphql(answer.access_token, '{ product(id: "gid://shopify/Product/1") { title } }');
    expect(product.json.errors[0].extensions.code).toBe('ACCESS_DENIED');
    expect(shopify.takeViolations()).toHaveLength(1);
  });

  describe('with the app webhooks registered', () => {
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    let tokens: { access_token: string; refresh_token: string };
    beforeEach(async () => {
      receiver = await startReceiver();
      shopify.setWebhookDeliveryUrl((uri) => uri.replace('https://app.flowsmith-test.example', receiver.url));
      tokens = (await exchange((await install()).code!)).json;
      for (const topic of ['APP_UNINSTALLED', 'APP_SCOPES_UPDATE']) {
        const created = await graphql(
          tokens.access_token,
          'mutation ($topic: WebhookSubscriptionTopic!, $sub: WebhookSubscriptionInput!) { webhookSubscriptionCreate(topic: $topic, webhookSubscription: $sub) { webhookSubscription { id topic } userErrors { message } } }',
          { topic, sub: { uri: hookUri } },
        );
        expect(created.json.data.webhookSubscriptionCreate).toMatchObject({ webhookSubscription: { topic }, userErrors: [] });
      }
      const listed = await graphql(tokens.access_token, '{ webhookSubscriptions(first: 250) { nodes { id topic uri } pageInfo { hasNextPage endCursor } } }');
      expect(listed.json.data.webhookSubscriptions.nodes.map((node: { topic: string }) => node.topic)).toEqual(['APP_UNINSTALLED', 'APP_SCOPES_UPDATE']);
    });
    afterEach(async () => {
      await receiver.close();
    });

    it('uninstall: ends every token at once and sends app/uninstalled, signed with the app secret; installing again works', async () => {
      const deliveries = await shopify.uninstall();
      expect(deliveries.map((delivery) => [delivery.topic, delivery.uri, delivery.status])).toEqual([['app/uninstalled', hookUri, 200]]);
      const [received] = receiver.received;
      expect(received!.path).toBe('/api/shopify-app/webhooks');
      expect(received!.headers).toMatchObject({
        'content-type': 'application/json',
        'x-shopify-topic': 'app/uninstalled',
        'x-shopify-shop-domain': 'test-shop.myshopify.com',
        'x-shopify-api-version': '2026-10',
      });
      for (const header of ['x-shopify-webhook-id', 'x-shopify-event-id', 'x-shopify-triggered-at']) expect(received!.headers[header]).toEqual(expect.any(String));
      expect(received!.headers['x-shopify-hmac-sha256']).toBe(createHmac('sha256', app.clientSecret).update(received!.body).digest('base64'));
      expect(JSON.parse(received!.body)).toMatchObject({ id: 1, name: 'Fake Shop', email: expect.any(String), domain: 'test-shop.myshopify.com', myshopify_domain: 'test-shop.myshopify.com' });

      expect((await graphql(tokens.access_token, '{ shop { name } }')).status).toBe(401);
      expect((await refresh(tokens.refresh_token)).json.error).toBe('invalid_grant');
      expect(shopify.installed).toBe(false);
      // Shopify deletes the webhooks an uninstalled app made.
      expect(shopify.webhookSubscriptions.size).toBe(0);

      const again = (await exchange((await install()).code!)).json;
      expect(again.access_token).not.toBe(tokens.access_token);
      expect((await graphql(again.access_token, '{ shop { name } }')).status).toBe(200);
    });

    it('updateScopes: sends app/scopes_update and the tokens carry the new scopes', async () => {
      const deliveries = await shopify.updateScopes(['read_orders']);
      expect(deliveries.map((delivery) => delivery.status)).toEqual([200]);
      const [received] = receiver.received;
      expect(received!.headers['x-shopify-topic']).toBe('app/scopes_update');
      expect(received!.headers['x-shopify-hmac-sha256']).toBe(createHmac('sha256', app.clientSecret).update(received!.body).digest('base64'));
      expect(JSON.parse(received!.body)).toEqual({ id: 1, previous: ['read_orders', 'read_products'], current: ['read_orders'], updated_at: new Date(clock).toISOString(), shop_id: 1 });
      const scopes = await graphql(tokens.access_token, '{ currentAppInstallation { accessScopes { handle } } }');
      expect(scopes.json.data.currentAppInstallation.accessScopes.map((scope: { handle: string }) => scope.handle)).toEqual(['read_orders']);
    });
  });
});

describe('the Klaviyo stand-in, OAuth', () => {
  const app = { clientId: 'kl-client-id', clientSecret: 'kl-client-secret', redirectUris: ['https://app.flowsmith-test.example/api/klaviyo/callback'] };
  const redirectUri = app.redirectUris[0]!;
  let klaviyo: FakeKlaviyo;
  let clock: number;

  async function start(options: FakeKlaviyoOptions = {}) {
    await klaviyo?.close();
    clock = Date.now();
    klaviyo = await startFakeKlaviyo({ oauthApp: app, accountName: 'Acme Outdoor', now: () => clock, ...options });
  }
  beforeEach(async () => {
    klaviyo = undefined as unknown as FakeKlaviyo;
    await start();
  });
  afterEach(async () => {
    await klaviyo.close();
  });

  const pkce = () => {
    const verifier = randomBytes(48).toString('base64url');
    return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
  };
  const authorizeUrl = (challenge: string, params: Record<string, string | null> = {}) => {
    const url = new URL(`${klaviyo.baseUrl}/oauth/authorize`);
    const all: Record<string, string | null> = {
      response_type: 'code',
      client_id: app.clientId,
      redirect_uri: redirectUri,
      scope: 'accounts:read profiles:read',
      state: 'state-456',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...params,
    };
    for (const [name, value] of Object.entries(all)) if (value !== null) url.searchParams.set(name, value);
    return url.toString();
  };
  async function consent(challenge: string, button = 'Allow', params: Record<string, string | null> = {}): Promise<URL> {
    const url = authorizeUrl(challenge, params);
    const page = await call(url);
    expect(page.status).toBe(200);
    const pressed = await pressConsentButton(url, page.text, button);
    expect(pressed.status).toBe(302);
    return new URL(pressed.headers.get('location')!);
  }
  const basic = (secret = app.clientSecret) => `Basic ${Buffer.from(`${app.clientId}:${secret}`).toString('base64')}`;
  /** What the app sends (src/server/integrations/klaviyo/klaviyo-oauth.ts, as Klaviyo's guide shows it). */
  const post = (path: string, form: Record<string, string>, authorization = basic()) =>
    call(`${klaviyo.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(form).toString(),
    });
  const exchange = (code: string, verifier: string, secret?: string) => post('/oauth/token', { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri }, basic(secret));
  const refresh = (refreshToken: string) => post('/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken });
  const api = (accessToken: string, path = '/api/accounts', init: RequestInit = {}) =>
    call(`${klaviyo.baseUrl}${path}`, { ...init, headers: { authorization: `Bearer ${accessToken}`, revision: klaviyoSdkRevision, accept: 'application/vnd.api+json', ...init.headers } });
  async function connect(scope = 'accounts:read profiles:read') {
    const { verifier, challenge } = pkce();
    const code = (await consent(challenge, 'Allow', { scope })).searchParams.get('code')!;
    const answer = await exchange(code, verifier);
    expect(answer.status).toBe(200);
    return answer.json as { access_token: string; refresh_token: string; scope: string };
  }

  it('consent page, Allow, then the code and its S256 verifier for Bearer tokens the API takes; the code works once', async () => {
    const { verifier, challenge } = pkce();
    const url = authorizeUrl(challenge);
    const page = await call(url);
    expect(page.text).toContain('Flowsmith would like to access your Klaviyo account');
    expect(page.text).toContain('Acme Outdoor');
    expect(page.text).toContain('<li>profiles:read</li>');
    expect(readConsentForm(page.text).buttons.map((button) => button.label)).toEqual(['Allow', 'Deny']);
    const location = new URL((await pressConsentButton(url, page.text, 'Allow')).headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    expect([...location.searchParams.keys()].sort()).toEqual(['code', 'state']);
    expect(location.searchParams.get('state')).toBe('state-456');

    const answer = await exchange(location.searchParams.get('code')!, verifier);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, refresh_token: expect.any(String), scope: 'accounts:read profiles:read' });
    const account = await api(answer.json.access_token);
    expect(account.status).toBe(200);
    expect(account.json.data[0]).toMatchObject({ id: 'AbC123', attributes: { contact_information: { organization_name: 'Acme Outdoor' } } });

    const reused = await exchange(location.searchParams.get('code')!, verifier);
    expect(reused.status).toBe(400);
    expect(reused.json).toEqual({ error: 'invalid_grant' });
    expect(klaviyo.oauthTokenRequests.map((request) => [request.grantType, request.status])).toEqual([
      ['authorization_code', 200],
      ['authorization_code', 400],
    ]);
  });

  it('Deny sends the browser back with error=access_denied and the state', async () => {
    const location = await consent(pkce().challenge, 'Deny');
    expect(Object.fromEntries(location.searchParams)).toEqual({ error: 'access_denied', state: 'state-456' });
  });

  it('refuses an authorize request without S256 PKCE, an unknown scope or an unregistered redirect with a 400 page naming it', async () => {
    const { challenge } = pkce();
    const cases: Array<[Record<string, string | null>, string]> = [
      [{ code_challenge_method: 'plain' }, 'code_challenge_method plain is not supported'],
      [{ code_challenge_method: null }, 'code_challenge_method is missing'],
      [{ code_challenge: 'short' }, 'code_challenge is not a base64url SHA-256 digest'],
      [{ scope: 'profiles:read profiles:everything' }, 'profiles:everything is not a Klaviyo scope'],
      [{ redirect_uri: 'https://elsewhere.example/callback' }, 'is not one of the app&#39;s redirect URLs'],
      [{ client_id: 'someone-else' }, 'no Klaviyo app has the client_id'],
    ];
    for (const [params, words] of cases) {
      const refused = await call(authorizeUrl(challenge, params));
      expect(refused.status).toBe(400);
      expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
      expect(refused.text).toContain(words);
    }
    expect(klaviyo.takeViolations()).toHaveLength(cases.length);
  });

  it('refuses a verifier that does not match the challenge (and the code is spent), a wrong secret, and requests not as the guide shows', async () => {
    const { verifier, challenge } = pkce();
    const code = (await consent(challenge)).searchParams.get('code')!;
    const wrongSecret = await exchange(code, verifier, 'not-the-secret');
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.json.error).toBe('invalid_client');
    const mismatch = await exchange(code, pkce().verifier);
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.error).toBe('invalid_grant');
    expect((await exchange(code, verifier)).json.error).toBe('invalid_grant');

    // Not as Klaviyo's guide: the secret in the body instead of Basic, a JSON body, another grant.
    const inBody = await call(`${klaviyo.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, client_id: app.clientId, client_secret: app.clientSecret }).toString(),
    });
    expect(inBody.status).toBe(401);
    expect(inBody.json.error).toBe('invalid_client');
    const json = await call(`${klaviyo.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { authorization: basic(), 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri }),
    });
    expect(json.json.error).toBe('invalid_request');
    expect((await post('/oauth/token', { grant_type: 'client_credentials' })).json.error).toBe('unsupported_grant_type');
    expect(klaviyo.takeViolations().map((violation) => violation.path)).toEqual(['/oauth/token', '/oauth/token', '/oauth/token']);
  });

  it('rotates the refresh token at each refresh and refuses the one used (the default); a lost answer then cannot be recovered', async () => {
    const first = await connect();
    const renewed = await refresh(first.refresh_token);
    expect(renewed.status).toBe(200);
    expect(renewed.json).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'accounts:read profiles:read' });
    expect(renewed.json.refresh_token).not.toBe(first.refresh_token);
    expect((await refresh(first.refresh_token)).json).toEqual({ error: 'invalid_grant' });
    // The earlier access token lives out its hour.
    expect((await api(first.access_token)).status).toBe(200);

    klaviyo.loseNextTokenAnswer();
    await expect(refresh(renewed.json.refresh_token)).rejects.toThrow();
    expect(klaviyo.oauthTokenRequests.at(-1)).toMatchObject({ grantType: 'refresh_token', refreshToken: renewed.json.refresh_token, lost: true });
    expect((await refresh(renewed.json.refresh_token)).json).toEqual({ error: 'invalid_grant' });
  });

  it("with 'rotate-with-recovery' the previous refresh token recovers a lost answer until the new one is used; with 'keep' it stays", async () => {
    await start({ oauthRefreshRotation: 'rotate-with-recovery' });
    const first = await connect();
    klaviyo.loseNextTokenAnswer();
    await expect(refresh(first.refresh_token)).rejects.toThrow();
    const recovered = await refresh(first.refresh_token);
    expect(recovered.status).toBe(200);
    expect((await refresh(recovered.json.refresh_token)).status).toBe(200);
    expect((await refresh(first.refresh_token)).json.error).toBe('invalid_grant');

    await start({ oauthRefreshRotation: 'keep' });
    const kept = await connect();
    const again = await refresh(kept.refresh_token);
    expect(again.json.refresh_token).toBe(kept.refresh_token);
    expect((await refresh(kept.refresh_token)).status).toBe(200);
  });

  it('enforces a Bearer token’s scopes like a key’s, and answers 401 once it expired or was revoked', async () => {
    const tokens = await connect('accounts:read profiles:read');
    const write = await api(tokens.access_token, '/api/profile-import', {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.api+json' },
      body: JSON.stringify({ data: { type: 'profile', attributes: { email: 'kim@example.com' } } }),
    });
    expect(write.status).toBe(403);
    expect(write.json.errors[0].detail).toContain('profiles:write');
    // The revision header is required as for a key.
    const noRevision = await call(`${klaviyo.baseUrl}/api/accounts`, { headers: { authorization: `Bearer ${tokens.access_token}`, accept: 'application/vnd.api+json' } });
    expect(noRevision.status).toBe(400);
    expect(klaviyo.takeViolations()).toHaveLength(1);

    klaviyo.expireAccessTokens();
    const expired = await api(tokens.access_token);
    expect(expired.status).toBe(401);
    expect(expired.json.errors[0]).toMatchObject({ code: 'authentication_failed' });
    const renewed = (await refresh(tokens.refresh_token)).json;
    expect((await api(renewed.access_token)).status).toBe(200);

    const revoked = await post('/oauth/revoke', { token: renewed.refresh_token, token_type_hint: 'refresh_token' });
    expect(revoked.status).toBe(200);
    expect(revoked.text).toBe('');
    expect(klaviyo.revocations).toEqual([expect.objectContaining({ token: renewed.refresh_token, tokenTypeHint: 'refresh_token', clientId: app.clientId, revoked: true })]);
    expect((await api(renewed.access_token)).status).toBe(401);
    expect((await refresh(renewed.refresh_token)).json.error).toBe('invalid_grant');
    // Revoking what is already dead still answers 200.
    expect((await post('/oauth/revoke', { token: renewed.refresh_token })).status).toBe(200);
  });

  it('revokeAllOAuthTokens refuses every refresh for good; token requests fail on demand', async () => {
    const tokens = await connect();
    klaviyo.failTokenRequests(1, 503);
    expect((await refresh(tokens.refresh_token)).status).toBe(503);
    klaviyo.failTokenRequests(1, 'timeout');
    await expect(
      fetch(`${klaviyo.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { authorization: basic(), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }).toString(),
        signal: AbortSignal.timeout(150),
      }),
    ).rejects.toThrow();

    klaviyo.revokeAllOAuthTokens();
    expect((await refresh(tokens.refresh_token)).json.error).toBe('invalid_grant');
    expect((await api(tokens.access_token)).status).toBe(401);
    // The owner may connect again.
    const again = await connect();
    expect((await api(again.access_token)).status).toBe(200);
  });
});
