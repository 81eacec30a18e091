import type { EventSource } from '../../../shared/events/event-sources.ts';
import type { FlowType } from '../../../shared/flows/flow-types.ts';
import { flowHasWait } from '../../../shared/flows/flow-types.ts';
import { eventOutcomeMessages as m } from '../../../shared/events/event-messages.ts';

/** One stored event as the timers see it. */
export interface TimerFacts {
  id: string;
  flowId: string;
  flowType: FlowType;
  source: EventSource;
  topic: string | null;
  checkoutToken: string | null;
  cartToken: string | null;
  objectId: string | null;
  shopperEmail: string | null;
  /** When the shopper acted: occurred_at, else received_at. */
  actedAt: Date;
  receivedAt: Date;
}

/**
 * Abandonment timers per shopper (issue 7, docs/decisions/0011-shopper-timers.md).
 *
 * A timer is an event in status `waiting` until `process_after`. Three kinds exist:
 * a Shopify checkout (abandoned checkout), a Shopify cart (abandoned cart) and a product
 * view from the browsing pixel (browser abandonment). What ends a timer early is always
 * another stored event of the same owner: a newer update of the same checkout or cart, a
 * later view, an add-to-cart, a checkout, an order, a deleted checkout. Those are found
 * by keys read at intake (tokens, ids, email, the time the shopper acted), so an event
 * still in the queue already counts, and the decision is made by one pure function
 * (`reasonTimerEnded`) both when an event arrives (to end the timers it ends at once, so
 * the log shows it) and when a timer fires (in case the ending event came in between).
 */
export type TimerKind = 'checkout' | 'cart' | 'browse';

/** What an event says the shopper did, for the purpose of ending timers. */
type ShopperActivity = 'order' | 'checkout' | 'checkout_deleted' | 'cart' | 'view';

export function timerKindOf(event: { source: EventSource; topic: string | null; flowType: FlowType }): TimerKind | null {
  if (!flowHasWait(event.flowType)) return null;
  if (event.source === 'shopify') {
    if (event.flowType === 'abandoned_checkout' && (event.topic === 'checkouts/create' || event.topic === 'checkouts/update')) return 'checkout';
    if (event.flowType === 'abandoned_cart' && (event.topic === 'carts/create' || event.topic === 'carts/update')) return 'cart';
    return null;
  }
  if (event.source === 'pixel' && event.flowType === 'browser_abandonment' && event.topic === 'product_viewed') return 'browse';
  return null;
}

export function activityOf(event: { source: EventSource; topic: string | null; flowType: FlowType }): ShopperActivity | null {
  const topic = event.topic ?? '';
  if (event.source === 'shopify') {
    if (topic.startsWith('orders/')) return 'order';
    if (topic === 'checkouts/delete') return 'checkout_deleted';
    if (topic.startsWith('checkouts/')) return 'checkout';
    if (topic.startsWith('carts/')) return 'cart';
    return null;
  }
  if (event.source === 'pixel') {
    return topic === 'product_viewed' ? 'view' : topic === 'product_added_to_cart' ? 'cart' : topic === 'checkout_started' ? 'checkout' : null;
  }
  // A generic sender's post-purchase event is an order; its other events are already
  // "abandoned" notices, not something the shopper did.
  if (event.source === 'generic' && event.flowType === 'post_purchase') return 'order';
  return null;
}

/**
 * Shopify and pixel events that a flow receives but writes no content for: an order sent
 * to the abandoned-checkout flow, an add-to-cart from the pixel, a deleted checkout. They
 * still end timers; the reason says so. Generic and test events are always content.
 */
export function signalOnlyReason(event: { source: EventSource; topic: string | null; flowType: FlowType }): string | null {
  if (event.source !== 'shopify' && event.source !== 'pixel') return null;
  const topic = event.topic ?? '';
  const writesContent =
    event.source === 'pixel'
      ? event.flowType === 'browser_abandonment' && topic === 'product_viewed'
      : (event.flowType === 'abandoned_checkout' && (topic === 'checkouts/create' || topic === 'checkouts/update')) ||
        (event.flowType === 'abandoned_cart' && (topic === 'carts/create' || topic === 'carts/update')) ||
        (event.flowType === 'post_purchase' && (topic === 'orders/create' || topic === 'orders/paid'));
  if (writesContent) return null;
  if (topic === 'checkouts/delete') return m.checkoutDeleted;
  return m.signalOnly(topic, event.flowType);
}

function isNewer(other: TimerFacts, timer: TimerFacts): boolean {
  const a = other.actedAt.getTime();
  const b = timer.actedAt.getTime();
  if (a !== b) return a > b;
  const received = other.receivedAt.getTime() - timer.receivedAt.getTime();
  return received !== 0 ? received > 0 : other.id > timer.id;
}

/** At or after the timer's moment: what the same shopper did next. */
function notBefore(other: TimerFacts, timer: TimerFacts): boolean {
  return other.actedAt.getTime() >= timer.actedAt.getTime();
}

/**
 * Why `timer` must not fire, given the owner's other events that share a key with it;
 * null when nothing ends it. Out-of-order deliveries are judged by when the shopper acted,
 * so an older update arriving late neither replaces a newer one nor comes back to life
 * after an order or a deletion.
 */
export function reasonTimerEnded(kind: TimerKind, timer: TimerFacts, others: TimerFacts[]): string | null {
  const sameShopperLater = (other: TimerFacts) => timer.shopperEmail !== null && other.shopperEmail === timer.shopperEmail && notBefore(other, timer);
  const sameCheckout = (other: TimerFacts) =>
    (timer.checkoutToken !== null && other.checkoutToken === timer.checkoutToken) || (timer.objectId !== null && other.objectId === timer.objectId);
  const sameCart = (other: TimerFacts) => timer.cartToken !== null && other.cartToken === timer.cartToken;
  const byActivity = (activity: ShopperActivity) => others.filter((other) => other.id !== timer.id && activityOf(other) === activity);

  if (kind === 'checkout' && byActivity('checkout_deleted').some(sameCheckout)) return m.checkoutDeleted;
  const orders = byActivity('order');
  if (orders.some((order) => (timer.checkoutToken !== null && order.checkoutToken === timer.checkoutToken) || sameCart(order) || sameShopperLater(order))) {
    return m.orderPlaced;
  }
  if (kind === 'cart' || kind === 'browse') {
    const checkouts = byActivity('checkout');
    if (checkouts.some((checkout) => (kind === 'cart' && sameCart(checkout)) || sameShopperLater(checkout))) return m.checkoutStarted;
  }
  if (kind === 'browse' && byActivity('cart').some(sameShopperLater)) return m.addedToCart;

  // The same timer again, newer: a later update of the checkout or cart, a later view.
  const sameTimer = others.filter(
    (other) =>
      other.id !== timer.id &&
      other.flowId === timer.flowId &&
      timerKindOf(other) === kind &&
      (kind === 'checkout' ? sameCheckout(other) : kind === 'cart' ? sameCart(other) : timer.shopperEmail !== null && other.shopperEmail === timer.shopperEmail),
  );
  const newer = sameTimer.find((other) => isNewer(other, timer));
  if (newer) {
    if (newer.receivedAt.getTime() < timer.receivedAt.getTime()) return m.arrivedOutOfOrder;
    return kind === 'browse' ? m.viewedAnother : kind === 'cart' ? m.cartSuperseded : m.superseded;
  }
  return null;
}

