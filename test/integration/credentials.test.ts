import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { insertSignedInOwner } from '../support/owner-builder.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.ts';
import { startFakeKlaviyo, type FakeKlaviyo } from '../fakes/fake-klaviyo.ts';
import { defaultGrantedScopes, startFakeShopify, type FakeShopify } from '../fakes/fake-shopify.ts';
import { maskSecret } from '../../src/server/platform/credential-masking.ts';
import { loadServiceCredentials } from '../../src/server/credentials/credential-store.ts';
import { encryptedColumns } from '../../src/server/credentials/credential-queries.ts';
import { createEngineCredentialsLoader } from '../../src/server/engine/spine/engine-credentials-loader.ts';
import { credentialCheckMessages as check, credentialMessages, credentialValidationMessages as v } from '../../src/shared/credentials/credential-messages.ts';
import { requestMessages } from '../../src/shared/messages.ts';
import { userRateLimits } from '../../src/server/platform/user-rate-limit.ts';
import { fillRateLimitWindow } from '../support/rate-limit-uses.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';
import { endpointAddress } from '../../src/shared/api/endpoint.ts';

let testApp: TestApp;
let openai: FakeOpenAI;
let klaviyo: FakeKlaviyo;
let shopify: FakeShopify;

const keys = {
  klaviyo: 'pk_live_klaviyo_0123456789abcdef',
  openai: 'sk-proj-openai-0123456789abcdef',
  shopifyToken: 'shpat_shopify_0123456789abcdef',
  signing: 'shpss_signing_0123456789abcdef',
  clientId: 'client-id-0123456789',
  clientSecret: 'client-secret-0123456789abcdef',
};
const allSecrets = Object.values(keys);
const manyModelsKey = 'sk-proj-many-models-0123456789';

beforeAll(async () => {
  openai = await startFakeOpenAI({
    validKeys: [keys.openai, 'sk-proj-second-key-0123456789', manyModelsKey],
    models: ['gpt-5-mini', 'gpt-5', 'text-embedding-3-small', 'gpt-4o-realtime-preview'],
    // A key's list as OpenAI gives it: models that serve Structured Outputs and many that do not.
    modelsForKey: {
      [manyModelsKey]: [
        'gpt-3.5-turbo', 'gpt-4', 'gpt-4-turbo', 'o1-mini', 'chatgpt-4o-latest', 'gpt-4o-2024-05-13', 'gpt-4o', 'gpt-4o-2024-08-06', 'gpt-4o-mini',
        'gpt-4.1', 'gpt-4.1-mini', 'gpt-5', 'gpt-5-mini', 'gpt-5-pro', 'o3', 'o3-mini', 'o4-mini', 'gpt-4.5-preview', 'gpt-5-2025-08-07', 'whisper-1',
      ],
    },
    shutdownDates: { 'gpt-4.5-preview': '2025-07-14', 'gpt-4o-2024-08-06': '2099-01-01' },
  });
  klaviyo = await startFakeKlaviyo({ validKeys: [keys.klaviyo], keysWithoutAccountsScope: ['pk_live_noscope_0123456789'] });
  shopify = await startFakeShopify({ accessTokens: [keys.shopifyToken], clientId: keys.clientId, clientSecret: keys.clientSecret });
  klaviyo.validKeys.add('pk_live_noscope_0123456789');
  testApp = await startTestApp({
    env: { OPENAI_BASE_URL: openai.apiBaseUrl, KLAVIYO_BASE_URL: klaviyo.baseUrl, SHOPIFY_BASE_URL: shopify.baseUrl },
  });
});
afterAll(async () => {
  await testApp?.close();
  await openai?.close();
  await klaviyo?.close();
  await shopify?.close();
});
beforeEach(() => {
  // A fresh per-user rate-limit window, and fakes without leftover failures.
  testApp.clock.advance(61_000);
  openai.clearFailures();
  klaviyo.clearFailures();
  shopify.clearFailures();
});

const validInput = (overrides: Record<string, unknown> = {}) => ({
  klaviyoApiKey: keys.klaviyo,
  openaiApiKey: keys.openai,
  openaiModel: 'gpt-5-mini',
  shopifyDomain: 'test-shop.myshopify.com',
  shopifyAuthMethod: 'access_token',
  shopifyAccessToken: keys.shopifyToken,
  shopifySigningSecret: keys.signing,
  ...overrides,
});

let klaviyoKeyCounter = 0;
/** A Klaviyo key the app has not checked (and cached) yet. */
function freshKlaviyoKey(): string {
  klaviyoKeyCounter += 1;
  const key = `pk_live_fresh_${klaviyoKeyCounter}_0123456789`;
  klaviyo.validKeys.add(key);
  return key;
}

