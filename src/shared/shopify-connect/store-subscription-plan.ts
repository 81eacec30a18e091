import { flowTypeDetails, type FlowType } from '../flows/flow-types.ts';
import { shopifyConnectMessages as m } from './shopify-connect-messages.ts';
import { flowWebhookTopics, orderTopic, type ShopifyWebhookTopic } from './shopify-webhook-topics.ts';

/**
 * What "Connect store" registers in the owner's shop, decided from the flows alone
 * (docs/decisions/0046-orders-end-every-abandonment.md). The server registers exactly
 * this plan and the flow pages show it, so what the page says is what Connect does.
 */

/**
 * The flows whose abandonment timers a purchase ends, in the order one of them is chosen
 * to receive the orders when Post Purchase is off (its checkouts are the likeliest to
 * become orders).
 */
export const flowsEndedByPurchase = ['abandoned_checkout', 'abandoned_cart', 'browser_abandonment'] as const satisfies readonly FlowType[];

/** One subscription the shop should have. */
export interface PlannedSubscription {
  topic: ShopifyWebhookTopic;
  /** The flow whose webhook address receives the topic. */
  flowType: FlowType;
  /** The active flows that need it: the receiving flow's own, and for orders every abandonment flow. */
  neededBy: FlowType[];
  /** Why it is registered, in the owner's words. */
  reason: string;
}

/**
 * Every active flow's topics at its own address, and one order subscription (ORDERS_CREATE
 * only: orders/create carries every key the timers and attribution read, and orders/paid
 * of the same order would only be followed up once) whenever a flow a purchase ends is on,
 * or Post Purchase is: at Post Purchase's address when it is active (it writes its texts
 * from them, and each of its orders ends every timer of the owner), else at one active
 * abandonment flow's, where an order is only a signal and no text is written for it.
 * Never two order subscriptions: Shopify would deliver each order twice.
 */
export function planStoreSubscriptions(flows: ReadonlyArray<{ flowType: FlowType; isActive: boolean }>): PlannedSubscription[] {
  const active = new Set(flows.filter((flow) => flow.isActive).map((flow) => flow.flowType));
  const endedByPurchase = flowsEndedByPurchase.filter((flowType) => active.has(flowType));
  const plan: PlannedSubscription[] = [];
  for (const flowType of endedByPurchase) {
    for (const topic of flowWebhookTopics[flowType]) {
      if (topic === orderTopic) continue;
      plan.push({ topic, flowType, neededBy: [flowType], reason: m.reasons[topic] });
    }
  }
  if (active.has('post_purchase')) {
    plan.push({
      topic: orderTopic,
      flowType: 'post_purchase',
      neededBy: ['post_purchase', ...endedByPurchase],
      reason: endedByPurchase.length > 0 ? m.reasons.ordersForPostPurchaseAndTimers : m.reasons.ordersForPostPurchase,
    });
  } else if (endedByPurchase[0]) {
    const receiver = endedByPurchase[0];
    plan.push({ topic: orderTopic, flowType: receiver, neededBy: [...endedByPurchase], reason: m.reasons.ordersForTimers(flowTypeDetails[receiver].title) });
  }
  return plan;
}

/** What the shop has for one planned subscription. */
export type PlannedState = 'registered' | 'elsewhere' | 'missing';

/** A subscription the shop has for one of the owner's flows, as much as matching needs. */
export interface RegisteredForMatching {
  topic: string;
  flowType: FlowType;
  atCurrentAddress: boolean;
}

/**
 * Pairs the plan with what the shop has registered for the owner's flows: each planned
 * topic claims the subscription at the right address if there is one (`registered`),
 * else one of the same topic elsewhere, at this flow's old address first, then at
 * another flow's (`elsewhere`: Connect moves it), else none (`missing`: Connect creates
 * it). What no planned topic claims (an inactive flow's, a duplicate, a topic no longer
 * used) is `stale`: Connect deletes it. The server acts on this; the page shows it.
 */
export function matchRegistered<R extends RegisteredForMatching>(
  plan: readonly PlannedSubscription[],
  registered: readonly R[],
): { rows: Array<{ planned: PlannedSubscription; state: PlannedState; subscription: R | null }>; stale: R[] } {
  const claimed = new Set<R>();
  const rows = plan.map((planned) => {
    const candidates = registered.filter((subscription) => subscription.topic === planned.topic && !claimed.has(subscription));
    const sameFlow = candidates.filter((subscription) => subscription.flowType === planned.flowType);
    const exact = sameFlow.find((subscription) => subscription.atCurrentAddress);
    const subscription = exact ?? sameFlow[0] ?? candidates[0] ?? null;
    if (subscription) claimed.add(subscription);
    const state: PlannedState = exact ? 'registered' : subscription ? 'elsewhere' : 'missing';
    return { planned, state, subscription };
  });
  return { rows, stale: registered.filter((subscription) => !claimed.has(subscription)) };
}
