import { describe, expect, it } from 'vitest';
import { checkAdminRequest, documentedScopes, requiredScopes } from '../contracts/shopify-definition.ts';
import { SHOPIFY_API_VERSION } from '../../src/server/integrations/shopify/shopify-admin.ts';
import { productQuery } from '../../src/server/integrations/shopify/shopify-products.ts';
import { createMutation, deleteMutation, listQuery, updateMutation } from '../../src/server/shopify-connect/webhook-subscriptions.ts';
import { flowWebhookTopics } from '../../src/shared/shopify-connect/shopify-webhook-topics.ts';
import { shopifyScopes, webhookTopicScopes } from '../../src/shared/shopify-connect/shopify-scopes.ts';
import { credentialMessages } from '../../src/shared/credentials/credential-messages.ts';

/**
 * What owners are asked to grant is derived from Shopify's own schema for the pinned
 * version: every query Flowsmith sends and every webhook topic its flows register, with
 * the scopes the schema documents for them. Asking for less fails at the first webhook or
 * product look-up; asking for more asks owners for access Flowsmith never uses.
 */
const topics = [...new Set(Object.values(flowWebhookTopics).flat())];
const requests: Array<{ query: string; variables: Record<string, unknown> }> = [
  { query: '{ shop { name myshopifyDomain } }', variables: {} },
  { query: '{ currentAppInstallation { accessScopes { handle } } }', variables: {} },
  { query: productQuery, variables: { id: 'gid://shopify/Product/1' } },
  { query: listQuery, variables: { after: null } },
  ...topics.map((topic) => ({ query: createMutation, variables: { topic, webhookSubscription: { uri: 'https://flows.example/api/webhooks/x/y', format: 'JSON' } } })),
  { query: updateMutation, variables: { id: 'gid://shopify/WebhookSubscription/1', webhookSubscription: { uri: 'https://flows.example/api/webhooks/x/y' } } },
  { query: deleteMutation, variables: { id: 'gid://shopify/WebhookSubscription/1' } },
];

describe("the Admin API access scopes Flowsmith asks for, from Shopify's schema", () => {
  const requirements = requests.flatMap(({ query, variables }) => {
    const checked = checkAdminRequest(SHOPIFY_API_VERSION, { query, variables });
    expect(checked.problems, query).toEqual([]);
    return requiredScopes(SHOPIFY_API_VERSION, checked.document!, variables);
  });

  it("cover every query and webhook topic Flowsmith uses, and nothing more", () => {
    for (const requirement of requirements) expect(requirement.anyOf.filter((scope) => (shopifyScopes as string[]).includes(scope)), requirement.what).not.toEqual([]);
    const used = new Set(requirements.flatMap((requirement) => requirement.anyOf.filter((scope) => (shopifyScopes as string[]).includes(scope))));
    expect([...used].sort()).toEqual([...shopifyScopes].sort());
  });

  it("name each webhook topic's documented scope", () => {
    for (const topic of topics) expect(documentedScopes(SHOPIFY_API_VERSION, 'WebhookSubscriptionTopic', topic), topic).toContain(webhookTopicScopes[topic]);
  });

  it('are the ones the setup text asks owners for, each by name', () => {
    const asked = [...credentialMessages.shopifyScopesHint.matchAll(/\b(?:read|write)_\w+/g)].map((match) => match[0]);
    expect(asked.sort()).toEqual([...shopifyScopes].sort());
  });
});
