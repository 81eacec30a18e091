import { z } from 'zod';
import { flowTypeSchema, type FlowType } from '../flows/flow-types.ts';

/**
 * The contract of /api/shopify: which Shopify webhook topics each flow type listens to,
 * and what the store has registered for the owner's flows.
 */
export const flowWebhookTopics: Record<FlowType, readonly string[]> = {
  abandoned_checkout: ['CHECKOUTS_CREATE', 'CHECKOUTS_UPDATE', 'CHECKOUTS_DELETE'],
  post_purchase: ['ORDERS_CREATE'],
  abandoned_cart: ['CARTS_CREATE', 'CARTS_UPDATE'],
  // Browsing is seen by the storefront pixel, not by an Admin webhook.
  browser_abandonment: [],
};

export const registeredSubscriptionSchema = z.object({
  id: z.string(),
  topic: z.string(),
  url: z.string(),
  flowType: flowTypeSchema,
});
export type RegisteredSubscription = z.infer<typeof registeredSubscriptionSchema>;

export const subscriptionsResponseSchema = z.object({
  /** False when the owner has no Shopify credentials saved: nothing could be read. */
  configured: z.boolean(),
  /** False when PUBLIC_URL is an address Shopify cannot reach (localhost, a private network). */
  publicAddress: z.boolean(),
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
