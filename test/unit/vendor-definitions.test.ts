import { describe, expect, it } from 'vitest';
import { checkKlaviyoType, klaviyoOperation, klaviyoOperationFor, klaviyoSdkRevision } from '../contracts/klaviyo-definition.ts';
import { checkOpenAiType } from '../contracts/openai-definition.ts';
import { checkAdminAnswer, checkAdminRequest, checkPixelType, documentedScopes, requiredScopes } from '../contracts/shopify-definition.ts';
import { KLAVIYO_REVISION } from '../../src/server/integrations/klaviyo/klaviyo-profiles.ts';
import { SHOPIFY_API_VERSION } from '../../src/server/integrations/shopify/shopify-admin.ts';

// The definitions themselves, read from the vendors' packages: if one of these fails,
// the stand-ins would be checking against nothing (or against the wrong version).
describe("Klaviyo's definition, from the klaviyo-api SDK", () => {
  it('is the revision Flowsmith sends', () => {
    expect(klaviyoSdkRevision).toBe(KLAVIYO_REVISION);
  });

  it("knows each operation's path, scopes and types", () => {
    const bulk = klaviyoOperation('bulkImportProfiles');
    expect(bulk).toMatchObject({ method: 'POST', path: '/api/profile-bulk-import-jobs', requestType: 'ProfileImportJobCreateQuery' });
    expect(bulk.scopes).toEqual(expect.arrayContaining(['lists:write', 'profiles:write']));
    expect(klaviyoOperationFor('GET', '/api/profile-bulk-import-jobs/01J/import-errors')?.name).toBe('getErrorsForBulkImportProfilesJob');
    expect(klaviyoOperationFor('GET', '/api/profile-bulk-import-jobs/01J')?.name).toBe('getBulkImportProfilesJob');
  });

  it('refuses a field the definition lacks and takes the wire names', () => {
    const wire = { data: { type: 'profile', attributes: { email: 'ana@example.com', first_name: 'Ana', properties: { subject_line1: 'Hi' } } } };
    expect(checkKlaviyoType('ProfileUpsertQuery', wire)).toEqual({ ok: true, problems: [] });
    const camel = { data: { type: 'profile', attributes: { email: 'ana@example.com', firstName: 'Ana' } } };
    expect(checkKlaviyoType('ProfileUpsertQuery', camel).problems).toEqual(["/data/attributes: 'firstName' is not a field the definition has"]);
    expect(checkKlaviyoType('ProfileUpsertQuery', { data: { type: 'profiles', attributes: {} } }).ok).toBe(false);
  });
});

describe("OpenAI's definition, from the openai SDK's types", () => {
  it('refuses a parameter the Responses API does not have', () => {
    const request = { model: 'gpt-5-mini', instructions: 'Write.', input: 'Shop data', max_output_tokens: 300, store: false };
    expect(checkOpenAiType('ResponseCreateParamsNonStreaming', request).ok).toBe(true);
    expect(checkOpenAiType('ResponseCreateParamsNonStreaming', { ...request, max_tokens: 300 }).problems).toEqual(["/: 'max_tokens' is not a field the definition has"]);
  });

  it('requires every field of an answer the SDK types say OpenAI sends, but not the SDK-only output_text', () => {
    const problems = checkOpenAiType('Response', { id: 'resp_1', object: 'response', status: 'completed', output: [] }).problems;
    expect(problems).toContain("/: 'created_at' is required");
    expect(problems.join()).not.toContain('output_text');
  });
});

describe("Shopify's definitions", () => {
  it('validates Admin GraphQL requests and answers against the pinned version', () => {
    const query = 'query ($id: ID!) { product(id: $id) { title onlineStoreUrl } }';
    const checked = checkAdminRequest(SHOPIFY_API_VERSION, { query, variables: { id: 'gid://shopify/Product/1' } });
    expect(checked.problems).toEqual([]);
    expect(checkAdminRequest(SHOPIFY_API_VERSION, { query: '{ shop { nam } }' }).problems[0]).toContain('Cannot query field "nam" on type "Shop"');
    expect(checkAdminRequest(SHOPIFY_API_VERSION, { query, variables: {} }).ok).toBe(false);
    expect(checkAdminAnswer(SHOPIFY_API_VERSION, checked.document!, { id: 'gid://shopify/Product/1' }, { product: { title: null, onlineStoreUrl: null } }).problems[0]).toContain(
      'Cannot return null for non-nullable field Product.title',
    );
  });

  it("reads the access scopes the schema documents, for fields and for enum values such as webhook topics", () => {
    expect(documentedScopes(SHOPIFY_API_VERSION, 'WebhookSubscriptionTopic', 'CHECKOUTS_UPDATE')).toEqual(['read_orders']);
    expect(documentedScopes(SHOPIFY_API_VERSION, 'WebhookSubscriptionTopic', 'ORDERS_CREATE')).toEqual(['read_orders', 'read_marketplace_orders']);
    expect(documentedScopes(SHOPIFY_API_VERSION, 'QueryRoot', 'product')).toEqual(['read_products']);
    expect(documentedScopes(SHOPIFY_API_VERSION, 'QueryRoot', 'products')).toEqual(['read_products']);
    expect(documentedScopes(SHOPIFY_API_VERSION, 'QueryRoot', 'shop')).toEqual([]);
    // "For example, `read_orders`" names a scope without requiring it.
    expect(documentedScopes(SHOPIFY_API_VERSION, 'AccessScope', 'handle')).toEqual([]);
    const mutation = 'mutation ($topic: WebhookSubscriptionTopic!) { webhookSubscriptionCreate(topic: $topic, webhookSubscription: { uri: "https://x.example" }) { userErrors { message } } }';
    const checked = checkAdminRequest(SHOPIFY_API_VERSION, { query: mutation, variables: { topic: 'CARTS_UPDATE' } });
    expect(requiredScopes(SHOPIFY_API_VERSION, checked.document!, { topic: 'CARTS_UPDATE' })).toEqual([{ what: 'CARTS_UPDATE', path: ['webhookSubscriptionCreate'], anyOf: ['read_orders'] }]);
  });

  it('checks pixel events against the Web Pixels types', () => {
    expect(checkPixelType('PixelEventsProductViewed', { name: 'product_viewed' }).ok).toBe(false);
  });
});
