import { pageRoutes } from '../routes.ts';

/**
 * docs/product/specification.md §1: the four flows, one per shopper event, in the order
 * pages list them.
 */
export const flowTypes = ['browser_abandonment', 'abandoned_cart', 'abandoned_checkout', 'post_purchase'] as const;
export type FlowType = (typeof flowTypes)[number];

export interface FlowTypeDetails {
  title: string;
  tagline: string;
  /** The flow page (the route table of docs/product/specification.md §2). */
  path: string;
  /** The event type of this flow's sample events (docs/product/specification.md §1, §3). */
  eventType: string;
  /** Abandonment flows wait for the shopper to go quiet before content is generated. */
  hasWait: boolean;
}

export const flowTypeDetails: Record<FlowType, FlowTypeDetails> = {
  browser_abandonment: {
    title: 'Browser Abandonment',
    tagline: 'Re-engage visitors who browse but do not add to cart',
    path: pageRoutes.browserAbandonment,
    eventType: 'product_viewed',
    hasWait: true,
  },
  abandoned_cart: {
    title: 'Abandoned Cart',
    tagline: 'Recover potential sales from abandoned carts',
    path: pageRoutes.abandonedCart,
    eventType: 'cart_abandoned',
    hasWait: true,
  },
  abandoned_checkout: {
    title: 'Abandoned Checkout',
    tagline: 'Convert customers who started checkout but did not complete',
    path: pageRoutes.abandonedCheckout,
    eventType: 'checkout_abandoned',
    hasWait: true,
  },
  post_purchase: {
    title: 'Post Purchase',
    tagline: 'Increase customer lifetime value after purchase',
    path: pageRoutes.postPurchase,
    eventType: 'order_completed',
    hasWait: false,
  },
};

export function flowHasWait(flowType: FlowType): boolean {
  return flowTypeDetails[flowType].hasWait;
}

/**
 * The Klaviyo properties a flow's experiment writes on the shopper's profile: the group
 * and the experiment (docs/decisions/0043-experiments.md). Named by the flow so two flows'
 * experiments do not overwrite each other; an assistant may not write them.
 */
export function experimentPropertyNames(flowType: FlowType): { group: string; experiment: string } {
  return { group: `${flowType}_variant`, experiment: `${flowType}_experiment` };
}

/** Every flow's experiment properties, lower-cased: a profile carries all four flows' properties. */
export const experimentPropertyNamesOfAllFlows: ReadonlySet<string> = new Set(
  flowTypes.flatMap((flowType) => Object.values(experimentPropertyNames(flowType))),
);
