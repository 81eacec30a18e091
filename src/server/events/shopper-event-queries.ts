import type { Queryable } from '../database/database.ts';

/**
 * The events kept about one shopper, or about one shop, found for an export and erased
 * for a privacy request (docs/decisions/0028-shopper-privacy.md). Here because only the
 * events module writes `events`; an event's texts, profile writes, cap passes and batch
 * queue rows go with it (ON DELETE CASCADE), and an abandonment timer is a waiting event,
 * so erasing the events ends the shopper's timers too.
 */
export type EventScope = { userId: string; shopperEmail: string } | { userId: string; shopDomain: string };

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
       COALESCE((SELECT json_agg(json_build_object('status', d.status, 'properties', d.properties, 'createdAt', d.created_at) ORDER BY d.created_at)
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
