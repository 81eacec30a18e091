import type { Queryable } from '../database/database.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import type { EventListItem, FlowActivity } from '../../shared/events/event-schemas.ts';
import type { EventStatus } from '../../shared/events/event-statuses.ts';
import type { EventRecord } from './event-queries.ts';

/**
 * The owner's event log: pages of events, newest first, and the last day per flow; and
 * what is behind, for the dashboard and /metrics.
 */
interface EventListRow {
  id: string;
  flow_type: FlowType;
  source: EventListItem['source'];
  topic: string | null;
  status: EventStatus;
  received_at: Date;
  updated_at: Date;
  shopper_email: string | null;
  first_name: string | null;
  last_name: string | null;
  error: string | null;
  attempt: number;
  process_after: Date | null;
}

function shopperName(firstName: string | null | undefined, lastName: string | null | undefined): string | null {
  return [firstName, lastName].filter(Boolean).join(' ') || null;
}

function toListItem(row: EventListRow): EventListItem {
  return {
    id: row.id,
    flowType: row.flow_type,
    source: row.source,
    topic: row.topic,
    status: row.status,
    receivedAt: row.received_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    shopperEmail: row.shopper_email,
    shopperName: shopperName(row.first_name, row.last_name),
    error: row.error,
    attempt: row.attempt,
    waitsUntil: row.status === 'waiting' && row.process_after ? row.process_after.toISOString() : null,
  };
}

export function eventRecordToListItem(event: EventRecord): EventListItem {
  return {
    id: event.id,
    flowType: event.flowType,
    source: event.source,
    topic: event.topic,
    status: event.status,
    receivedAt: event.receivedAt.toISOString(),
    updatedAt: event.updatedAt.toISOString(),
    shopperEmail: event.shopperEmail,
    shopperName: shopperName(event.normalized?.shopper.firstName, event.normalized?.shopper.lastName),
    error: event.error,
    attempt: event.attempt,
    waitsUntil: event.status === 'waiting' && event.processAfter ? event.processAfter.toISOString() : null,
  };
}

export async function listEventsForUser(
  db: Queryable,
  userId: string,
  filter: { flowType?: FlowType | undefined; status?: EventStatus | undefined; limit: number; before?: string | undefined },
): Promise<{ events: EventListItem[]; nextBefore: string | null }> {
  const conditions = ['user_id = $1'];
  const values: unknown[] = [userId];
  if (filter.flowType) {
    values.push(filter.flowType);
    conditions.push(`flow_type = $${values.length}`);
  }
  if (filter.status) {
    values.push(filter.status);
    conditions.push(`status = $${values.length}`);
  }
  if (filter.before) {
    values.push(filter.before);
    conditions.push(`(received_at, id) < (SELECT received_at, id FROM events WHERE id = $${values.length} AND user_id = $1)`);
  }
  values.push(filter.limit + 1);
  const { rows } = await db.query<EventListRow>(
    `SELECT id, flow_type, source, topic, status, received_at, updated_at, shopper_email,
            normalized->'shopper'->>'firstName' AS first_name, normalized->'shopper'->>'lastName' AS last_name, error, attempt, process_after
       FROM events
      WHERE ${conditions.join(' AND ')}
      ORDER BY received_at DESC, id DESC
      LIMIT $${values.length}`,
    values,
  );
  const page = rows.slice(0, filter.limit).map(toListItem);
  return { events: page, nextBefore: rows.length > filter.limit ? page[page.length - 1]!.id : null };
}

