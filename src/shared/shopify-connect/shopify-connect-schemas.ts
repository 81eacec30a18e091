import { z } from 'zod';
import { flowTypeSchema, type FlowType } from '../flows/flow-types.ts';

/** The Shopify webhook topics Flowsmith registers (values of Shopify's WebhookSubscriptionTopic). */
export type ShopifyWebhookTopic = 'CHECKOUTS_CREATE' | 'CHECKOUTS_UPDATE' | 'CHECKOUTS_DELETE' | 'CARTS_CREATE' | 'CARTS_UPDATE' | 'ORDERS_CREATE';

/** The topic by which a purchase reaches the app: it writes Post Purchase's texts and ends every abandonment timer. */
export const orderTopic = 'ORDERS_CREATE' satisfies ShopifyWebhookTopic;

/**
 * The contract of /api/shopify: which Shopify webhook topics each flow type writes its
 * texts from. Where each is registered, and the order topic the abandonment flows need
 * too, is planned by `planStoreSubscriptions` (store-subscription-plan.ts).
 */
export const flowWebhookTopics: Record<FlowType, readonly ShopifyWebhookTopic[]> = {
  abandoned_checkout: ['CHECKOUTS_CREATE', 'CHECKOUTS_UPDATE', 'CHECKOUTS_DELETE'],
  post_purchase: [orderTopic],
  abandoned_cart: ['CARTS_CREATE', 'CARTS_UPDATE'],
  // Browsing is seen by the storefront pixel, not by an Admin webhook.
  browser_abandonment: [],
};

export const registeredSubscriptionSchema = z.object({
  id: z.string(),
  topic: z.string(),
  url: z.string(),
  flowType: flowTypeSchema,
  /** At the flow's current webhook URL under PUBLIC_URL; false when left at an earlier address. */
  atCurrentAddress: z.boolean(),
});
export type RegisteredSubscription = z.infer<typeof registeredSubscriptionSchema>;

export const subscriptionsResponseSchema = z.object({
  /** False when the owner has no Shopify credentials saved: nothing could be read. */
  configured: z.boolean(),
  /** False when PUBLIC_URL is an address Shopify cannot reach (localhost, a private network) or will not register (not https://). */
  publicAddress: z.boolean(),
  /** Why, in words, when publicAddress is false. */
  addressProblem: z.string().nullable(),
  subscriptions: z.array(registeredSubscriptionSchema),
});
export type SubscriptionsResponse = z.infer<typeof subscriptionsResponseSchema>;

export const connectResponseSchema = z.object({
  created: z.number().int(),
  updated: z.number().int(),
  deleted: z.number().int(),
  unchanged: z.number().int(),
  subscriptions: z.array(registeredSubscriptionSchema),
});
export type ConnectResponse = z.infer<typeof connectResponseSchema>;
