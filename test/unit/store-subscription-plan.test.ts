import { describe, expect, it } from 'vitest';
import { flowTypes, type FlowType } from '../../src/shared/flows/flow-types.ts';
import { shopifyConnectMessages as m } from '../../src/shared/shopify-connect/shopify-connect-messages.ts';
import { matchRegistered, planStoreSubscriptions, type RegisteredForMatching } from '../../src/shared/shopify-connect/store-subscription-plan.ts';

/**
 * What Connect store registers, for every combination of active flows
 * (docs/decisions/0046-orders-end-every-abandonment.md): each flow's own topics at its
 * address, and exactly one ORDERS_CREATE whenever an order matters to an active flow:
 * at Post Purchase's address when it is on, else at Abandoned Checkout's, Abandoned
 * Cart's or Browser Abandonment's, in that order.
 */
const checkoutTopics = ['CHECKOUTS_CREATE', 'CHECKOUTS_UPDATE', 'CHECKOUTS_DELETE'];
const cartTopics = ['CARTS_CREATE', 'CARTS_UPDATE'];
const abandonment: FlowType[] = ['abandoned_checkout', 'abandoned_cart', 'browser_abandonment'];

/** Every subset of the four flows, as the flows list gives them (all four, each on or off). */
const combinations: Array<Set<FlowType>> = Array.from({ length: 2 ** flowTypes.length }, (_, bits) => new Set(flowTypes.filter((_, index) => bits & (1 << index))));
const flowsOf = (active: Set<FlowType>) => flowTypes.map((flowType) => ({ flowType, isActive: active.has(flowType) }));
const nameOf = (active: Set<FlowType>) => (active.size === 0 ? 'no flow' : [...active].join(' + '));

describe('planStoreSubscriptions', () => {
  it.each(combinations.map((active) => [nameOf(active), active] as const))('%s', (_name, active) => {
    const plan = planStoreSubscriptions(flowsOf(active));
    const at = (flowType: FlowType) => plan.filter((planned) => planned.flowType === flowType && planned.topic !== 'ORDERS_CREATE').map((planned) => planned.topic);

    // Each flow's own topics at its own address, only while it is on.
    expect(at('abandoned_checkout')).toEqual(active.has('abandoned_checkout') ? checkoutTopics : []);
    expect(at('abandoned_cart')).toEqual(active.has('abandoned_cart') ? cartTopics : []);
    expect(at('browser_abandonment')).toEqual([]);
    expect(at('post_purchase')).toEqual([]);
    expect(new Set(plan.map((planned) => planned.topic)).size, 'no topic twice').toBe(plan.length);
    expect(plan.every((planned) => active.has(planned.flowType)), 'only active flows receive').toBe(true);

    const orders = plan.filter((planned) => planned.topic === 'ORDERS_CREATE');
    const endedByPurchase = abandonment.filter((flowType) => active.has(flowType));
    if (!active.has('post_purchase') && endedByPurchase.length === 0) {
      expect(orders).toEqual([]);
      return;
    }
    expect(orders).toHaveLength(1);
    const [order] = orders;
    if (active.has('post_purchase')) {
      expect(order).toEqual({
        topic: 'ORDERS_CREATE',
        flowType: 'post_purchase',
        neededBy: ['post_purchase', ...endedByPurchase],
        reason: endedByPurchase.length > 0 ? m.reasons.ordersForPostPurchaseAndTimers : m.reasons.ordersForPostPurchase,
      });
    } else {
      const receiver = endedByPurchase[0]!;
      expect(order).toEqual({ topic: 'ORDERS_CREATE', flowType: receiver, neededBy: endedByPurchase, reason: m.reasons.ordersForTimers(receiver === 'abandoned_checkout' ? 'Abandoned Checkout' : receiver === 'abandoned_cart' ? 'Abandoned Cart' : 'Browser Abandonment') });
    }
  });

  it('registers the order topic at the checkout flow when only it is on, saying why in the owner\'s words', () => {
    expect(planStoreSubscriptions([{ flowType: 'abandoned_checkout', isActive: true }, { flowType: 'post_purchase', isActive: false }])).toEqual([
      { topic: 'CHECKOUTS_CREATE', flowType: 'abandoned_checkout', neededBy: ['abandoned_checkout'], reason: m.reasons.CHECKOUTS_CREATE },
      { topic: 'CHECKOUTS_UPDATE', flowType: 'abandoned_checkout', neededBy: ['abandoned_checkout'], reason: m.reasons.CHECKOUTS_UPDATE },
      { topic: 'CHECKOUTS_DELETE', flowType: 'abandoned_checkout', neededBy: ['abandoned_checkout'], reason: m.reasons.CHECKOUTS_DELETE },
      {
        topic: 'ORDERS_CREATE',
        flowType: 'abandoned_checkout',
        neededBy: ['abandoned_checkout'],
        reason:
          "Orders end the shoppers' abandonment timers in every flow, so a shopper who bought is not sent a reminder. Post Purchase is off, so they go to Abandoned Checkout's address and no text is written for them.",
      },
    ]);
  });

  it('registers only the order topic for browsing alone: product views come from the pixel', () => {
    expect(planStoreSubscriptions([{ flowType: 'browser_abandonment', isActive: true }]).map(({ topic, flowType }) => `${topic} ${flowType}`)).toEqual(['ORDERS_CREATE browser_abandonment']);
  });

  it('never registers ORDERS_PAID: orders/create is the one order topic', () => {
    for (const active of combinations) expect(planStoreSubscriptions(flowsOf(active)).some((planned) => (planned.topic as string) === 'ORDERS_PAID')).toBe(false);
  });
});

