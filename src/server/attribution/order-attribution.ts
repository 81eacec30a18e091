import type { Logger } from 'pino';
import type { Queryable } from '../database/database.ts';
import type { EventSource } from '../../shared/events/event-sources.ts';
import type { NormalizedEvent } from '../../shared/events/event-schemas.ts';
import { parseJsonText } from '../platform/json-text.ts';
import { orderMoney } from '../integrations/shopify/shopify-payload-money.ts';
import { findAttributionWindowDays, findCreditedDelivery, recordAttribution } from './attribution-queries.ts';
import { shopperKey } from '../platform/shopper-key.ts';

/**
 * A step of the event pipeline, run for every order event that reaches it (a post-purchase
 * order or an order sent to an abandonment flow as a signal): the order is credited to the
 * owner's most recent delivery to its shopper within the attribution window
 * (docs/decisions/0030-revenue-attribution.md). It runs in the event's job, never in the
 * webhook's answer, and a rerun (a retry, the same order arriving again) stores nothing new.
 */
export interface OrderEvent {
  id: string;
  userId: string;
  source: EventSource;
  topic: string | null;
  rawBody: string | null;
  receivedAt: Date;
}

/**
 * An order as attribution read it, for the experiments, which count every exposed
 * shopper's orders, held out or not (0042); the pipeline hands it to them.
 */
export interface AttributedOrder {
  userId: string;
  shopperKey: string;
  orderKey: string;
  orderedAt: Date;
  windowDays: number;
  amount: string | null;
  currency: string | null;
}

/** Credits the order to a delivery; the order it read, or null when the event is not one that can be credited. */
export async function attributeOrder(db: Queryable, logger: Logger, event: OrderEvent, normalized: NormalizedEvent): Promise<AttributedOrder | null> {
  if (!isOrder(event, normalized)) return null;
  const shopperEmail = normalized.shopper.email?.trim().toLowerCase();
  if (!shopperEmail) return null;
  const body = bodyOf(event.rawBody);
  const orderKey = orderKeyOf(event.source, body);
  if (!orderKey) return null;
  const orderedAt = orderedAtOf(event, body);
  const windowDays = await findAttributionWindowDays(db, event.userId);
  const revenue = revenueOf(event.source, body, normalized);
  const order: AttributedOrder = { userId: event.userId, shopperKey: shopperKey(shopperEmail), orderKey, orderedAt, windowDays, ...revenue };
  const delivery = await findCreditedDelivery(db, { userId: event.userId, shopperEmail, orderedAt, orderKey, windowDays });
  if (!delivery) return order;
  const recorded = await recordAttribution(db, {
    userId: event.userId,
    orderKey,
    orderEventId: event.id,
    delivery,
    ...revenue,
    orderedAt,
    shopperEmail,
  });
  if (recorded) logger.info({ eventId: event.id, creditedEventId: delivery.eventId, flowType: delivery.flowType }, 'order attributed to a delivery');
  return order;
}

/**
 * What the shop earned: a Shopify order's shop money (the normalised total is what the
 * buyer paid, in their currency, which would scatter one shop's revenue over every
 * currency its buyers use); a generic sender's total as it gave it.
 */
function revenueOf(source: EventSource, body: Body, normalized: NormalizedEvent): { amount: string | null; currency: string | null } {
  if (source !== 'shopify') return { amount: normalized.total, currency: normalized.currency };
  const { shop } = orderMoney(body);
  return { amount: shop?.amount ?? null, currency: shop?.currency ?? null };
}

/** Shopify's order webhooks and a generic sender's purchase event; console test sends are never orders. */
export function isOrder(event: Pick<OrderEvent, 'source' | 'topic'>, normalized: Pick<NormalizedEvent, 'eventType'>): boolean {
  if (event.source === 'shopify') return event.topic === 'orders/create' || event.topic === 'orders/paid';
  return event.source === 'generic' && normalized.eventType === 'order_completed';
}

type Body = Record<string, unknown>;

function bodyOf(rawBody: string | null): Body {
  try {
    const parsed = parseJsonText(rawBody ?? '');
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Body) : {};
  } catch {
    return {};
  }
}

function idText(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && value.trim() && value.length <= 200) return value.trim();
  return null;
}

/**
 * What identifies the order in the owner's shop: Shopify's order id (the same in
 * orders/create and orders/paid); a generic sender's order id or number, else its event
 * id, so the same event sent twice is still one order.
 */
function orderKeyOf(source: EventSource, body: Body): string | null {
  if (source === 'shopify') return idText(body.id) ?? idText(body.order_number);
  const properties = (body.properties && typeof body.properties === 'object' ? body.properties : {}) as Body;
  return idText(properties.order_id) ?? idText(properties.order_number) ?? idText(body.order_id) ?? idText(body.event_id);
}

/**
 * When the order was placed: Shopify's `created_at` (an orders/paid keeps it, so a later
 * payment does not move the order after content it triggered), a generic sender's
 * `purchased_at` or timestamp; the receipt time when absent, unreadable or in the future.
 */
function orderedAtOf(event: OrderEvent, body: Body): Date {
  const properties = (body.properties && typeof body.properties === 'object' ? body.properties : {}) as Body;
  const given = event.source === 'shopify' ? body.created_at : (properties.purchased_at ?? body.timestamp);
  if (typeof given !== 'string' && typeof given !== 'number') return event.receivedAt;
  const date = typeof given === 'number' ? new Date(given < 1e12 ? given * 1000 : given) : new Date(given);
  if (Number.isNaN(date.getTime()) || date.getTime() > event.receivedAt.getTime()) return event.receivedAt;
  return date;
}