async function owner() {
  const { client, email } = await insertSignedInOwner(testApp);
  const session = await client.call(endpoints.account.session);
  return { client, email, userId: session.json.user.id as string };
}

async function storedRow(userId: string) {
  const { rows } = await testApp.database.pool.query('SELECT * FROM api_credentials WHERE user_id = $1', [userId]);
  return rows[0];
}

describe('setup and saving', () => {
  it('saves keys that all three services accept, completes setup and shows them masked', async () => {
    const { client, userId } = await owner();
    expect((await client.call(endpoints.credentials.status)).json).toEqual({ setupComplete: false });
    expect((await client.call(endpoints.credentials.read)).json).toEqual({ credentials: null });
    const klaviyoBefore = klaviyo.requests.length;

    const saved = await client.call(endpoints.credentials.save, { body: validInput({ klaviyoApiKey: freshKlaviyoKey() }) });
    expect(saved.status).toBe(200);
    expect(saved.json.firstSave).toBe(true);
    expect((await client.call(endpoints.credentials.status)).json).toEqual({ setupComplete: true });

    const accountCheck = klaviyo.requests.slice(klaviyoBefore).find((r) => r.path === '/api/accounts')!;
    expect(accountCheck.headers.revision).toBe('2026-07-15');
    expect(accountCheck.headers.authorization).toMatch(/^Klaviyo-API-Key pk_live_fresh_/);
    const openaiPaths = openai.requests.filter((r) => r.headers.authorization === `Bearer ${keys.openai}`).map((r) => r.path);
    expect(openaiPaths).toEqual(expect.arrayContaining(['/v1/models', '/v1/models/gpt-5-mini']));
    const shopCheck = shopify.requests.at(-1)!;
    expect(shopCheck.path).toBe('/admin/api/2026-10/graphql.json');
    expect(shopCheck.headers['x-shopify-access-token']).toBe(keys.shopifyToken);

    const { credentials } = (await client.call(endpoints.credentials.read)).json;
    expect(credentials).toMatchObject({
      openaiApiKey: maskSecret(keys.openai),
      openaiModel: 'gpt-5-mini',
      shopifyDomain: 'test-shop.myshopify.com',
      shopifyAuthMethod: 'access_token',
      shopifyAccessToken: maskSecret(keys.shopifyToken),
      shopifyClientId: null,
      shopifyClientSecret: null,
      shopifySigningSecret: maskSecret(keys.signing),
    });
    expect(credentials.klaviyoApiKey).toMatch(/^pk_l\*+6789$/);
    expect((await client.call(endpoints.credentials.encryption)).json).toEqual({ working: true, error: null });

    const loaded = await loadServiceCredentials(testApp.database.pool, testApp.app.credentialCipher, userId);
    expect(loaded).toMatchObject({
      openaiApiKey: keys.openai,
      openaiModel: 'gpt-5-mini',
      shopify: { domain: 'test-shop.myshopify.com', authMethod: 'access_token', accessToken: keys.shopifyToken, clientId: null, clientSecret: null, signingSecrets: [keys.signing] },
    });
  });

  it("answers the specified required-field messages (docs/product/specification.md §5), and a clear one for a malformed domain", async () => {
    const { client } = await owner();
    const empty = await client.call(endpoints.credentials.save, { body: { shopifyAuthMethod: 'access_token', klaviyoApiKey: '', openaiApiKey: ' ', openaiModel: '', shopifyDomain: '' } });
    expect(empty.status).toBe(400);
    expect(empty.json.fieldErrors).toEqual({
      klaviyoApiKey: v.klaviyoApiKeyRequired,
      openaiApiKey: v.openaiApiKeyRequired,
      openaiModel: v.openaiModelRequired,
      shopifyDomain: v.shopifyDomainRequired,
      shopifyAccessToken: v.shopifyAccessTokenRequired,
      shopifySigningSecret: v.shopifySigningSecretRequired,
    });
    expect(empty.json.fieldErrors.klaviyoApiKey).toBe('Klaviyo API Key is required');
    expect(empty.json.fieldErrors.openaiApiKey).toBe('OpenAI API Key is required');
    expect(empty.json.fieldErrors.openaiModel).toBe('OpenAI model is required');
    expect(empty.json.fieldErrors.shopifyAccessToken).toBe('Shopify Access Token is required');

    const clientCredentials = await client.call(endpoints.credentials.save, { body: validInput({ shopifyAuthMethod: 'client_credentials', shopifyAccessToken: '' }) });
    expect(clientCredentials.json.fieldErrors).toEqual({ shopifyClientId: v.shopifyClientIdRequired, shopifyClientSecret: v.shopifyClientSecretRequired });

    for (const domain of ['my shop', 'shop.example.com', 'https://-bad.myshopify.com']) {
      const malformed = await client.call(endpoints.credentials.save, { body: validInput({ shopifyDomain: domain }) });
      expect(malformed.json.fieldErrors).toEqual({ shopifyDomain: v.shopifyDomainInvalid });
    }
    const spaced = await client.call(endpoints.credentials.save, { body: validInput({ openaiApiKey: 'sk-proj with space' }) });
    expect(spaced.json.fieldErrors).toEqual({ openaiApiKey: v.oneWord('OpenAI API Key') });
    expect((await client.call(endpoints.credentials.status)).json.setupComplete).toBe(false);
  });

  it('keeps the domain an owner pastes as a URL as name.myshopify.com', async () => {
    const { client } = await owner();
    const saved = await client.call(endpoints.credentials.save, { body: validInput({ shopifyDomain: 'https://Test-Shop.myshopify.com/admin/settings' }) });
    expect(saved.status).toBe(200);
    expect(saved.json.credentials.shopifyDomain).toBe('test-shop.myshopify.com');
  });

  it('explains that assistant and stored-prompt ids no longer work, without calling any service', async () => {
    const { client } = await owner();
    const before = openai.requests.length + klaviyo.requests.length + shopify.requests.length;
    const assistant = await client.call(endpoints.credentials.save, { body: validInput({ openaiModel: 'asst_abc123' }) });
    expect(assistant.status).toBe(400);
    expect(assistant.json.fieldErrors).toEqual({ openaiModel: v.assistantIdRetired });
    expect(assistant.json.fieldErrors.openaiModel).toMatch(/Assistants API/);
    const prompt = await client.call(endpoints.credentials.save, { body: validInput({ openaiModel: 'pmpt_abc123' }) });
    expect(prompt.json.fieldErrors).toEqual({ openaiModel: v.storedPromptRetired });
    expect(prompt.json.fieldErrors.openaiModel).toMatch(/stored prompts/);
    expect(openai.requests.length + klaviyo.requests.length + shopify.requests.length).toBe(before);
  });
});

