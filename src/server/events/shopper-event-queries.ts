import type { Queryable } from '../database/database.ts';
import { parseJsonText } from '../platform/json-text.ts';
import { deliveredPropertiesOf } from '../deliveries/delivery-queries.ts';

/**
 * The events kept about one shopper, or about one shop, found for an export and erased
 * for a privacy request (docs/decisions/0028-shopper-privacy.md). Here because only the
 * events module writes `events`; an event's texts, profile writes, cap passes and batch
 * queue rows go with it (ON DELETE CASCADE), and an abandonment timer is a waiting event,
 * so erasing the events ends the shopper's timers too.
 */
export type EventScope = { userId: string; shopperEmail: string } | { userId: string; shopDomain: string } | { userId: string; eventIds: readonly string[] };

export interface ShopperEventExport {
  id: string;
  flowType: string;
  source: string;
  topic: string | null;
  status: string;
  receivedAt: Date;
  processAfter: Date | null;
  shopperEmail: string | null;
  rawBody: string | null;
  normalized: unknown;
  texts: Array<{ klaviyoProperty: string; assistantName: string; text: string | null; createdAt: Date }>;
  deliveries: Array<{ status: string; properties: unknown; createdAt: Date }>;
}

/**
 * The WHERE clause of a scope over `events`. A shopper's event is found by the email it
 * was stored under, and also where the email only appears in the body (a rejected event
 * has no shopper_email): quoted, as JSON writes it, so that erasing a@x.com leaves
 * ba@x.com alone. A shop's events are the ones it sent (its X-Shopify-Shop-Domain) and the
 * owner's events that name no shop (pixel and generic senders of the owner's one store).
 */
function scopeCondition(scope: EventScope): { where: string; values: unknown[] } {
  if ('eventIds' in scope) return { where: 'user_id = $1 AND id = ANY($2::text[])', values: [scope.userId, scope.eventIds] };
  if ('shopperEmail' in scope) {
    const email = scope.shopperEmail.toLowerCase();
    return {
      where: `user_id = $1 AND (shopper_email = $2 OR strpos(lower(coalesce(raw_body, '')), $3) > 0 OR strpos(lower(coalesce(normalized::text, '')), $3) > 0)`,
      values: [scope.userId, email, JSON.stringify(email)],
    };
  }
  return {
    where: `user_id = $1 AND (headers->>'x-shopify-shop-domain' = $2 OR headers->>'x-shopify-shop-domain' IS NULL)`,
    values: [scope.userId, scope.shopDomain.toLowerCase()],
  };
}

/** Every event of the scope with its texts and profile writes, newest first. */
export async function findShopperEvents(db: Queryable, scope: EventScope): Promise<ShopperEventExport[]> {
  const { where, values } = scopeCondition(scope);
  const { rows } = await db.query<{
    id: string;
    flow_type: string;
    source: string;
    topic: string | null;
    status: string;
    received_at: Date;
    process_after: Date | null;
    shopper_email: string | null;
    raw_body: string | null;
    normalized: unknown;
    texts: ShopperEventExport['texts'];
    deliveries: ShopperEventExport['deliveries'];
  }>(
    `SELECT e.id, e.flow_type, e.source, e.topic, e.status, e.received_at, e.process_after, e.shopper_email, e.raw_body, e.normalized,
       COALESCE((SELECT json_agg(json_build_object('klaviyoProperty', g.klaviyo_property, 'assistantName', g.assistant_name, 'text', g.text, 'createdAt', g.created_at) ORDER BY g.created_at)
                 FROM event_generations g WHERE g.event_id = e.id), '[]'::json) AS texts,
       COALESCE((SELECT json_agg(json_build_object('status', d.status, 'properties', ${deliveredPropertiesOf('d')}, 'createdAt', d.created_at) ORDER BY d.created_at)
                 FROM event_deliveries d WHERE d.event_id = e.id), '[]'::json) AS deliveries
     FROM events e WHERE ${where}
     ORDER BY e.received_at DESC`,
    values,
  );
  return rows.map((row) => ({
    id: row.id,
    flowType: row.flow_type,
    source: row.source,
    topic: row.topic,
    status: row.status,
    receivedAt: row.received_at,
    processAfter: row.process_after,
    shopperEmail: row.shopper_email,
    rawBody: row.raw_body,
    normalized: row.normalized,
    texts: row.texts,
    deliveries: row.deliveries,
  }));
}

