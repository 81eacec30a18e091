import { randomUUID } from 'node:crypto';
import type { Queryable } from '../database/database.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import { DEFAULT_ATTRIBUTION_WINDOW_DAYS } from '../../shared/attribution/attribution-periods.ts';

/**
 * The owner of `order_attributions` and `attribution_settings`
 * (docs/decisions/0030-revenue-attribution.md). Every read and write names the owner.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

export async function findAttributionWindowDays(db: Queryable, userId: string): Promise<number> {
  const { rows } = await db.query<{ window_days: number }>('SELECT window_days FROM attribution_settings WHERE user_id = $1', [userId]);
  return rows[0]?.window_days ?? DEFAULT_ATTRIBUTION_WINDOW_DAYS;
}

export async function saveAttributionWindowDays(db: Queryable, userId: string, windowDays: number): Promise<void> {
  await db.query(
    `INSERT INTO attribution_settings (user_id, window_days) VALUES ($1, $2)
     ON CONFLICT (user_id) DO UPDATE SET window_days = EXCLUDED.window_days, updated_at = now()`,
    [userId, windowDays],
  );
}

export interface CreditedDelivery {
  eventId: string;
  flowId: string;
  flowType: FlowType;
  deliveredAt: Date;
}

/**
 * The owner's most recent delivery to the shopper in the `windowDays` before the order,
 * across all flows. A delivery at or after the order's moment (the post-purchase content
 * the order itself triggered) cannot have earned it, and neither can any delivery of an
 * event about this same order (an orders/paid after its orders/create was delivered).
 * Console test sends reach no real shopper and are left out, and so are an experiment's
 * holdout deliveries, which wrote no text (docs/decisions/0043-experiments.md).
 */
export async function findCreditedDelivery(
  db: Queryable,
  order: { userId: string; shopperEmail: string; orderedAt: Date; orderKey: string; windowDays: number },
): Promise<CreditedDelivery | null> {
  const { rows } = await db.query<{ event_id: string; flow_id: string; flow_type: FlowType; delivered_at: Date }>(
    `SELECT e.id AS event_id, e.flow_id, e.flow_type, d.updated_at AS delivered_at
       FROM event_deliveries d JOIN events e ON e.id = d.event_id
      WHERE e.user_id = $1 AND e.shopper_email = $2 AND e.source <> 'test'
        AND d.status = 'delivered' AND NOT d.holdout AND d.updated_at < $3 AND d.updated_at >= $4
        AND (e.object_id IS NULL OR e.object_id <> $5)
      ORDER BY d.updated_at DESC, e.id DESC
      LIMIT 1`,
    [order.userId, order.shopperEmail, order.orderedAt, new Date(order.orderedAt.getTime() - order.windowDays * DAY_MS), order.orderKey],
  );
  const row = rows[0];
  return row ? { eventId: row.event_id, flowId: row.flow_id, flowType: row.flow_type, deliveredAt: row.delivered_at } : null;
}

export interface NewAttribution {
  userId: string;
  orderKey: string;
  orderEventId: string;
  delivery: CreditedDelivery;
  amount: string | null;
  currency: string | null;
  orderedAt: Date;
  shopperEmail: string;
}

/** Stores the credit unless this owner's order is already credited; returns whether it was new. */
export async function recordAttribution(db: Queryable, attribution: NewAttribution): Promise<boolean> {
  const result = await db.query(
    `INSERT INTO order_attributions
       (id, user_id, order_key, flow_id, flow_type, delivery_event_id, order_event_id, amount, currency, ordered_at, delivered_at, shopper_email)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (user_id, order_key) DO NOTHING`,
    [
      randomUUID(),
      attribution.userId,
      attribution.orderKey,
      attribution.delivery.flowId,
      attribution.delivery.flowType,
      attribution.delivery.eventId,
      attribution.orderEventId,
      attribution.amount,
      attribution.currency,
      attribution.orderedAt,
      attribution.delivery.deliveredAt,
      attribution.shopperEmail,
    ],
  );
  return (result.rowCount ?? 0) > 0;
}

export interface FlowDeliveryCount {
  flowType: FlowType;
  deliveries: number;
}

/** Profile writes of texts Klaviyo accepted since `since`, per flow (console test sends and holdout deliveries left out). */
export async function countDeliveriesByFlow(db: Queryable, userId: string, since: Date): Promise<FlowDeliveryCount[]> {
  const { rows } = await db.query<{ flow_type: FlowType; deliveries: number }>(
    `SELECT e.flow_type, count(*)::int AS deliveries
       FROM event_deliveries d JOIN events e ON e.id = d.event_id
      WHERE e.user_id = $1 AND e.source <> 'test' AND d.status = 'delivered' AND NOT d.holdout AND d.updated_at >= $2
      GROUP BY e.flow_type`,
    [userId, since],
  );
  return rows.map((row) => ({ flowType: row.flow_type, deliveries: row.deliveries }));
}

