import type { Queryable } from '../database/database.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import type { EventSource } from '../../shared/events/event-sources.ts';
import type { EventStatus } from '../../shared/events/event-statuses.ts';
import type { NormalizedEvent } from '../../shared/events/event-schemas.ts';
import { eventLifecycle, isFinished, isInitialStatus, predecessorsOf } from './event-lifecycle.ts';

/**
 * The one module that writes the `events` table: every status change here is a move of
 * the lifecycle (event-lifecycle.ts), one UPDATE guarded by the statuses it may come from
 * and by the attempt.
 */

/** An event as the engine and the event log read it. */
export interface EventRecord {
  id: string;
  flowId: string;
  userId: string;
  flowType: FlowType;
  source: EventSource;
  topic: string | null;
  status: EventStatus;
  contentType: string | null;
  rawBody: string | null;
  headers: Record<string, string>;
  normalized: NormalizedEvent | null;
  shopperEmail: string | null;
  error: string | null;
  attempt: number;
  checkoutToken: string | null;
  cartToken: string | null;
  objectId: string | null;
  occurredAt: Date | null;
  processAfter: Date | null;
  receivedAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
  /** Tries in a row that failed without getting further (patient retries, docs/decisions/0014). */
  retryCount: number;
  /** How far the event had got when it last failed: texts stored plus Klaviyo steps done. */
  retryProgress: number;
  /** A console test send that stops before Klaviyo. */
  dryRun: boolean;
}

interface EventRow {
  id: string;
  flow_id: string;
  user_id: string;
  flow_type: FlowType;
  source: EventSource;
  topic: string | null;
  status: EventStatus;
  content_type: string | null;
  raw_body: string | null;
  headers: Record<string, string>;
  normalized: NormalizedEvent | null;
  shopper_email: string | null;
  error: string | null;
  attempt: number;
  checkout_token: string | null;
  cart_token: string | null;
  object_id: string | null;
  occurred_at: Date | null;
  process_after: Date | null;
  received_at: Date;
  updated_at: Date;
  finished_at: Date | null;
  retry_count: number;
  retry_progress: number;
  dry_run: boolean;
}

export const eventColumns =
  'id, flow_id, user_id, flow_type, source, topic, status, content_type, raw_body, headers, normalized, shopper_email, error, attempt, checkout_token, cart_token, object_id, occurred_at, process_after, received_at, updated_at, finished_at, retry_count, retry_progress, dry_run';

export function toEventRecord(row: EventRow): EventRecord {
  return {
    id: row.id,
    flowId: row.flow_id,
    userId: row.user_id,
    flowType: row.flow_type,
    source: row.source,
    topic: row.topic,
    status: row.status,
    contentType: row.content_type,
    rawBody: row.raw_body,
    headers: row.headers,
    normalized: row.normalized,
    shopperEmail: row.shopper_email,
    error: row.error,
    attempt: row.attempt,
    checkoutToken: row.checkout_token,
    cartToken: row.cart_token,
    objectId: row.object_id,
    occurredAt: row.occurred_at,
    processAfter: row.process_after,
    receivedAt: row.received_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
    retryCount: row.retry_count,
    retryProgress: row.retry_progress,
    dryRun: row.dry_run,
  };
}

export interface NewEvent {
  id: string;
  flowId: string;
  userId: string;
  flowType: FlowType;
  source: EventSource;
  topic: string | null;
  status: EventStatus;
  contentType: string | null;
  rawBody: string | null;
  headers: Record<string, string>;
  shopifyEventId: string | null;
  shopifyWebhookId: string | null;
  externalEventId: string | null;
  error: string | null;
  checkoutToken: string | null;
  cartToken: string | null;
  objectId: string | null;
  /** Lower-cased (webhook-intake.ts emailText). */
  shopperEmail: string | null;
  occurredAt: Date | null;
  processAfter: Date | null;
  receivedAt: Date;
  /** Only the signed-in console's test send sets it (the intake module). */
  dryRun?: boolean;
}

/** What every new event must say; the rest (ids, tokens, body, times) is absent unless given. */
export type NewEventFields = Pick<NewEvent, 'id' | 'flowId' | 'userId' | 'flowType' | 'source' | 'status' | 'receivedAt'> & Partial<NewEvent>;

