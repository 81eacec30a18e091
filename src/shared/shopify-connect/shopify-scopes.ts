import type { ShopifyWebhookTopic } from './shopify-webhook-topics.ts';

/**
 * The Admin API access scopes Flowsmith's Shopify app needs, each with what it is for.
 * Exactly these: the webhook topics the flows register (flowWebhookTopics) need
 * `read_orders` (Shopify's schema documents it on each WebhookSubscriptionTopic value),
 * and the product look-up (`product(id:)`) needs `read_products`. The shop check, the
 * webhook subscription calls and the scope probe need none. A test derives the set from
 * Shopify's published schema for the pinned version, so this list cannot drift from it.
 */
export const shopifyScopeUses = {
  read_orders: 'checkout, order and cart webhooks',
  read_products: 'product details for the texts',
} as const;
export type ShopifyScope = keyof typeof shopifyScopeUses;
export const shopifyScopes = Object.keys(shopifyScopeUses) as ShopifyScope[];

/** "read_orders (checkout, order and cart webhooks) and read_products (product details for the texts)". */
export function describeShopifyScopes(scopes: readonly ShopifyScope[]): string {
  const parts = scopes.map((scope) => `${scope} (${shopifyScopeUses[scope]})`);
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/** The scope each webhook topic the flows register needs (WebhookSubscriptionTopic's documentation). */
export const webhookTopicScopes: Record<ShopifyWebhookTopic, ShopifyScope> = {
  CHECKOUTS_CREATE: 'read_orders',
  CHECKOUTS_UPDATE: 'read_orders',
  CHECKOUTS_DELETE: 'read_orders',
  ORDERS_CREATE: 'read_orders',
  CARTS_CREATE: 'read_orders',
  CARTS_UPDATE: 'read_orders',
};
