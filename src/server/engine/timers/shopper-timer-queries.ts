import type { Queryable } from '../../database/database.ts';
import type { EventSource } from '../../../shared/events/event-sources.ts';
import type { FlowType } from '../../../shared/flows/flow-types.ts';

import type { TimerFacts } from './timer-rules.ts';

/** What the abandonment timers read of the owner's events (timer-rules.ts decides on them). */

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

/** How many related events one decision reads at most (a shopper's busiest week fits). */
const MAX_RELATED = 1_000;

/** The owner's other kept events that share a key with `timer` (test sends never count). */
export async function findRelatedEvents(db: Queryable, userId: string, timer: TimerFacts): Promise<TimerFacts[]> {
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

/** The owner's timers still waiting (first attempts) that share a key with `event`. */
export async function findWaitingTimersSharingKeys(
  db: Queryable,
  event: { id: string; userId: string; checkoutToken: string | null; cartToken: string | null; objectId: string | null; shopperEmail: string | null },
): Promise<TimerFacts[]> {
  const { rows } = await db.query<TimerFactsRow>(
    `SELECT ${factsColumns} FROM events
      WHERE user_id = $1 AND status = 'waiting' AND attempt = 1 AND id <> $2
        AND (checkout_token = $3 OR cart_token = $4 OR object_id = $5 OR shopper_email = $6)
      LIMIT ${MAX_RELATED}`,
    [event.userId, event.id, event.checkoutToken, event.cartToken, event.objectId, event.shopperEmail],
  );
  return rows.map(toFacts);
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

/** Waiting events due by `now`, oldest first: timers, and next tries of failed service calls. */
export async function findDueWaitingEventIds(db: Queryable, now: Date, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM events WHERE status = 'waiting' AND process_after <= $1 ORDER BY process_after LIMIT ${limit}`,
    [now],
  );
  return rows.map((row) => row.id);
}
