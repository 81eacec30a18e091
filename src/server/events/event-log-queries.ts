import type { Queryable } from '../database/database.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import type { EventListItem, EventStatus, FlowActivity } from '../../shared/events/event-schemas.ts';
import type { EventRecord } from './event-queries.ts';

/** The owner's event log: pages of events, newest first, and the last day per flow. */
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