describe('live checks', () => {
  it('gives each refused key its field error and the toast message, and saves nothing', async () => {
    const { client, userId } = await owner();
    const refused = await client.call(endpoints.credentials.save, {
      body: validInput({ klaviyoApiKey: 'pk_live_unknown_0123456789', openaiApiKey: 'sk-proj-unknown-0123456789', shopifyAccessToken: 'shpat_unknown_0123456789' }),
    });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ error: 'invalid_credentials', message: 'One or more API keys are invalid' });
    expect(refused.json.fieldErrors).toEqual({
      klaviyoApiKey: check.klaviyoKeyInvalid,
      openaiApiKey: check.openaiKeyInvalid,
      shopifyAccessToken: check.shopifyTokenInvalid,
    });
    expect(await storedRow(userId)).toBeUndefined();
  });

  it('names the Admin API access scopes a Shopify token or app lacks, and saves nothing', async () => {
    const { client, userId } = await owner();
    shopify.setTokenScopes(keys.shopifyToken, ['read_orders']);
    try {
      const token = await client.call(endpoints.credentials.save, { body: validInput() });
      expect(token.status, token.text).toBe(400);
      expect(token.json.fieldErrors).toEqual({ shopifyAccessToken: check.shopifyScopesMissing('read_products (product details for the texts)', 1) });
      expect(token.json.fieldErrors.shopifyAccessToken).toContain('read_products');
    } finally {
      shopify.setTokenScopes(keys.shopifyToken, defaultGrantedScopes);
    }
    shopify.setAppScopes(['read_customers']);
    try {
      const app = await client.call(endpoints.credentials.save, {
        body: validInput({ shopifyAuthMethod: 'client_credentials', shopifyAccessToken: '', shopifySigningSecret: '', shopifyClientId: keys.clientId, shopifyClientSecret: keys.clientSecret }),
      });
      expect(app.status, app.text).toBe(400);
      expect(app.json.fieldErrors).toEqual({ shopifyClientId: check.shopifyScopesMissing('read_orders (checkout, order and cart webhooks) and read_products (product details for the texts)', 2) });
    } finally {
      shopify.setAppScopes(defaultGrantedScopes);
    }
    expect(await storedRow(userId)).toBeUndefined();
  });

  it('tells a Klaviyo key answered with 400 or 403 apart', async () => {
    const { client } = await owner();
    klaviyo.failNext({ kind: 'status', status: 400, on: 'accounts' });
    const badRequest = await client.call(endpoints.credentials.save, { body: validInput({ klaviyoApiKey: freshKlaviyoKey() }) });
    expect(badRequest.status).toBe(400);
    expect(badRequest.json.fieldErrors).toEqual({ klaviyoApiKey: check.klaviyoKeyInvalid });
    const noScope = await client.call(endpoints.credentials.save, { body: validInput({ klaviyoApiKey: 'pk_live_noscope_0123456789' }) });
    expect(noScope.status).toBe(400);
    expect(noScope.json.fieldErrors).toEqual({ klaviyoApiKey: check.klaviyoKeyMissingScope(['accounts:read']) });
  });

  it('names the read permission a Klaviyo key lacks, as far as a read can tell (bulk import jobs need Lists)', async () => {
    const { client } = await owner();
    const key = freshKlaviyoKey();
    klaviyo.validKeys.add(key);
    klaviyo.setScopes(key, ['accounts:read', 'profiles:read', 'profiles:write', 'events:write']);
    const noLists = await client.call(endpoints.credentials.save, { body: validInput({ klaviyoApiKey: key }) });
    expect(noLists.status).toBe(400);
    expect(noLists.json.fieldErrors).toEqual({ klaviyoApiKey: check.klaviyoKeyMissingScope(['lists:read']) });
    expect(noLists.json.fieldErrors.klaviyoApiKey).toContain('Lists read access (lists:read)');
    klaviyo.setScopes(key, ['accounts:read', 'lists:read', 'lists:write', 'profiles:read', 'profiles:write', 'events:write']);
    expect((await client.call(endpoints.credentials.save, { body: validInput({ klaviyoApiKey: key }) })).status).toBe(200);
  });

  it('refuses a model the key cannot use', async () => {
    const { client } = await owner();
    const response = await client.call(endpoints.credentials.save, { body: validInput({ openaiModel: 'gpt-9-ultra' }) });
    expect(response.status).toBe(400);
    expect(response.json.fieldErrors).toEqual({ openaiModel: check.openaiModelUnavailable('gpt-9-ultra') });
  });

  it('says a service could not be reached on 5xx or 429, and saves nothing', async () => {
    const { client, userId } = await owner();
    klaviyo.failNext({ kind: 'status', status: 503, on: 'accounts' });
    openai.failWhen(() => ({ kind: 'status', status: 429, retryAfterSeconds: 1, on: 'models' }));
    shopify.failNext({ kind: 'status', status: 500, on: 'graphql' });
    const response = await client.call(endpoints.credentials.save, { body: validInput({ klaviyoApiKey: freshKlaviyoKey() }) });
    expect(response.status).toBe(503);
    expect(response.json).toMatchObject({ error: 'service_unreachable', message: credentialMessages.servicesUnreachable });
    expect(response.json.fieldErrors).toEqual({
      klaviyoApiKey: check.klaviyoUnreachable,
      openaiApiKey: check.openaiUnreachable,
      shopifyDomain: check.shopifyUnreachable,
    });
    expect(await storedRow(userId)).toBeUndefined();
  });

  it('reports invalid keys before unreachable services when both happen', async () => {
    const { client } = await owner();
    klaviyo.failNext({ kind: 'status', status: 429, retryAfterSeconds: 1, on: 'accounts' });
    const response = await client.call(endpoints.credentials.save, { body: validInput({ klaviyoApiKey: freshKlaviyoKey(), openaiApiKey: 'sk-proj-unknown-0123456789' }) });
    expect(response.status).toBe(400);
    expect(response.json.message).toBe(credentialMessages.invalidKeys);
    expect(response.json.fieldErrors).toEqual({ klaviyoApiKey: check.klaviyoUnreachable, openaiApiKey: check.openaiKeyInvalid });
  });

  it('gives up on services that do not answer within the time limit, all at once', async () => {
    const { client, userId } = await owner();
    klaviyo.failNext({ kind: 'hang', on: 'accounts' });
    openai.failWhen(() => ({ kind: 'hang', on: 'models' }));
    shopify.failNext({ kind: 'hang', on: 'graphql' });
    const started = Date.now();
    const response = await client.call(endpoints.credentials.save, { body: validInput({ klaviyoApiKey: freshKlaviyoKey() }) });
    const elapsed = Date.now() - started;
    expect(response.status).toBe(503);
    expect(response.json.fieldErrors).toEqual({
      klaviyoApiKey: check.klaviyoUnreachable,
      openaiApiKey: check.openaiUnreachable,
      shopifyDomain: check.shopifyUnreachable,
    });
    // The three checks run in parallel: one time limit (~8 s), not three.
    expect(elapsed).toBeGreaterThanOrEqual(7_500);
    expect(elapsed).toBeLessThan(14_000);
    expect(await storedRow(userId)).toBeUndefined();
  }, 25_000);

  it('caches a positive Klaviyo answer per key (1/s, 15/min limit) for a while', async () => {
    const { client } = await owner();
    const key = freshKlaviyoKey();
    const checks = () => klaviyo.requests.filter((r) => r.path === '/api/accounts' && r.headers.authorization === `Klaviyo-API-Key ${key}`).length;
    expect((await client.call(endpoints.credentials.save, { body: validInput({ klaviyoApiKey: key }) })).status).toBe(200);
    expect((await client.call(endpoints.credentials.save, { body: validInput({ klaviyoApiKey: key }) })).status).toBe(200);
    expect(checks()).toBe(1);
    testApp.clock.advance(11 * 60_000);
    expect((await client.call(endpoints.credentials.save, { body: validInput({ klaviyoApiKey: key }) })).status).toBe(200);
    expect(checks()).toBe(2);
  });

  it('checks without saving through POST /api/credentials/check', async () => {
    const { client, userId } = await owner();
    const good = await client.call(endpoints.credentials.check, { body: validInput() });
    expect(good.json).toEqual({ valid: true, unreachable: false, fieldErrors: {} });
    const bad = await client.call(endpoints.credentials.check, { body: validInput({ openaiApiKey: 'sk-proj-unknown-0123456789' }) });
    expect(bad.json).toEqual({ valid: false, unreachable: false, fieldErrors: { openaiApiKey: check.openaiKeyInvalid } });
    expect(await storedRow(userId)).toBeUndefined();
  });

  it('lists the text models a typed key can use, and says when the key is refused', async () => {
    const { client } = await owner();
    const listed = await client.call(endpoints.credentials.openaiModels, { body: { openaiApiKey: keys.openai } });
    expect(listed.status).toBe(200);
    expect(listed.json.models).toEqual(['gpt-5', 'gpt-5-mini']);
    const refused = await client.call(endpoints.credentials.openaiModels, { body: { openaiApiKey: 'sk-proj-unknown-0123456789' } });
    expect(refused.status).toBe(400);
    expect(refused.json.fieldErrors).toEqual({ openaiApiKey: check.openaiKeyInvalid });
    openai.failNext({ kind: 'status', status: 502, on: 'models' });
    const down = await client.call(endpoints.credentials.openaiModels, { body: { openaiApiKey: keys.openai } });
    expect(down.status).toBe(503);
    // The masked stored key stands for the stored one.
    await client.call(endpoints.credentials.save, { body: validInput() });
    const masked = await client.call(endpoints.credentials.openaiModels, { body: { openaiApiKey: maskSecret(keys.openai) } });
    expect(masked.json.models).toEqual(['gpt-5', 'gpt-5-mini']);
  });
});

