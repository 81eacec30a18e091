import type { Queryable } from '../database/database.ts';
import { JsonTextError, parseJsonText, storableText } from '../platform/json-text.ts';
import { streamMessages } from '../../shared/messages.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import type { EventSource } from '../../shared/events/event-sources.ts';
import type { EventStatus } from '../../shared/events/event-statuses.ts';
import { changeIdPattern, type GeneratedText, type StreamChange } from '../../shared/webhooks/webhook-schemas.ts';

/**
 * The change log of migration 007: one row per event received and per status change,
 * written by the triggers on `events` (event-change-functions.ts), with its transaction's
 * id (migration 034). A stream's
 * cursor is a change's (transaction, id), written `<tx>-<id>`: it reads the changes after
 * it in that order, and only those of transactions older than every one still running,
 * so a change committed later can never land behind a cursor that has passed it.
 */
interface ChangeRow {
  change_id: string;
  tx: string;
  flow_id: string;
  event_id: string;
  status: EventStatus;
  created_at: Date;
  flow_type: FlowType;
  source: EventSource;
  dry_run: boolean;
  received_at: Date;
  raw_body: string | null;
  error: string | null;
  attempt: number;
  arrival: boolean;
}

export interface EventChange extends StreamChange {
  flowId: string;
  /** `changeId`, parsed: where a stream that has sent this change stands. */
  cursor: ChangeCursor;
}

/** Statuses after which the flow's assistants have run (or were meant to). */
const generatedStatuses = new Set<EventStatus>(['delivered', 'failed', 'skipped']);

/**
 * What the console may show of a body: parsed JSON while it is small and shallow enough to
 * serialise (again) safely and cheaply for every open stream, else the start of its text.
 */
export const payloadPreviewLimits = { maxChars: 65_536, maxDepth: 32, maxMembers: 5_000, previewChars: 4_096 } as const;

export function payloadOf(rawBody: string | null): unknown {
  if (rawBody === null) return null;
  if (rawBody.length <= payloadPreviewLimits.maxChars) {
    try {
      return parseJsonText(rawBody, { maxDepth: payloadPreviewLimits.maxDepth, maxMembers: payloadPreviewLimits.maxMembers });
    } catch (error) {
      // Text that is not JSON at all is shown as it is; JSON beyond the limits as a preview.
      if (error instanceof JsonTextError && error.problem === 'malformed') return storableText(rawBody);
    }
  }
  const shown = Math.min(rawBody.length, payloadPreviewLimits.previewChars);
  return `${streamMessages.payloadTruncated(shown, rawBody.length)}\n${storableText(rawBody.slice(0, shown))}`;
}

/** Where a stream stands in the change log: after the change `id` of transaction `tx`. */
export interface ChangeCursor {
  tx: bigint;
  id: bigint;
}

export const formatChangeCursor = (cursor: ChangeCursor): string => `${cursor.tx}-${cursor.id}`;

/** The largest xid8 and bigint: a cursor beyond them would fail the feed's one query for every stream. */
const MAX_TX = 2n ** 64n - 1n;
const MAX_ID = 2n ** 63n - 1n;

/** A cursor from a browser's Last-Event-ID; null for anything else (a stream then starts afresh). */
export function parseChangeCursor(text: string): ChangeCursor | null {
  const match = changeIdPattern.exec(text);
  if (!match) return null;
  const cursor = { tx: BigInt(match[1]!), id: BigInt(match[2]!) };
  return cursor.tx <= MAX_TX && cursor.id <= MAX_ID ? cursor : null;
}

export function compareChangeCursors(a: ChangeCursor, b: ChangeCursor): number {
  if (a.tx !== b.tx) return a.tx < b.tx ? -1 : 1;
  return a.id === b.id ? 0 : a.id < b.id ? -1 : 1;
}

/**
 * Where a fresh stream starts: before every change of the transactions still running and
 * those to come. Changes of transactions already over are history, shown by the page's list.
 */
export async function streamStartCursor(db: Queryable): Promise<ChangeCursor> {
  const { rows } = await db.query<{ tx: string }>('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS tx');
  return { tx: BigInt(rows[0]!.tx), id: 0n };
}

/**
 * The changes after each flow's cursor, oldest first, in one query for all the streams
 * of a process, with what the console shows of each event.
 */
