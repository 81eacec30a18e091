import { describe, expect, it } from 'vitest';
import { reasonTimerEnded, signalOnlyReason, timerKindOf, type TimerFacts } from '../../src/server/engine/timers/timer-rules.ts';
import { eventOutcomeMessages as m } from '../../src/shared/events/event-messages.ts';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 10, minute));

let counter = 0;
function facts(overrides: Partial<TimerFacts>): TimerFacts {
  counter += 1;
  return {
    id: `e${String(counter).padStart(4, '0')}`,
    flowId: 'checkout-flow',
    flowType: 'abandoned_checkout',
    source: 'shopify',
    topic: 'checkouts/update',
    checkoutToken: 'chk1',
    cartToken: 'cart1',
    objectId: '100',
    shopperEmail: 'kim@example.com',
    actedAt: at(0),
    receivedAt: at(0),
    ...overrides,
  };
}

describe('which events are timers', () => {
  it('knows the three kinds, and only at the flow that waits for them', () => {
    expect(timerKindOf({ source: 'shopify', topic: 'checkouts/update', flowType: 'abandoned_checkout' })).toBe('checkout');
    expect(timerKindOf({ source: 'shopify', topic: 'carts/create', flowType: 'abandoned_cart' })).toBe('cart');
    expect(timerKindOf({ source: 'pixel', topic: 'product_viewed', flowType: 'browser_abandonment' })).toBe('browse');
    expect(timerKindOf({ source: 'shopify', topic: 'checkouts/update', flowType: 'post_purchase' })).toBeNull();
    expect(timerKindOf({ source: 'shopify', topic: 'checkouts/delete', flowType: 'abandoned_checkout' })).toBeNull();
    expect(timerKindOf({ source: 'generic', topic: 'checkout_abandoned', flowType: 'abandoned_checkout' })).toBeNull();
  });

  it('marks the Shopify and pixel events a flow writes no content for, never generic ones', () => {
    expect(signalOnlyReason({ source: 'pixel', topic: 'product_added_to_cart', flowType: 'browser_abandonment' })).toBe(
      m.signalOnly('product_added_to_cart', 'browser_abandonment'),
    );
    expect(signalOnlyReason({ source: 'shopify', topic: 'orders/create', flowType: 'abandoned_checkout' })).toBe(m.signalOnly('orders/create', 'abandoned_checkout'));
    expect(signalOnlyReason({ source: 'shopify', topic: 'checkouts/delete', flowType: 'abandoned_checkout' })).toBe(m.checkoutDeleted);
    expect(signalOnlyReason({ source: 'shopify', topic: 'orders/paid', flowType: 'post_purchase' })).toBeNull();
    expect(signalOnlyReason({ source: 'generic', topic: 'anything', flowType: 'abandoned_cart' })).toBeNull();
  });
});