describe('the model picker', () => {
  it('offers only models that serve Structured Outputs, have a known price and are not past their shutdown date', async () => {
    const { client } = await owner();
    const listed = await client.call(endpoints.credentials.openaiModels, { body: { openaiApiKey: manyModelsKey } });
    expect(listed.status).toBe(200);
    expect(listed.json.models).toEqual([
      'gpt-4.1', 'gpt-4.1-mini', 'gpt-4o', 'gpt-4o-2024-08-06', 'gpt-4o-mini', 'gpt-5', 'gpt-5-2025-08-07', 'gpt-5-mini', 'gpt-5-pro', 'o3', 'o3-mini', 'o4-mini',
    ]);
  });

  it('refuses to save a default model that is past its shutdown date', async () => {
    const { client } = await owner();
    openai.modelsForKey.set(keys.openai, ['gpt-5-mini', 'gpt-5', 'gpt-4.5-preview']);
    try {
      const saved = await client.call(endpoints.credentials.save, { body: validInput({ openaiModel: 'gpt-4.5-preview' }) });
      expect(saved.status).toBe(400);
      expect(saved.json.fieldErrors).toEqual({ openaiModel: check.openaiModelShutDown('gpt-4.5-preview', '2025-07-14') });
    } finally {
      openai.modelsForKey.delete(keys.openai);
    }
  });
});

