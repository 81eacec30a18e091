import { z } from 'zod';
import { ServiceError } from '../integrations/service-error.ts';
import { shopifyAdminGraphql, type ShopifyAdminConnection } from '../integrations/shopify/shopify-admin.ts';

/** One webhook subscription of the shop, as the Admin API lists it. */
export interface ShopSubscription {
  id: string;
  topic: string;
  uri: string;
}

const subscriptionNode = z.object({ id: z.string(), topic: z.string(), uri: z.string() });
const userErrors = z.array(z.object({ message: z.string() }));

export const listQuery = `query FlowsmithWebhooks($after: String) {
  webhookSubscriptions(first: 250, after: $after) { nodes { id topic uri } pageInfo { hasNextPage endCursor } }
}`;
const listSchema = z.object({
  webhookSubscriptions: z.object({
    nodes: z.array(subscriptionNode),
    pageInfo: z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() }),
  }),
});

/** Every webhook subscription of the shop (all apps' of this token), page by page. */
export async function listShopSubscriptions(connection: ShopifyAdminConnection, signal: AbortSignal): Promise<ShopSubscription[]> {
  const all: ShopSubscription[] = [];
  let after: string | null = null;
  // A shop has at most a few hundred subscriptions; the bound only stops a looping cursor.
  for (let page = 0; page < 20; page += 1) {
    const data: z.infer<typeof listSchema> = await shopifyAdminGraphql(connection, { query: listQuery, variables: { after } }, listSchema, signal);
    all.push(...data.webhookSubscriptions.nodes);
    if (!data.webhookSubscriptions.pageInfo.hasNextPage || !data.webhookSubscriptions.pageInfo.endCursor) break;
    after = data.webhookSubscriptions.pageInfo.endCursor;
  }
  return all;
}

/** A mutation's userErrors are Shopify refusing what we asked: a bad request, not an outage. */
function refused(errors: Array<{ message: string }>): ServiceError {
  return new ServiceError('shopify', 'bad_request', errors.map((error) => error.message).join('; ').slice(0, 300));
}

export const createMutation = `mutation FlowsmithWebhookCreate($topic: WebhookSubscriptionTopic!, $webhookSubscription: WebhookSubscriptionInput!) {
  webhookSubscriptionCreate(topic: $topic, webhookSubscription: $webhookSubscription) { webhookSubscription { id topic uri } userErrors { field message } }
}`;
const createSchema = z.object({ webhookSubscriptionCreate: z.object({ webhookSubscription: subscriptionNode.nullable(), userErrors }) });

export async function createShopSubscription(connection: ShopifyAdminConnection, topic: string, uri: string, signal: AbortSignal): Promise<ShopSubscription> {
  const data = await shopifyAdminGraphql(connection, { query: createMutation, variables: { topic, webhookSubscription: { uri, format: 'JSON' } } }, createSchema, signal);
  const { webhookSubscription, userErrors: errors } = data.webhookSubscriptionCreate;
  if (!webhookSubscription || errors.length > 0) throw refused(errors);
  return webhookSubscription;
}

export const updateMutation = `mutation FlowsmithWebhookUpdate($id: ID!, $webhookSubscription: WebhookSubscriptionInput!) {
  webhookSubscriptionUpdate(id: $id, webhookSubscription: $webhookSubscription) { webhookSubscription { id topic uri } userErrors { field message } }
}`;
const updateSchema = z.object({ webhookSubscriptionUpdate: z.object({ webhookSubscription: subscriptionNode.nullable(), userErrors }) });

export async function updateShopSubscription(connection: ShopifyAdminConnection, id: string, uri: string, signal: AbortSignal): Promise<ShopSubscription> {
  const data = await shopifyAdminGraphql(connection, { query: updateMutation, variables: { id, webhookSubscription: { uri } } }, updateSchema, signal);
  const { webhookSubscription, userErrors: errors } = data.webhookSubscriptionUpdate;
  if (!webhookSubscription || errors.length > 0) throw refused(errors);
  return webhookSubscription;
}

export const deleteMutation = `mutation FlowsmithWebhookDelete($id: ID!) {
  webhookSubscriptionDelete(id: $id) { deletedWebhookSubscriptionId userErrors { field message } }
}`;
const deleteSchema = z.object({ webhookSubscriptionDelete: z.object({ deletedWebhookSubscriptionId: z.string().nullable(), userErrors }) });

export async function deleteShopSubscription(connection: ShopifyAdminConnection, id: string, signal: AbortSignal): Promise<void> {
  const data = await shopifyAdminGraphql(connection, { query: deleteMutation, variables: { id } }, deleteSchema, signal);
  const errors = data.webhookSubscriptionDelete.userErrors;
  // Already gone (deleted in the Shopify admin meanwhile) is what we wanted.
  if (errors.length > 0 && !errors.every((error) => /does not exist/i.test(error.message))) throw refused(errors);
}