/**
 * Deletes the scope's events (and with them their texts, deliveries and timers). Running
 * it again deletes nothing more, so an erasure cut short is simply run again. Returns how
 * many rows went: the events and the rows that hung on them.
 */
export async function eraseShopperEvents(db: Queryable, scope: EventScope): Promise<number> {
  const { where, values } = scopeCondition(scope);
  const { rows } = await db.query<{ erased: string }>(
    `WITH gone AS (DELETE FROM events WHERE ${where} RETURNING id)
     SELECT (SELECT count(*) FROM gone)
          + (SELECT count(*) FROM event_generations WHERE event_id IN (SELECT id FROM gone))
          + (SELECT count(*) FROM event_deliveries WHERE event_id IN (SELECT id FROM gone)) AS erased`,
    values,
  );
  return Number(rows[0]?.erased ?? 0);
}

/** How Shopify's privacy requests name a shopper besides the email (any part may be missing). */
export interface ShopifyShopperIdentity {
  /** `customer.id`, as exact digits (a 64-bit id is beyond JavaScript's safe integers). */
  customerId: string | null;
  phone: string | null;
  /** `orders_to_redact` / `orders_requested`, as exact digits. */
  orderIds: readonly string[];
}

/**
 * The owner's events about the shopper Shopify names by customer id, phone or orders: the
 * order events of those orders and the checkouts that became them (same checkout token),
 * and every event whose body names the customer id as its `customer.id`, or the phone.
 * The texts are narrowed in SQL and confirmed here by reading the body, so an id that
 * merely appears inside a longer number or another field is not taken for the shopper.
 */
export async function findShopifyIdentityEvents(db: Queryable, userId: string, identity: ShopifyShopperIdentity): Promise<Array<{ id: string; shopperEmail: string | null }>> {
  const phone = identity.phone ? JSON.stringify(identity.phone) : null;
  if (!identity.customerId && !phone && identity.orderIds.length === 0) return [];
  const { rows } = await db.query<{ id: string; shopper_email: string | null; raw_body: string | null; by_order: boolean }>(
    `WITH orders AS (
       SELECT id, checkout_token FROM events
        WHERE user_id = $1 AND source = 'shopify' AND topic LIKE 'orders/%' AND object_id = ANY($2::text[]))
     SELECT e.id, e.shopper_email, e.raw_body,
            (e.id IN (SELECT id FROM orders) OR e.checkout_token IN (SELECT checkout_token FROM orders WHERE checkout_token IS NOT NULL)) AS by_order
       FROM events e
      WHERE e.user_id = $1
        AND (e.id IN (SELECT id FROM orders)
             OR e.checkout_token IN (SELECT checkout_token FROM orders WHERE checkout_token IS NOT NULL)
             OR ($3::text IS NOT NULL AND strpos(coalesce(e.raw_body, ''), $3) > 0)
             OR ($4::text IS NOT NULL AND strpos(coalesce(e.raw_body, ''), $4) > 0))`,
    [userId, identity.orderIds, identity.customerId, phone],
  );
  return rows
    .filter((row) => row.by_order || (phone !== null && row.raw_body?.includes(phone)) || (identity.customerId !== null && customerIdOf(row.raw_body) === identity.customerId))
    .map((row) => ({ id: row.id, shopperEmail: row.shopper_email }));
}

function customerIdOf(rawBody: string | null): string | null {
  try {
    const body = parseJsonText(rawBody ?? '') as { customer?: { id?: unknown } } | null;
    const id = body?.customer?.id;
    return typeof id === 'number' || typeof id === 'string' ? String(id) : null;
  } catch {
    return null;
  }
}
