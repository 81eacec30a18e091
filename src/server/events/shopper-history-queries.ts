import type { Queryable } from '../database/database.ts';
import type { EventSource } from '../../shared/events/event-sources.ts';
import type { NormalizedEvent } from '../../shared/events/event-schemas.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';

/**
 * One shopper's earlier events with one owner, as the shopper's placeholders read them
 * (engine/shop-facts/shopper-context.ts): only events Flowsmith keeps, so the owner's retention
 * period and every erasure bound what a prompt can say; only this owner's, found by the
 * shopper's address (events_shopper index).
 */
export interface ShopperHistoryEvent {
  id: string;
  source: EventSource;
  topic: string | null;
  flowType: FlowType;
  receivedAt: Date;
  normalized: NormalizedEvent;
}

/** At most this many earlier events are read for one prompt; the newest first. */
export const SHOPPER_HISTORY_LIMIT = 200;

export async function listShopperHistory(
  db: Queryable,
  shopper: { userId: string; email: string; exceptEventId: string; since: Date },
): Promise<ShopperHistoryEvent[]> {
  const { rows } = await db.query<{ id: string; source: EventSource; topic: string | null; flow_type: FlowType; received_at: Date; normalized: NormalizedEvent }>(
    `SELECT id, source, topic, flow_type, received_at, normalized FROM events
      WHERE user_id = $1 AND shopper_email = $2 AND id <> $3 AND received_at >= $4
        AND normalized IS NOT NULL AND source <> 'test' AND status <> 'rejected'
      ORDER BY received_at DESC
      LIMIT ${SHOPPER_HISTORY_LIMIT}`,
    [shopper.userId, shopper.email.trim().toLowerCase(), shopper.exceptEventId, shopper.since],
  );
  return rows.map((row) => ({ id: row.id, source: row.source, topic: row.topic, flowType: row.flow_type, receivedAt: row.received_at, normalized: row.normalized }));
}
