import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/server/platform/clock.ts';
import { startSandboxListener, type SandboxListener } from '../../src/server/sandbox/sandbox-listener.ts';
import { ensureSandboxAccount } from '../../src/server/sandbox/sandbox-queries.ts';
import { sampleProductGid, sampleProducts } from '../../src/server/sandbox/sample-shop.ts';
import { KLAVIYO_REVISION } from '../../src/server/integrations/klaviyo/klaviyo-profiles.ts';
import { SHOPIFY_API_VERSION } from '../../src/server/integrations/shopify/shopify-admin.ts';
import { productTitleSearch, productTitleSearchQuery } from '../../src/server/integrations/shopify/shopify-product-search.ts';
import { checkKlaviyoType, klaviyoOperation } from '../contracts/klaviyo-definition.ts';
import { checkOpenAiType } from '../contracts/openai-definition.ts';
import { checkAdminAnswer, checkAdminRequest } from '../contracts/shopify-definition.ts';
import { createTestDatabase } from '../support/test-database.ts';

/**
 * The sandbox's built-in services (docs/decisions/0026-sandbox.md) stand where the real
 * ones would, so the engine's own integration modules read their answers: each answer is
 * held to the vendor's definition like the test stand-ins' (docs/decisions/0032).
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let listener: SandboxListener;
let token: string;

beforeAll(async () => {
  database = await createTestDatabase();
  const userId = randomUUID();
  await database.pool.query('INSERT INTO users (id, full_name, email) VALUES ($1, $2, $3)', [userId, 'Sam Sandbox', `${userId}@example.com`]);
  token = (await ensureSandboxAccount(database.pool, userId)).accessToken;
  listener = await startSandboxListener({ db: database.pool, clock: systemClock, logger: pino({ level: 'silent' }) });
});

afterAll(async () => {
  await listener?.close();
  await database?.close();
});

async function call(url: string, init: { method?: string; headers: Record<string, string>; body?: unknown }) {
  const response = await fetch(url, { method: init.method ?? 'GET', headers: init.headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const text = await response.text();
  return { status: response.status, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

describe("the sandbox's services answer in the vendors' shapes", () => {
  it('OpenAI: models and a Structured Outputs response', async () => {
    const { openaiBaseUrl } = listener.addresses();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const models = await call(`${openaiBaseUrl}/models`, { headers });
    expect(models.status).toBe(200);
    expect(checkOpenAiType('ModelList', models.json).problems).toEqual([]);
    const request = {
      model: 'gpt-5-mini',
      instructions: 'Write a subject line.',
      input: 'Product: Linen shirt',
      max_output_tokens: 400,
      store: false,
      text: { format: { type: 'json_schema', name: 'texts', strict: true, schema: { type: 'object', properties: { subject_line1: { type: 'string' } }, required: ['subject_line1'], additionalProperties: false } } },
    };
    expect(checkOpenAiType('ResponseCreateParamsNonStreaming', request).problems).toEqual([]);
    const answer = await call(`${openaiBaseUrl}/responses`, { method: 'POST', headers, body: request });
    expect(answer.status).toBe(200);
    expect(checkOpenAiType('Response', answer.json).problems).toEqual([]);
    // The checks before delivery: moderation of many texts, one result each.
    const moderation = { model: 'omni-moderation-latest', input: ['Your cart misses you.', 'Free shipping today.'] };
    expect(checkOpenAiType('ModerationCreateParams', moderation).problems).toEqual([]);
    const moderated = await call(`${openaiBaseUrl}/moderations`, { method: 'POST', headers, body: moderation });
    expect(moderated.status).toBe(200);
    expect(checkOpenAiType('ModerationCreateResponse', moderated.json).problems).toEqual([]);
    expect((moderated.json as { results: unknown[] }).results).toHaveLength(2);
    const refused = await call(`${openaiBaseUrl}/models`, { headers: { authorization: 'Bearer sbx_unknown' } });
    expect(refused.status).toBe(401);
    expect(checkOpenAiType('ErrorBody', refused.json).problems).toEqual([]);
  });

  it('Klaviyo: the key check, a profile write, a look-up and an event', async () => {
    const { klaviyoBaseUrl } = listener.addresses();
    const headers = { authorization: `Klaviyo-API-Key ${token}`, revision: KLAVIYO_REVISION, accept: 'application/vnd.api+json', 'content-type': 'application/vnd.api+json' };
    const accounts = await call(`${klaviyoBaseUrl}/api/accounts`, { headers });
    expect(accounts.status).toBe(200);
    expect(checkKlaviyoType(klaviyoOperation('getAccounts').responseType!, accounts.json).problems).toEqual([]);
    const profile = { data: { type: 'profile', attributes: { email: 'ana@example.com', first_name: 'Ana', properties: { subject_line1: 'Hi' } } } };
    const written = await call(`${klaviyoBaseUrl}/api/profile-import`, { method: 'POST', headers, body: profile });
    expect(written.status).toBe(201);
    expect(checkKlaviyoType(klaviyoOperation('createOrUpdateProfile').responseType!, written.json).problems).toEqual([]);
    const filter = new URLSearchParams({ filter: 'any(email,["ana@example.com"])', 'fields[profile]': 'email,first_name,last_name', 'page[size]': '100' });
    const found = await call(`${klaviyoBaseUrl}/api/profiles?${filter}`, { headers });
    expect(found.status).toBe(200);
    expect(checkKlaviyoType(klaviyoOperation('getProfiles').responseType!, found.json).problems).toEqual([]);
    const event = {
      data: {
        type: 'event',
        attributes: {
          properties: { flow: 'abandoned_cart' },
          metric: { data: { type: 'metric', attributes: { name: 'AI content ready' } } },
          profile: { data: { type: 'profile', attributes: { email: 'ana@example.com' } } },
          unique_id: randomUUID(),
          time: new Date().toISOString(),
        },
      },
    };
    expect(checkKlaviyoType(klaviyoOperation('createEvent').requestType!, event).problems).toEqual([]);
    expect((await call(`${klaviyoBaseUrl}${klaviyoOperation('createEvent').path}`, { method: 'POST', headers, body: event })).status).toBe(202);
    const refused = await call(`${klaviyoBaseUrl}/api/accounts`, { headers: { ...headers, authorization: 'Klaviyo-API-Key sbx_unknown' } });
    expect(refused.status).toBe(401);
    expect(checkKlaviyoType('GetAccounts4XXResponse', refused.json).problems).toEqual([]);
  });

  it('Shopify: the shop check, a product look-up, and a search of the catalogue by title', async () => {
    const { shopifyShopUrl } = listener.addresses();
    const url = `${shopifyShopUrl}/admin/api/${SHOPIFY_API_VERSION}/graphql.json`;
    const headers = { 'x-shopify-access-token': token, 'content-type': 'application/json' };
    for (const body of [
      { query: '{ shop { name myshopifyDomain } }' },
      { query: 'query ProductDetails($id: ID!) { product(id: $id) { title description onlineStoreUrl featuredImage { url } } }', variables: { id: sampleProductGid(sampleProducts[0]!) } },
      { query: productTitleSearchQuery, variables: { query: productTitleSearch('the Merino Beanies')! } },
    ]) {
      const checked = checkAdminRequest(SHOPIFY_API_VERSION, body);
      expect(checked.problems).toEqual([]);
      const answer = await call(url, { method: 'POST', headers, body });
      expect(answer.status).toBe(200);
      expect(checkAdminAnswer(SHOPIFY_API_VERSION, checked.document!, body.variables, (answer.json as { data: unknown }).data).problems).toEqual([]);
    }
    // Every searched word begins a word of the title, as Shopify's `title:word*` terms ask.
    const search = async (phrase: string) =>
      ((await call(url, { method: 'POST', headers, body: { query: productTitleSearchQuery, variables: { query: productTitleSearch(phrase)! } } })).json as { data: { products: { nodes: Array<{ title: string }> } } }).data.products.nodes;
    expect(await search('Alpine Beanie')).toEqual([{ title: 'Alpine Merino Beanie' }]);
    expect(await search('Summit Down Parka')).toEqual([]);
  });
});