/** The one way to make a NewEvent: every field it does not name is absent (null, empty). */
export function newEvent(fields: NewEventFields): NewEvent {
  return {
    topic: null,
    contentType: null,
    rawBody: null,
    headers: {},
    shopifyEventId: null,
    shopifyWebhookId: null,
    externalEventId: null,
    error: null,
    checkoutToken: null,
    cartToken: null,
    objectId: null,
    shopperEmail: null,
    occurredAt: null,
    processAfter: null,
    ...fields,
  };
}

/**
 * Stores an accepted event unless one with the same Shopify event id, Shopify webhook id
 * or event_id is already stored for the flow (any of the three unique indexes): returns
 * whether it was new, and the id of the stored event either way.
 */
export async function insertEventOnce(db: Queryable, event: NewEvent): Promise<{ inserted: boolean; id: string; status: EventStatus }> {
  const inserted = await insertEventsOnce(db, [event]);
  if (inserted.has(event.id)) return { inserted: true, id: event.id, status: event.status };
  const found = await findDuplicateOf(db, event);
  // Only the event id itself can collide otherwise (practically impossible); refuse loudly.
  if (!found) throw new Error('The event could not be stored: its id is already taken');
  return { inserted: false, id: found.id, status: found.status };
}

/** An event as a row of the events table, keyed by column, for `store_events_once` (event-storage-functions.ts). */
function eventRow(event: NewEvent): Record<string, unknown> {
  if (!isInitialStatus(event.status)) throw new Error(`An event cannot be stored as ${event.status}: it starts as one of ${eventLifecycle.initial.join(', ')}`);
  return {
    id: event.id,
    flow_id: event.flowId,
    user_id: event.userId,
    flow_type: event.flowType,
    source: event.source,
    topic: event.topic,
    status: event.status,
    content_type: event.contentType,
    headers: event.headers,
    shopify_event_id: event.shopifyEventId,
    shopify_webhook_id: event.shopifyWebhookId,
    external_event_id: event.externalEventId,
    error: event.error,
    checkout_token: event.checkoutToken,
    cart_token: event.cartToken,
    object_id: event.objectId,
    shopper_email: event.shopperEmail,
    occurred_at: event.occurredAt,
    process_after: event.processAfter,
    received_at: event.receivedAt,
    updated_at: event.receivedAt,
    finished_at: isFinished(event.status) ? event.receivedAt : null,
    dry_run: event.dryRun ?? false,
  };
}

/**
 * Jobs to send with the events they are for, in the same statement: pg-boss's own insert
 * statement and its one parameter (the jobs, each naming its event in `data.eventId`).
 */
export interface JobsForEvents {
  statement: string;
  jobs: string;
}

/**
 * Stores many accepted events in one statement, with their jobs when given: a row whose
 * Shopify event id, webhook id or event_id is already stored for its flow (or repeats
 * earlier in the same batch) is skipped, and so is its job. Returns the ids that were
 * inserted. One statement is one round trip and one implicit transaction, so under load
 * neither a BEGIN nor a COMMIT waits behind the busy event loop (docs/decisions/0031).
 */
export async function insertEventsOnce(db: Queryable, events: NewEvent[], jobs: JobsForEvents | null = null): Promise<Set<string>> {
  if (events.length === 0) return new Set();
  // Each body is a parameter of its own: sent as it is, where inside the rows' JSON it was
  // escaped here and unescaped by the database (a tenth of a batch's cost for 2 KB bodies).
  const bodies = events.map((_, index) => `$${index + 4}`).join(', ');
  const { rows } = await db.query<{ id: string }>(`SELECT store_events_once AS id FROM store_events_once($1::json, ARRAY[${bodies}]::text[], $2, $3::json)`, [
    JSON.stringify(events.map(eventRow)),
    jobs?.statement ?? null,
    jobs?.jobs ?? null,
    ...events.map((event) => event.rawBody),
  ]);
  return new Set(rows.map((row) => row.id));
}

