import type pg from 'pg';
import type { Logger } from 'pino';
import type { Queryable } from '../database/database.ts';
import type { EventSource } from '../../shared/events/event-schemas.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import { flowHasWait } from '../../shared/flows/flow-types.ts';
import { eventOutcomeMessages as m } from '../../shared/events/event-messages.ts';
import type { EventRecord } from '../events/event-queries.ts';

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

function activityOf(event: { source: EventSource; topic: string | null; flowType: FlowType }): ShopperActivity | null {
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

/** The fields of an event that timers are decided on. */
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

interface TimerFactsRow {
  id: string;
  flow_id: string;
  flow_type: FlowType;
  source: EventSource;
  topic: string | null;
  checkout_token: string | null;
  cart_token: string | null;
  object_id: string | null;
  shopper_email: string | null;
  acted_at: Date;
  received_at: Date;
}

const factsColumns = `id, flow_id, flow_type, source, topic, checkout_token, cart_token, object_id, shopper_email,
  COALESCE(occurred_at, received_at) AS acted_at, received_at`;

function toFacts(row: TimerFactsRow): TimerFacts {
  return {
    id: row.id,
    flowId: row.flow_id,
    flowType: row.flow_type,
    source: row.source,
    topic: row.topic,
    checkoutToken: row.checkout_token,
    cartToken: row.cart_token,
    objectId: row.object_id,
    shopperEmail: row.shopper_email,
    actedAt: row.acted_at,
    receivedAt: row.received_at,
  };
}

export function factsOf(event: EventRecord): TimerFacts {
  return {
    id: event.id,
    flowId: event.flowId,
    flowType: event.flowType,
    source: event.source,
    topic: event.topic,
    checkoutToken: event.checkoutToken,
    cartToken: event.cartToken,
    objectId: event.objectId,
    shopperEmail: event.shopperEmail,
    actedAt: event.occurredAt ?? event.receivedAt,
    receivedAt: event.receivedAt,
  };
}

/** How many related events one decision reads at most (a shopper's busiest week fits). */
const MAX_RELATED = 1_000;

/** The owner's other kept events that share a key with `timer` (test sends never count). */
async function relatedEvents(db: Queryable, userId: string, timer: TimerFacts): Promise<TimerFacts[]> {
  const { rows } = await db.query<TimerFactsRow>(
    `SELECT ${factsColumns} FROM events
      WHERE user_id = $1 AND id <> $2 AND status <> 'rejected' AND source <> 'test'
        AND (checkout_token = $3 OR cart_token = $4 OR object_id = $5
             OR (shopper_email = $6 AND COALESCE(occurred_at, received_at) >= $7))
      ORDER BY received_at DESC
      LIMIT ${MAX_RELATED}`,
    [userId, timer.id, timer.checkoutToken, timer.cartToken, timer.objectId, timer.shopperEmail, timer.actedAt],
  );
  return rows.map(toFacts);
}

/** Why this timer must not fire (see reasonTimerEnded), read from the database. */
export async function findReasonTimerEnded(db: Queryable, kind: TimerKind, event: EventRecord): Promise<string | null> {
  const timer = factsOf(event);
  return reasonTimerEnded(kind, timer, await relatedEvents(db, event.userId, timer));
}

/**
 * Ends, at once, the owner's pending timers that `event` ends (in any of their flows):
 * each candidate sharing a key is judged by `reasonTimerEnded` and, if ended, skipped
 * with that reason. A replay waiting for its next try is not a timer: replays skip the
 * timer rules. Each is its own statement so that only one flow's change-log lock is
 * held at a time. Returns how many were ended.
 */
export async function endTimersEndedBy(pool: pg.Pool, event: EventRecord, logger: Logger): Promise<number> {
  if (event.source === 'test' || activityOf(event) === null) return 0;
  const { rows } = await pool.query<TimerFactsRow & { user_id: string }>(
    `SELECT ${factsColumns} FROM events
      WHERE user_id = $1 AND status = 'waiting' AND attempt = 1 AND id <> $2
        AND (checkout_token = $3 OR cart_token = $4 OR object_id = $5 OR shopper_email = $6)
      LIMIT ${MAX_RELATED}`,
    [event.userId, event.id, event.checkoutToken, event.cartToken, event.objectId, event.shopperEmail],
  );
  let ended = 0;
  for (const candidate of rows.map(toFacts)) {
    const kind = timerKindOf(candidate);
    if (!kind) continue;
    const reason = reasonTimerEnded(kind, candidate, await relatedEvents(pool, event.userId, candidate));
    if (!reason) continue;
    const { rowCount } = await pool.query(
      `UPDATE events SET status = 'skipped', error = $2, finished_at = now(), updated_at = now() WHERE id = $1 AND status = 'waiting'`,
      [candidate.id, reason],
    );
    if (rowCount) {
      ended += 1;
      logger.info({ eventId: candidate.id, endedBy: event.id }, 'abandonment timer ended early');
    }
  }
  return ended;
}

/**
 * A cart's shopper: the latest identified pixel event of the owner that carried the same
 * cart token (the pixel reads it from the storefront's cart). Shopify's cart webhooks
 * carry no customer, so without the pixel a cart reaches no one. Only the email is taken:
 * names the public pixel sent are not trusted, the shopper's come from Klaviyo.
 */
export async function findCartShopper(db: Queryable, userId: string, cartToken: string | null): Promise<{ email: string; firstName: null; lastName: null } | null> {
  if (!cartToken) return null;
  const { rows } = await db.query<{ shopper_email: string }>(
    `SELECT shopper_email FROM events
      WHERE user_id = $1 AND cart_token = $2 AND source = 'pixel' AND shopper_email IS NOT NULL AND status <> 'rejected'
      ORDER BY received_at DESC LIMIT 1`,
    [userId, cartToken],
  );
  const row = rows[0];
  return row ? { email: row.shopper_email, firstName: null, lastName: null } : null;
}

/**
 * Fires the timers that are due, and the next tries of events that wait after a failed
 * service call (docs/decisions/0014-patient-retries-and-caps.md): each moves from
 * `waiting` to `received` together with its job, in its own transaction (one flow lock at a time), and only if still waiting, so two
 * workers sweeping at once fire each timer once.
 */
export async function fireDueTimers(
  pool: pg.Pool,
  now: Date,
  enqueue: (db: Queryable, job: { eventId: string; attempt: number }) => Promise<void>,
  inTransaction: <T>(work: (client: Queryable) => Promise<T>) => Promise<T>,
  limit = 200,
): Promise<number> {
  const { rows } = await pool.query<{ id: string }>(
    `SELECT id FROM events WHERE status = 'waiting' AND process_after <= $1 ORDER BY process_after LIMIT ${limit}`,
    [now],
  );
  let fired = 0;
  for (const { id } of rows) {
    const started = await inTransaction(async (client) => {
      const { rows: updated } = await client.query<{ attempt: number }>(
        `UPDATE events SET status = 'received', updated_at = now() WHERE id = $1 AND status = 'waiting' RETURNING attempt`,
        [id],
      );
      if (updated[0]) await enqueue(client, { eventId: id, attempt: updated[0].attempt });
      return updated.length > 0;
    });
    if (started) fired += 1;
  }
  return fired;
}