/** Per flow since `since`: events received, deliveries made, failures, rejections and tokens used. */
export async function activitySince(db: Queryable, userId: string, since: Date): Promise<FlowActivity[]> {
  const { rows } = await db.query<{ flow_type: FlowType; events: number; deliveries: number; failed: number; rejected: number; tokens: string }>(
    `SELECT f.flow_type,
            (SELECT count(*)::int FROM events e WHERE e.flow_id = f.id AND e.received_at >= $2 AND e.status <> 'rejected') AS events,
            (SELECT count(*)::int FROM event_deliveries d JOIN events e ON e.id = d.event_id
              WHERE e.flow_id = f.id AND d.status = 'delivered' AND d.updated_at >= $2) AS deliveries,
            (SELECT count(*)::int FROM events e WHERE e.flow_id = f.id AND e.status = 'failed' AND e.updated_at >= $2) AS failed,
            (SELECT count(*)::int FROM events e WHERE e.flow_id = f.id AND e.status = 'rejected' AND e.received_at >= $2) AS rejected,
            (SELECT coalesce(sum(g.total_tokens), 0) FROM event_generations g JOIN events e ON e.id = g.event_id
              WHERE e.flow_id = f.id AND g.created_at >= $2) AS tokens
       FROM flows f
      WHERE f.user_id = $1`,
    [userId, since],
  );
  return rows.map((row) => ({
    flowType: row.flow_type,
    events: row.events,
    deliveries: row.deliveries,
    failed: row.failed,
    rejected: row.rejected,
    tokens: Number(row.tokens),
  }));
}

/** Events due and not finished, and how long the oldest of them has been due. */
export interface EventsBehind {
  count: number;
  /** Whole seconds; null when nothing is behind. */
  oldestSeconds: number | null;
}

/**
 * Behind: received, generating or delivering, or waiting past its time. The status list is
 * the predicate of the partial index `events_unfinished` (migration 030), word for word, so
 * the count reads only unfinished events however much history is kept.
 *
 * Due since: a waiting event's time; a replay (a later attempt without a time) the moment it
 * was replayed, not when the event first arrived; otherwise the time a timer or a retry
 * waited for, which stays set after the event is released (else a just-released hour-long
 * timer would read as an hour behind), or else its arrival. Never later than now: the
 * sandbox releases its sample timers early.
 */
const behindCondition = `status IN ('received', 'waiting', 'generating', 'delivering') AND (status <> 'waiting' OR process_after <= $1)`;
const dueSince = `CASE WHEN status = 'waiting' THEN process_after
                       WHEN attempt > 1 AND process_after IS NULL THEN least(updated_at, $1)
                       ELSE least(coalesce(process_after, received_at), $1) END`;

function toEventsBehind(row: { behind: number; oldest_seconds: number | null } | undefined): EventsBehind {
  if (!row || row.behind === 0) return { count: 0, oldestSeconds: null };
  return { count: row.behind, oldestSeconds: Math.max(0, Math.floor(row.oldest_seconds ?? 0)) };
}

/** What is behind for all owners (GET /metrics), as of `now`. */
export async function findEventsBehind(db: Queryable, now: Date): Promise<EventsBehind> {
  const { rows } = await db.query<{ behind: number; oldest_seconds: number | null }>(
    `SELECT count(*)::int AS behind, extract(epoch FROM $1::timestamptz - min(${dueSince}))::float8 AS oldest_seconds
       FROM events WHERE ${behindCondition}`,
    [now],
  );
  return toEventsBehind(rows[0]);
}

/** What is behind of one owner's events (the dashboard), as of `now`. */
export async function findOwnerEventsBehind(db: Queryable, userId: string, now: Date): Promise<EventsBehind> {
  const { rows } = await db.query<{ behind: number; oldest_seconds: number | null }>(
    `SELECT count(*)::int AS behind, extract(epoch FROM $1::timestamptz - min(${dueSince}))::float8 AS oldest_seconds
       FROM events WHERE user_id = $2 AND ${behindCondition}`,
    [now, userId],
  );
  return toEventsBehind(rows[0]);
}

/**
 * Arrivals against deliveries for one owner since `since`: events accepted (all but the
 * rejected), and events that reached a final status (delivered, skipped or failed; one
 * skipped on arrival counts in both). Each count reads only its window, through
 * `events_user_received` and `events_user_finished` (migration 032).
 */
export async function countArrivedAndFinished(db: Queryable, userId: string, since: Date): Promise<{ arrived: number; finished: number }> {
  const { rows } = await db.query<{ arrived: number; finished: number }>(
    `SELECT (SELECT count(*)::int FROM events WHERE user_id = $1 AND received_at >= $2 AND status <> 'rejected') AS arrived,
            (SELECT count(*)::int FROM events WHERE user_id = $1 AND finished_at >= $2 AND status IN ('delivered', 'skipped', 'failed')) AS finished`,
    [userId, since],
  );
  return { arrived: rows[0]?.arrived ?? 0, finished: rows[0]?.finished ?? 0 };
}