/** The stored event a duplicate delivery repeats: same flow and any of its de-duplication ids. */
export async function findDuplicateOf(db: Queryable, event: NewEvent): Promise<{ id: string; status: EventStatus } | null> {
  const { rows } = await db.query<{ id: string; status: EventStatus }>(
    `SELECT id, status FROM events
      WHERE flow_id = $1
        AND ((shopify_event_id = $2 AND $2 IS NOT NULL) OR (shopify_webhook_id = $3 AND $3 IS NOT NULL) OR (external_event_id = $4 AND $4 IS NOT NULL))
      ORDER BY received_at
      LIMIT 1`,
    [event.flowId, event.shopifyEventId, event.shopifyWebhookId, event.externalEventId],
  );
  return rows[0] ?? null;
}

export async function findEventById(db: Queryable, eventId: string): Promise<EventRecord | null> {
  const { rows } = await db.query<EventRow>(`SELECT ${eventColumns} FROM events WHERE id = $1`, [eventId]);
  return rows[0] ? toEventRecord(rows[0]) : null;
}

export async function findEventForUser(db: Queryable, userId: string, eventId: string): Promise<EventRecord | null> {
  const { rows } = await db.query<EventRow>(`SELECT ${eventColumns} FROM events WHERE id = $1 AND user_id = $2`, [eventId, userId]);
  return rows[0] ? toEventRecord(rows[0]) : null;
}

export async function saveNormalizedEvent(db: Queryable, eventId: string, normalized: NormalizedEvent): Promise<void> {
  await db.query('UPDATE events SET normalized = $2::jsonb, shopper_email = $3, updated_at = now() WHERE id = $1', [
    eventId,
    JSON.stringify(normalized),
    normalized.shopper.email?.trim().toLowerCase() ?? null,
  ]);
}

/**
 * Moves the event's attempt `event.attempt` to `status`, if its lifecycle allows that from
 * the status it is in now (event-lifecycle.ts); false when it does not, or when a replay
 * has since raised the attempt, so a late job can never overwrite a newer outcome.
 */
export async function setEventStatus(db: Queryable, event: { id: string; attempt: number }, status: EventStatus, error: string | null = null): Promise<boolean> {
  const { id: eventId, attempt } = event;
  const result = await db.query(
    `UPDATE events SET status = $3, error = $4, updated_at = now(), finished_at = ${isFinished(status) ? 'now()' : 'NULL'}
      WHERE id = $1 AND attempt = $2 AND status = ANY($5::text[])`,
    [eventId, attempt, status, error, predecessorsOf(status)],
  );
  return (result.rowCount ?? 0) > 0;
}

/**
 * `setEventStatus` for many events in one statement (a bulk delivery's thousands): each
 * moves only as its lifecycle allows, and only at its own attempt. Returns how many moved.
 */
export async function setEventsStatus(db: Queryable, events: Array<{ eventId: string; attempt: number }>, status: EventStatus): Promise<number> {
  if (events.length === 0) return 0;
  const result = await db.query(
    `UPDATE events SET status = $3, error = NULL, updated_at = now(), finished_at = ${isFinished(status) ? 'now()' : 'NULL'}
       FROM unnest($1::text[], $2::int[]) AS moving (id, attempt)
      WHERE events.id = moving.id AND events.attempt = moving.attempt AND events.status = ANY($4::text[])`,
    [events.map((event) => event.eventId), events.map((event) => event.attempt), status, predecessorsOf(status)],
  );
  return result.rowCount ?? 0;
}

/**
 * Puts an event whose service call failed back to waiting until `nextTryAt`, when the
 * timer sweep sends its job again; `error` tells the owner what failed and when the next
 * try is. A lifecycle move like the others: never for a finished event or an old attempt.
 */
export async function scheduleEventRetry(
  db: Queryable,
  eventId: string,
  attempt: number,
  retry: { nextTryAt: Date; retryCount: number; retryProgress: number; error: string },
): Promise<boolean> {
  const result = await db.query(
    `UPDATE events SET status = 'waiting', process_after = $3, retry_count = $4, retry_progress = $5, error = $6, finished_at = NULL, updated_at = now()
      WHERE id = $1 AND attempt = $2 AND status = ANY($7::text[])`,
    [eventId, attempt, retry.nextTryAt, retry.retryCount, retry.retryProgress, retry.error, predecessorsOf('waiting')],
  );
  return (result.rowCount ?? 0) > 0;
}

/**
 * A waiting event whose time has come (its timer, or its next try) goes back to received;
 * returns its attempt, or null when it was no longer waiting (another worker fired it).
 */