describe('what ends a timer', () => {
  it('leaves a timer running when nothing related happened', () => {
    const timer = facts({});
    expect(reasonTimerEnded('checkout', timer, [])).toBeNull();
    const otherShopperOrder = facts({ flowId: 'orders', flowType: 'post_purchase', topic: 'orders/create', checkoutToken: 'x', cartToken: 'y', objectId: '5', shopperEmail: 'other@example.com', actedAt: at(5) });
    expect(reasonTimerEnded('checkout', timer, [otherShopperOrder])).toBeNull();
  });

  it('ends it on an order of the same checkout even when the order is older, but on an email match only when later', () => {
    const timer = facts({ actedAt: at(10) });
    const sameCheckout = facts({ flowType: 'post_purchase', topic: 'orders/paid', cartToken: null, objectId: '9', shopperEmail: null, actedAt: at(1) });
    expect(reasonTimerEnded('checkout', timer, [sameCheckout])).toBe(m.orderPlaced);
    const earlierOrderBySameShopper = facts({ flowType: 'post_purchase', topic: 'orders/create', checkoutToken: 'old', cartToken: 'old', objectId: '8', actedAt: at(5) });
    expect(reasonTimerEnded('checkout', timer, [earlierOrderBySameShopper])).toBeNull();
    expect(reasonTimerEnded('checkout', timer, [{ ...earlierOrderBySameShopper, actedAt: at(11) }])).toBe(m.orderPlaced);
  });

  it('judges newer by when the shopper acted, not by when the update arrived', () => {
    const timer = facts({ actedAt: at(10), receivedAt: at(20) });
    const olderArrivedEarlier = facts({ actedAt: at(5), receivedAt: at(15) });
    expect(reasonTimerEnded('checkout', timer, [olderArrivedEarlier])).toBeNull();
    const newerArrivedEarlier = facts({ actedAt: at(12), receivedAt: at(15) });
    expect(reasonTimerEnded('checkout', timer, [newerArrivedEarlier])).toBe(m.arrivedOutOfOrder);
    const newerArrivedLater = facts({ actedAt: at(12), receivedAt: at(25) });
    expect(reasonTimerEnded('checkout', timer, [newerArrivedLater])).toBe(m.superseded);
  });

  it('does not let an update of the same checkout at another flow supersede it', () => {
    const timer = facts({ actedAt: at(10) });
    const atAnotherFlow = facts({ flowId: 'cart-flow', flowType: 'abandoned_cart', actedAt: at(12), receivedAt: at(12) });
    expect(reasonTimerEnded('checkout', timer, [atAnotherFlow])).toBeNull();
  });

  it('ends a checkout Shopify deleted, matched by token or by id', () => {
    const timer = facts({});
    expect(reasonTimerEnded('checkout', timer, [facts({ topic: 'checkouts/delete', checkoutToken: null, cartToken: null, shopperEmail: null })])).toBe(m.checkoutDeleted);
  });

  it('ends a cart on a checkout of that cart, and a browse on the shopper\'s later add-to-cart or checkout', () => {
    const cart = facts({ flowId: 'cart-flow', flowType: 'abandoned_cart', topic: 'carts/update', checkoutToken: null, objectId: 'c', shopperEmail: null, actedAt: at(10) });
    const checkoutOfCart = facts({ checkoutToken: 'k2', objectId: '7', shopperEmail: 'someone@example.com', actedAt: at(1) });
    expect(reasonTimerEnded('cart', cart, [checkoutOfCart])).toBe(m.checkoutStarted);

    const view = facts({ flowId: 'browse-flow', flowType: 'browser_abandonment', source: 'pixel', topic: 'product_viewed', checkoutToken: null, cartToken: null, objectId: null, actedAt: at(10) });
    const addToCart = { ...view, id: 'later-add', topic: 'product_added_to_cart', actedAt: at(11) };
    expect(reasonTimerEnded('browse', view, [addToCart])).toBe(m.addedToCart);
    expect(reasonTimerEnded('browse', view, [{ ...addToCart, actedAt: at(9) }])).toBeNull();
    const laterView = { ...view, id: 'later-view', actedAt: at(12), receivedAt: at(12) };
    expect(reasonTimerEnded('browse', view, [laterView])).toBe(m.viewedAnother);
  });

  it('counts a generic sender\'s post-purchase event as an order, and nothing else it sends', () => {
    const view = facts({ flowId: 'browse-flow', flowType: 'browser_abandonment', source: 'pixel', topic: 'product_viewed', checkoutToken: null, cartToken: null, objectId: null, actedAt: at(10) });
    const genericOrder = facts({ flowType: 'post_purchase', source: 'generic', topic: 'order_completed', checkoutToken: null, cartToken: null, objectId: null, actedAt: at(11) });
    expect(reasonTimerEnded('browse', view, [genericOrder])).toBe(m.orderPlaced);
    const genericCart = { ...genericOrder, flowType: 'abandoned_cart' as const, topic: 'cart_abandoned' };
    expect(reasonTimerEnded('browse', view, [genericCart])).toBeNull();
  });
});
