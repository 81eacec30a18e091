/**
 * Where an event came from (docs/product/product-rules.md §2): the sample shape, a
 * Shopify webhook, the Web Pixel snippet, or the test console.
 */
export const eventSources = ['generic', 'shopify', 'pixel', 'test'] as const;
export type EventSource = (typeof eventSources)[number];