export async function releaseWaitingEvent(db: Queryable, eventId: string): Promise<number | null> {
  const { rows } = await db.query<{ attempt: number }>(
    `UPDATE events SET status = 'received', updated_at = now() WHERE id = $1 AND status = 'waiting' RETURNING attempt`,
    [eventId],
  );
  return rows[0]?.attempt ?? null;
}

/** Ends a waiting event early (what its timer waited for has happened); false when it no longer waits. */
export async function endWaitingEvent(db: Queryable, eventId: string, reason: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE events SET status = 'skipped', error = $2, finished_at = now(), updated_at = now() WHERE id = $1 AND status = 'waiting'`,
    [eventId, reason],
  );
  return (rowCount ?? 0) > 0;
}

/** Starts a new attempt of a failed or delivered event; null when it is in another state. */
export async function startReplay(db: Queryable, userId: string, eventId: string): Promise<EventRecord | null> {
  const { rows } = await db.query<EventRow>(
    `UPDATE events SET attempt = attempt + 1, status = 'received', error = NULL, finished_at = NULL, process_after = NULL,
            retry_count = 0, retry_progress = 0, updated_at = now()
      WHERE id = $1 AND user_id = $2 AND status = ANY($3::text[])
      RETURNING ${eventColumns}`,
    [eventId, userId, eventLifecycle.replayable],
  );
  return rows[0] ? toEventRecord(rows[0]) : null;
}

/**
 * Another event of the same Shopify order that this flow received first: orders/create and
 * orders/paid of one order (or a redelivery under a new id) are followed up once.
 */
export async function hasEarlierOrderEvent(db: Queryable, event: EventRecord): Promise<boolean> {
  if (!event.objectId) return false;
  const { rows } = await db.query(
    `SELECT 1 FROM events
      WHERE user_id = $1 AND flow_id = $2 AND object_id = $3 AND id <> $4 AND source = 'shopify' AND topic LIKE 'orders/%'
        AND status IN ('received', 'waiting', 'generating', 'delivering', 'delivered') AND (received_at, id) < ($5, $4)
      LIMIT 1`,
    [event.userId, event.flowId, event.objectId, event.id, event.receivedAt],
  );
  return rows.length > 0;
}

/**
 * Puts an event back to waiting until `until` without counting a failed try: a rate
 * limit's next slot is further off than a worker waits, and the timer sweep sends its job
 * when the slot frees. Guarded like scheduleEventRetry, so a late job never reopens an event.
 */
export async function deferEvent(db: Queryable, eventId: string, attempt: number, deferral: { until: Date; reason: string }): Promise<boolean> {
  const result = await db.query(
    `UPDATE events SET status = 'waiting', process_after = $3, error = $4, finished_at = NULL, updated_at = now()
      WHERE id = $1 AND attempt = $2 AND status = ANY($5::text[])`,
    [eventId, attempt, deferral.until, deferral.reason, predecessorsOf('waiting')],
  );
  return (result.rowCount ?? 0) > 0;
}

/**
 * Retention (docs/decisions/0029-retention-and-account-deletion.md): deletes at most
 * `limit` of the owner's events received before `cutoff`, oldest first; their texts,
 * deliveries and cap passes go with them (ON DELETE CASCADE). Bounded, and rows another
 * transaction holds are skipped, so one call never keeps locks for long; the caller
 * calls again until fewer than `limit` come back.
 */
export async function deleteEventsReceivedBefore(db: Queryable, userId: string, cutoff: Date, limit: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM events WHERE id IN (
       SELECT id FROM events WHERE user_id = $1 AND received_at < $2 ORDER BY received_at LIMIT $3 FOR UPDATE SKIP LOCKED)`,
    [userId, cutoff, limit],
  );
  return rowCount ?? 0;
}

/** The ids of all of an owner's events (account deletion takes back their queued jobs first). */
export async function listOwnerEventIds(db: Queryable, userId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM events WHERE user_id = $1', [userId]);
  return rows.map((row) => row.id);
}

/** Account deletion: every event of the owner, in the deleting transaction (before the owner's row). */
export async function deleteOwnerEvents(db: Queryable, userId: string): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM events WHERE user_id = $1', [userId]);
  return rowCount ?? 0;
}