describe('updating', () => {
  it('keeps every secret sent back in its masked form and replaces the changed one', async () => {
    const { client, userId } = await owner();
    await client.call(endpoints.credentials.save, { body: validInput() });
    const { credentials: masked } = (await client.call(endpoints.credentials.read)).json;
    const updated = await client.call(endpoints.credentials.save, {
      body: {
        klaviyoApiKey: masked.klaviyoApiKey,
        openaiApiKey: 'sk-proj-second-key-0123456789',
        openaiModel: 'gpt-5',
        shopifyDomain: masked.shopifyDomain,
        shopifyAuthMethod: 'access_token',
        shopifyAccessToken: masked.shopifyAccessToken,
        shopifySigningSecret: masked.shopifySigningSecret,
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.json.firstSave).toBe(false);
    expect(updated.json.credentials.openaiApiKey).toBe(maskSecret('sk-proj-second-key-0123456789'));
    const loaded = await loadServiceCredentials(testApp.database.pool, testApp.app.credentialCipher, userId);
    expect(loaded).toMatchObject({
      klaviyoApiKey: keys.klaviyo,
      openaiApiKey: 'sk-proj-second-key-0123456789',
      openaiModel: 'gpt-5',
      shopify: { accessToken: keys.shopifyToken, signingSecrets: [keys.signing] },
    });
  });

  it('keeps the previous webhook signing secret valid for one hour after a change', async () => {
    const { client, userId } = await owner();
    await client.call(endpoints.credentials.save, { body: validInput() });
    await client.call(endpoints.credentials.save, { body: validInput({ shopifySigningSecret: 'shpss_rotated_0123456789' }) });
    const load = () => loadServiceCredentials(testApp.database.pool, testApp.app.credentialCipher, userId, testApp.clock.now());
    expect((await load())!.shopify.signingSecrets).toEqual(['shpss_rotated_0123456789', keys.signing]);
    testApp.clock.advance(59 * 60_000);
    expect((await load())!.shopify.signingSecrets).toEqual(['shpss_rotated_0123456789', keys.signing]);
    testApp.clock.advance(2 * 60_000);
    expect((await load())!.shopify.signingSecrets).toEqual(['shpss_rotated_0123456789']);
  });

  it("gives the engine the owner's decrypted keys, model and signing secrets, and nothing for an owner without setup", async () => {
    const { client, userId } = await owner();
    const loadForEngine = createEngineCredentialsLoader(testApp.app.credentialCipher, testApp.clock);
    expect(await loadForEngine(testApp.database.pool, userId)).toBeNull();
    await client.call(endpoints.credentials.save, { body: validInput() });
    expect(await loadForEngine(testApp.database.pool, userId)).toEqual({
      klaviyoApiKey: keys.klaviyo,
      openaiApiKey: keys.openai,
      openaiModel: 'gpt-5-mini',
      shopifySigningSecrets: [keys.signing],
    });
  });
});

describe('Shopify client credentials', () => {
  const clientCredentialsInput = (overrides: Record<string, unknown> = {}) =>
    validInput({ shopifyAuthMethod: 'client_credentials', shopifyAccessToken: '', shopifySigningSecret: '', shopifyClientId: keys.clientId, shopifyClientSecret: keys.clientSecret, ...overrides });

  it('obtains a token by the client-credentials grant, checks the shop with it and keeps it encrypted', async () => {
    const { client, userId } = await owner();
    const exchangesBefore = shopify.counts['access-token'];
    const saved = await client.call(endpoints.credentials.save, { body: clientCredentialsInput() });
    expect(saved.status).toBe(200);
    expect(saved.json.credentials).toMatchObject({
      shopifyAuthMethod: 'client_credentials',
      shopifyAccessToken: null,
      shopifyClientId: maskSecret(keys.clientId),
      shopifyClientSecret: maskSecret(keys.clientSecret),
      shopifySigningSecret: null,
    });
    expect(shopify.counts['access-token']).toBe(exchangesBefore + 1);
    const exchange = shopify.requests.filter((r) => r.path === '/admin/oauth/access_token').at(-1)!;
    expect(exchange.body).toEqual({ grant_type: 'client_credentials', client_id: keys.clientId, client_secret: keys.clientSecret });
    const [obtained] = [...shopify.issuedTokens.keys()].slice(-1);
    expect(shopify.requests.at(-1)!.headers['x-shopify-access-token']).toBe(obtained);

    const row = await storedRow(userId);
    expect(row.shopify_obtained_token).toMatch(/^v1:/);
    expect(row.shopify_obtained_token).not.toContain(obtained);
    expect(row.shopify_obtained_token_expires_at.getTime()).toBe(testApp.clock.now().getTime() + 86_399_000);

    const loaded = await loadServiceCredentials(testApp.database.pool, testApp.app.credentialCipher, userId);
    expect(loaded!.shopify).toMatchObject({ authMethod: 'client_credentials', accessToken: null, clientId: keys.clientId, clientSecret: keys.clientSecret, signingSecrets: [keys.clientSecret] });
  });

  it('gives a refused client id and secret their field errors', async () => {
    const { client } = await owner();
    const refused = await client.call(endpoints.credentials.save, { body: clientCredentialsInput({ shopifyClientSecret: 'wrong-secret-0123456789' }) });
    expect(refused.status).toBe(400);
    expect(refused.json.fieldErrors).toEqual({ shopifyClientId: check.shopifyClientInvalid, shopifyClientSecret: check.shopifyClientInvalid });
  });

  it('hands the engine a stored token, renews it before it expires and after Shopify refuses it', async () => {
    const { client, userId } = await owner();
    await client.call(endpoints.credentials.save, { body: clientCredentialsInput() });
    const provider = testApp.app.shopifyTokens;
    const exchanges = () => shopify.counts['access-token'];
    const before = exchanges();

    const first = await provider.connectionFor(userId);
    expect(first).toMatchObject({ domain: 'test-shop.myshopify.com', shopUrl: shopify.baseUrl });
    expect(shopify.issuedTokens.has(first!.accessToken)).toBe(true);
    expect(exchanges()).toBe(before);

    // Less than an hour left: a new token is obtained and stored.
    testApp.clock.advance(23.5 * 3600_000);
    const [renewed, concurrent] = await Promise.all([provider.connectionFor(userId), provider.connectionFor(userId)]);
    expect(exchanges()).toBe(before + 1);
    expect(renewed!.accessToken).not.toBe(first!.accessToken);
    expect(concurrent!.accessToken).toBe(renewed!.accessToken);
    expect((await provider.connectionFor(userId))!.accessToken).toBe(renewed!.accessToken);

    await provider.invalidate(userId, renewed!.accessToken);
    const afterRefusal = await provider.connectionFor(userId);
    expect(exchanges()).toBe(before + 2);
    expect(afterRefusal!.accessToken).not.toBe(renewed!.accessToken);
  });

  it('hands out the fixed token of an access-token store, and nothing for an owner without credentials', async () => {
    const { client, userId } = await owner();
    expect(await testApp.app.shopifyTokens.connectionFor(userId)).toBeNull();
    await client.call(endpoints.credentials.save, { body: validInput() });
    expect(await testApp.app.shopifyTokens.connectionFor(userId)).toEqual({ domain: 'test-shop.myshopify.com', shopUrl: shopify.baseUrl, accessToken: keys.shopifyToken });
  });
});

describe('rate limits (docs/decisions/0025-per-owner-rate-limits.md)', () => {
  it('counts a save as a write and a check: the one past the check limit within 60 seconds is refused, and allowed 60 seconds later', async () => {
    const { client, userId } = await owner();
    await fillRateLimitWindow(testApp.database.pool, userId, 'check', userRateLimits.check - 1, testApp.clock.now());
    expect((await client.call(endpoints.credentials.save, { body: validInput() })).status).toBe(200);
    const refused = await client.call(endpoints.credentials.save, { body: validInput() });
    expect(refused.status).toBe(429);
    expect(refused.json.message).toBe('Rate limit exceeded');
    expect(refused.json.message).toBe(requestMessages.rateLimited);
    expect(refused.headers.get('retry-after')).toBe('60');
    testApp.clock.advance(60_000);
    expect((await client.call(endpoints.credentials.save, { body: validInput() })).status).toBe(200);
  });

  it('counts key checks as checks and fetches as reads, each against its own limit', async () => {
    const { client, userId } = await owner();
    await fillRateLimitWindow(testApp.database.pool, userId, 'check', userRateLimits.check, testApp.clock.now());
    expect((await client.call(endpoints.credentials.check, { body: validInput() })).status).toBe(429);
    expect((await client.call(endpoints.credentials.openaiModels, { body: { openaiApiKey: keys.openai } })).status).toBe(429);
    // Reads are not held up by spent checks.
    expect((await client.call(endpoints.credentials.read)).status).toBe(200);
    await fillRateLimitWindow(testApp.database.pool, userId, 'read', userRateLimits.read - 2, testApp.clock.now());
    expect((await client.call(endpoints.credentials.status)).status).toBe(200);
    expect((await client.call(endpoints.credentials.encryption)).status).toBe(429);
    testApp.clock.advance(60_000);
    expect((await client.call(endpoints.credentials.encryption)).status).toBe(200);
    expect((await client.call(endpoints.credentials.check, { body: validInput() })).status).toBe(200);
  });
});

describe('isolation and secrecy', () => {
  it('lets a second owner neither read nor overwrite the first owner’s record', async () => {
    const first = await owner();
    const second = await owner();
    await first.client.call(endpoints.credentials.save, { body: validInput() });
    const firstMasked = (await first.client.call(endpoints.credentials.read)).json.credentials;

    expect((await second.client.call(endpoints.credentials.read)).json).toEqual({ credentials: null });
    expect((await second.client.call(endpoints.credentials.status)).json).toEqual({ setupComplete: false });

    // The first owner's masked values do not unlock the first owner's secrets for the second.
    const borrowed = await second.client.call(endpoints.credentials.save, { body: { ...validInput(), klaviyoApiKey: firstMasked.klaviyoApiKey } });
    expect(borrowed.status).toBe(400);
    expect(borrowed.json.fieldErrors).toEqual({ klaviyoApiKey: check.klaviyoKeyInvalid });

    const own = await second.client.call(endpoints.credentials.save, { body: validInput({ openaiApiKey: 'sk-proj-second-key-0123456789', shopifyAccessToken: keys.shopifyToken }) });
    expect(own.status).toBe(200);
    expect((await first.client.call(endpoints.credentials.read)).json.credentials).toEqual(firstMasked);
    const firstLoaded = await loadServiceCredentials(testApp.database.pool, testApp.app.credentialCipher, first.userId);
    expect(firstLoaded!.openaiApiKey).toBe(keys.openai);
    const anonymous = await fetch(`${testApp.baseUrl}${endpointAddress(endpoints.credentials.read)}`);
    expect(anonymous.status).toBe(401);
  });

  it('a value copied into another owner’s row does not decrypt there', async () => {
    const first = await owner();
    const second = await owner();
    await first.client.call(endpoints.credentials.save, { body: validInput() });
    await second.client.call(endpoints.credentials.save, { body: validInput({ openaiApiKey: 'sk-proj-second-key-0123456789' }) });
    await testApp.database.pool.query(
      'UPDATE api_credentials SET openai_api_key = (SELECT openai_api_key FROM api_credentials WHERE user_id = $1) WHERE user_id = $2',
      [first.userId, second.userId],
    );
    await expect(loadServiceCredentials(testApp.database.pool, testApp.app.credentialCipher, second.userId)).rejects.toThrow(/failed authentication/);
    expect((await second.client.call(endpoints.credentials.encryption)).json).toEqual({ working: false, error: expect.any(String) });
    expect((await second.client.call(endpoints.credentials.read)).json.credentials.openaiApiKey).toBe(credentialMessages.undecryptable);
    expect((await first.client.call(endpoints.credentials.encryption)).json.working).toBe(true);
  });

  it('asks for a value again when the stored one no longer decrypts', async () => {
    const { client, userId } = await owner();
    await client.call(endpoints.credentials.save, { body: validInput() });
    const masked = (await client.call(endpoints.credentials.read)).json.credentials;
    await testApp.database.pool.query("UPDATE api_credentials SET klaviyo_api_key = 'v1:' || encode(decode('00112233445566778899aabbccddeeff0011223344556677', 'hex'), 'base64') WHERE user_id = $1", [userId]);
    const response = await client.call(endpoints.credentials.save, { body: { ...validInput(), klaviyoApiKey: masked.klaviyoApiKey } });
    expect(response.status).toBe(400);
    expect(response.json.fieldErrors).toEqual({ klaviyoApiKey: v.unresolvableMasked });
    expect((await client.call(endpoints.credentials.save, { body: validInput() })).status).toBe(200);
    expect((await client.call(endpoints.credentials.encryption)).json.working).toBe(true);
  });

  it('stores no secret in plaintext and lets none out in a response or a log line', async () => {
    const { client, userId } = await owner();
    const responses: string[] = [];
    const record = async (response: Promise<{ text: string }>) => responses.push((await response).text);
    await record(client.call(endpoints.credentials.save, { body: validInput() }));
    await record(client.call(endpoints.credentials.read));
    await record(
      client.call(endpoints.credentials.save, {
        body: validInput({ shopifyAuthMethod: 'client_credentials', shopifyClientId: keys.clientId, shopifyClientSecret: keys.clientSecret, shopifySigningSecret: '' }),
      }),
    );
    await record(client.call(endpoints.credentials.read));
    await record(client.call(endpoints.credentials.save, { body: validInput({ openaiApiKey: `${keys.openai}-x` }) }));
    await record(client.call(endpoints.credentials.check, { body: validInput() }));
    await record(client.call(endpoints.credentials.openaiModels, { body: { openaiApiKey: keys.openai } }));
    klaviyo.failNext({ kind: 'status', status: 503, on: 'accounts' });
    await record(client.call(endpoints.credentials.save, { body: validInput({ klaviyoApiKey: freshKlaviyoKey() }) }));

    const row = await storedRow(userId);
    const rowText = JSON.stringify(row);
    const { rows: tableRows } = await testApp.database.pool.query('SELECT * FROM api_credentials');
    const tableText = JSON.stringify(tableRows);
    const obtainedTokens = [...shopify.issuedTokens.keys()];
    for (const secret of [...allSecrets, ...obtainedTokens]) {
      expect(tableText).not.toContain(secret);
      for (const text of responses) expect(text).not.toContain(secret);
      for (const line of testApp.logLines) expect(line).not.toContain(secret);
    }
    for (const column of encryptedColumns) {
      if (row[column] !== null) expect(row[column]).toMatch(/^v1:/);
    }
    expect(rowText).toContain('client_credentials');
  });
});
