import { z } from 'zod';
import { flowTypeSchema } from '../flows/flow-type-schemas.ts';

/*
 * The contract of /api/shopify: the webhook subscriptions found on the store, and what
 * connecting them changed. Which topics each flow needs is in shopify-webhook-topics.ts.
 */

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
