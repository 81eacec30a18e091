import type { FlowType } from '../flows/flow-types.ts';

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