export interface FlowCurrencyRevenue {
  flowType: FlowType;
  /** Null when the order named no currency; never mixed with any other. */
  currency: string | null;
  orders: number;
  /** A decimal sum as text, so no cent is lost to floating point. */
  amount: string;
}

/** Attributed orders since `since`, per flow and currency. */
export async function sumRevenueByFlow(db: Queryable, userId: string, since: Date): Promise<FlowCurrencyRevenue[]> {
  const { rows } = await db.query<{ flow_type: FlowType; currency: string | null; orders: number; amount: string }>(
    `SELECT flow_type, currency, count(*)::int AS orders, COALESCE(sum(amount), 0)::text AS amount
       FROM order_attributions
      WHERE user_id = $1 AND ordered_at >= $2
      GROUP BY flow_type, currency
      ORDER BY flow_type, currency NULLS LAST`,
    [userId, since],
  );
  return rows.map((row) => ({ flowType: row.flow_type, currency: row.currency, orders: row.orders, amount: row.amount }));
}

export interface CurrencyTotal {
  currency: string | null;
  orders: number;
  amount: string;
}

/** Attributed orders since `since` across the owner's flows, per currency: each summed apart. */
export async function sumRevenueByCurrency(db: Queryable, userId: string, since: Date): Promise<CurrencyTotal[]> {
  const { rows } = await db.query<{ currency: string | null; orders: number; amount: string }>(
    `SELECT currency, count(*)::int AS orders, COALESCE(sum(amount), 0)::text AS amount
       FROM order_attributions
      WHERE user_id = $1 AND ordered_at >= $2
      GROUP BY currency
      ORDER BY currency NULLS LAST`,
    [userId, since],
  );
  return rows;
}

export interface AttributedOrder {
  orderKey: string;
  flowType: FlowType;
  deliveryEventId: string | null;
  amount: string | null;
  currency: string | null;
  orderedAt: Date;
}

/** The latest attributed orders since `since`, newest first. */
export async function listAttributedOrders(db: Queryable, userId: string, since: Date, limit: number): Promise<AttributedOrder[]> {
  const { rows } = await db.query<{ order_key: string; flow_type: FlowType; delivery_event_id: string | null; amount: string | null; currency: string | null; ordered_at: Date }>(
    `SELECT order_key, flow_type, delivery_event_id, amount::text AS amount, currency, ordered_at
       FROM order_attributions
      WHERE user_id = $1 AND ordered_at >= $2
      ORDER BY ordered_at DESC, id DESC
      LIMIT $3`,
    [userId, since, limit],
  );
  return rows.map((row) => ({
    orderKey: row.order_key,
    flowType: row.flow_type,
    deliveryEventId: row.delivery_event_id,
    amount: row.amount,
    currency: row.currency,
    orderedAt: row.ordered_at,
  }));
}

/** The shopper's attributed orders, for a privacy export. */
export async function findShopperAttributions(db: Queryable, userId: string, shopperEmail: string): Promise<Array<{ orderKey: string; flowType: string; amount: string | null; currency: string | null; orderedAt: Date }>> {
  const { rows } = await db.query<{ order_key: string; flow_type: string; amount: string | null; currency: string | null; ordered_at: Date }>(
    'SELECT order_key, flow_type, amount::text AS amount, currency, ordered_at FROM order_attributions WHERE user_id = $1 AND shopper_email = lower($2) ORDER BY ordered_at',
    [userId, shopperEmail],
  );
  return rows.map((row) => ({ orderKey: row.order_key, flowType: row.flow_type, amount: row.amount, currency: row.currency, orderedAt: row.ordered_at }));
}

/**
 * An erased shopper's orders stay counted (the revenue happened and names no one once the
 * address is gone); a shop's erasure removes its orders' attributions altogether.
 */
export async function eraseAttributions(db: Queryable, userId: string, shopperEmail: string | null): Promise<number> {
  const { rowCount } =
    shopperEmail === null
      ? await db.query('DELETE FROM order_attributions WHERE user_id = $1', [userId])
      : await db.query('UPDATE order_attributions SET shopper_email = NULL WHERE user_id = $1 AND shopper_email = lower($2)', [userId, shopperEmail]);
  return rowCount ?? 0;
}

/** The shoppers of credited orders, by Shopify order id: how a privacy request naming orders finds its shopper. */
export async function findAttributionEmailsByOrderKeys(db: Queryable, userId: string, orderKeys: readonly string[]): Promise<string[]> {
  if (orderKeys.length === 0) return [];
  const { rows } = await db.query<{ shopper_email: string }>(
    'SELECT DISTINCT shopper_email FROM order_attributions WHERE user_id = $1 AND order_key = ANY($2::text[]) AND shopper_email IS NOT NULL',
    [userId, orderKeys],
  );
  return rows.map((row) => row.shopper_email);
}
