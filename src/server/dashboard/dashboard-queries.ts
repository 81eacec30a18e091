import type { Queryable } from '../database/database.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import type { EventStatus } from '../../shared/events/event-statuses.ts';

/**
 * The dashboard's reads. Every query names the owner: flows by `user_id`, events and
 * deliveries only through the owner's flows or their own `user_id`.
 */

export interface SetupFacts {
  credentialsSaved: boolean;
  /** A Shopify-signed webhook was taken in: the store's subscriptions reach this app. */
  storeEventReceived: boolean;
  pixelEventReceived: boolean;
  anyEventReceived: boolean;
}

export async function findSetupFacts(db: Queryable, userId: string): Promise<SetupFacts> {
  // Rejected Shopify events do not count: only a verified signature proves the store.
  const { rows } = await db.query<{ credentials: boolean; store: boolean; pixel: boolean; any_event: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM api_credentials WHERE user_id = $1) AS credentials,
            EXISTS (SELECT 1 FROM events WHERE user_id = $1 AND source = 'shopify' AND status <> 'rejected') AS store,
            EXISTS (SELECT 1 FROM events WHERE user_id = $1 AND source = 'pixel') AS pixel,
            EXISTS (SELECT 1 FROM events WHERE user_id = $1) AS any_event`,
    [userId],
  );
  const row = rows[0]!;
  return { credentialsSaved: row.credentials, storeEventReceived: row.store, pixelEventReceived: row.pixel, anyEventReceived: row.any_event };
}

export interface FlowFacts {
  flowType: FlowType;
  isActive: boolean;
  lastEvent: { receivedAt: Date; status: EventStatus } | null;
  /** The status of the flow's latest event that ended delivered or failed since `since`. */
  lastOutcome: 'delivered' | 'failed' | null;
  deliveries: number;
  failures: number;
}

export async function listFlowFacts(db: Queryable, userId: string, since: Date): Promise<FlowFacts[]> {
  const { rows } = await db.query<{
    flow_type: FlowType;
    is_active: boolean;
    last_received_at: Date | null;
    last_status: EventStatus | null;
    last_outcome: 'delivered' | 'failed' | null;
    deliveries: number;
    failures: number;
  }>(
    `SELECT f.flow_type, f.is_active, last.received_at AS last_received_at, last.status AS last_status,
            (SELECT e.status FROM events e
              WHERE e.user_id = $1 AND e.flow_id = f.id AND e.status IN ('delivered', 'failed') AND e.finished_at >= $2
              ORDER BY e.finished_at DESC, e.id DESC LIMIT 1) AS last_outcome,
            (SELECT count(*)::int FROM event_deliveries d JOIN events e ON e.id = d.event_id
              WHERE e.flow_id = f.id AND d.status = 'delivered' AND d.updated_at >= $2) AS deliveries,
            (SELECT count(*)::int FROM events e WHERE e.user_id = $1 AND e.flow_id = f.id AND e.status = 'failed' AND e.finished_at >= $2) AS failures
       FROM flows f
       LEFT JOIN LATERAL (
         SELECT e.received_at, e.status FROM events e WHERE e.flow_id = f.id ORDER BY e.received_at DESC, e.id DESC LIMIT 1
       ) last ON true
      WHERE f.user_id = $1`,
    [userId, since],
  );
  return rows.map((row) => ({
    flowType: row.flow_type,
    isActive: row.is_active,
    lastEvent: row.last_received_at && row.last_status ? { receivedAt: row.last_received_at, status: row.last_status } : null,
    lastOutcome: row.last_outcome,
    deliveries: row.deliveries,
    failures: row.failures,
  }));
}