export async function listChangesAfter(db: Queryable, cursors: ReadonlyMap<string, ChangeCursor>, limit: number): Promise<EventChange[]> {
  if (cursors.size === 0) return [];
  const after = [...cursors.values()];
  // The horizon is read in the same statement, so every transaction below it is over
  // for this statement's snapshot too.
  const { rows } = await db.query<ChangeRow>(
    `SELECT c.id::text AS change_id, c.tx::text AS tx, c.flow_id, c.event_id, c.status, c.created_at,
            e.flow_type, e.source, e.dry_run, e.received_at, e.raw_body, e.error, e.attempt,
            c.arrival
       FROM unnest($1::text[], $2::xid8[], $3::bigint[]) AS s(flow_id, after_tx, after_id)
       JOIN event_changes c ON c.flow_id = s.flow_id AND (c.tx, c.id) > (s.after_tx, s.after_id)
       JOIN events e ON e.id = c.event_id
      WHERE c.tx < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY c.tx, c.id
      LIMIT $4`,
    [[...cursors.keys()], after.map((cursor) => cursor.tx.toString()), after.map((cursor) => cursor.id.toString()), limit],
  );
  const needTexts = rows.filter((row) => generatedStatuses.has(row.status));
  const texts = await listGeneratedTexts(db, needTexts.map((row) => ({ eventId: row.event_id, attempt: row.attempt })));
  return rows.map((row) => {
    const cursor = { tx: BigInt(row.tx), id: BigInt(row.change_id) };
    return {
      changeId: formatChangeCursor(cursor),
      cursor,
      flowId: row.flow_id,
      eventId: row.event_id,
      arrival: row.arrival,
      flowType: row.flow_type,
      status: row.status,
      source: row.source,
      dryRun: row.dry_run,
      receivedAt: row.received_at.toISOString(),
      changedAt: row.created_at.toISOString(),
      payload: payloadOf(row.raw_body),
      error: row.status === 'failed' || row.status === 'skipped' || row.status === 'rejected' ? row.error : null,
      generations: generatedStatuses.has(row.status) ? (texts.get(`${row.event_id}:${row.attempt}`) ?? []) : [],
    };
  });
}

async function listGeneratedTexts(db: Queryable, keys: Array<{ eventId: string; attempt: number }>): Promise<Map<string, GeneratedText[]>> {
  const byEvent = new Map<string, GeneratedText[]>();
  if (keys.length === 0) return byEvent;
  const { rows } = await db.query<{ event_id: string; attempt: number; assistant_name: string; klaviyo_property: string; text: string | null; error: string | null }>(
    `SELECT g.event_id, g.attempt, g.assistant_name, g.klaviyo_property, g.text, g.error
       FROM unnest($1::text[], $2::int[]) AS k(event_id, attempt)
       JOIN event_generations g ON g.event_id = k.event_id AND g.attempt = k.attempt
      ORDER BY g.created_at, g.klaviyo_property`,
    [keys.map((key) => key.eventId), keys.map((key) => key.attempt)],
  );
  for (const row of rows) {
    const key = `${row.event_id}:${row.attempt}`;
    const list = byEvent.get(key) ?? [];
    if (!list.some((text) => text.klaviyoProperty === row.klaviyo_property)) {
      list.push({ assistantName: row.assistant_name, klaviyoProperty: row.klaviyo_property, text: row.text, error: row.error });
    }
    byEvent.set(key, list);
  }
  return byEvent;
}

/**
 * How long the change log keeps a change: what a stream can resume across (a laptop lid
 * closed for a while). A console away for longer starts again from its page's list. Every
 * event leaves four or five changes, so a day of them was most of the database under a
 * steady load (docs/decisions/0033-steady-for-hours.md).
 */
export const CHANGE_LOG_KEEP_MINUTES = 15;

/**
 * Drops the changes older than `keepMinutes`, in slices, oldest first along the primary
 * key, so that no statement holds the (embedded, one-session) database for long. Each
 * slice reads only the `sliceSize` oldest rows (the table has no index on created_at:
 * migration 026), and the cleanup stops at the first slice that is not all old. Ids grow
 * with time; a row written by a transaction that started a little before a younger one's
 * is left for the next cleanup, seconds late.
 */
export async function deleteOldChanges(db: Queryable, sliceSize = 1_000, keepMinutes = CHANGE_LOG_KEEP_MINUTES): Promise<number> {
  let deleted = 0;
  for (;;) {
    const result = await db.query(
      `DELETE FROM event_changes WHERE id IN (
         SELECT id FROM (SELECT id, created_at FROM event_changes ORDER BY id LIMIT $1) AS oldest
          WHERE created_at < now() - make_interval(mins => $2))`,
      [sliceSize, keepMinutes],
    );
    deleted += result.rowCount ?? 0;
    if ((result.rowCount ?? 0) < sliceSize) return deleted;
  }
}

/** Account deletion: the owner's changes (the table keeps ids only, without a key to cascade from). */
export async function deleteOwnerChanges(db: Queryable, userId: string): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM event_changes WHERE user_id = $1', [userId]);
  return rowCount ?? 0;
}