describe('matchRegistered', () => {
  const plan = planStoreSubscriptions(flowsOf(new Set<FlowType>(['abandoned_checkout', 'post_purchase'])));
  const registered = (topic: string, flowType: FlowType, atCurrentAddress = true): RegisteredForMatching & { id: string } => ({
    id: `${topic} ${flowType} ${atCurrentAddress ? 'now' : 'old'}`,
    topic,
    flowType,
    atCurrentAddress,
  });
  const states = (result: ReturnType<typeof matchRegistered<ReturnType<typeof registered>>>) =>
    result.rows.map((row) => `${row.planned.topic}: ${row.state}${row.subscription ? ` (${row.subscription.id})` : ''}`);

  it('finds each planned topic at its address, and calls the rest missing', () => {
    const result = matchRegistered(plan, [registered('CHECKOUTS_CREATE', 'abandoned_checkout'), registered('ORDERS_CREATE', 'post_purchase')]);
    expect(states(result)).toEqual([
      'CHECKOUTS_CREATE: registered (CHECKOUTS_CREATE abandoned_checkout now)',
      'CHECKOUTS_UPDATE: missing',
      'CHECKOUTS_DELETE: missing',
      'ORDERS_CREATE: registered (ORDERS_CREATE post_purchase now)',
    ]);
    expect(result.stale).toEqual([]);
  });

  it("moves the order topic left at the checkout flow once Post Purchase is on, and deletes a duplicate, an old address's twin and an unused topic", () => {
    const result = matchRegistered(plan, [
      registered('ORDERS_CREATE', 'abandoned_checkout'),
      registered('CHECKOUTS_UPDATE', 'abandoned_checkout', false),
      registered('CHECKOUTS_UPDATE', 'abandoned_checkout'),
      registered('ORDERS_PAID', 'post_purchase'),
      registered('CARTS_CREATE', 'abandoned_cart'),
    ]);
    expect(states(result)).toEqual([
      'CHECKOUTS_CREATE: missing',
      'CHECKOUTS_UPDATE: registered (CHECKOUTS_UPDATE abandoned_checkout now)',
      'CHECKOUTS_DELETE: missing',
      'ORDERS_CREATE: elsewhere (ORDERS_CREATE abandoned_checkout now)',
    ]);
    expect(result.stale.map((subscription) => subscription.id)).toEqual(['CHECKOUTS_UPDATE abandoned_checkout old', 'ORDERS_PAID post_purchase now', 'CARTS_CREATE abandoned_cart now']);
  });

  it("prefers the receiving flow's old address to another flow's when moving, and deletes the other", () => {
    const result = matchRegistered(plan, [registered('ORDERS_CREATE', 'abandoned_checkout'), registered('ORDERS_CREATE', 'post_purchase', false)]);
    expect(states(result).at(-1)).toBe('ORDERS_CREATE: elsewhere (ORDERS_CREATE post_purchase old)');
    expect(result.stale.map((subscription) => subscription.id)).toEqual(['ORDERS_CREATE abandoned_checkout now']);
  });
});
