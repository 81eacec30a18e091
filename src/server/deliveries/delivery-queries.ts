import type { Queryable } from '../database/database.ts';
import type { ProfilePropertyValue } from '../../shared/flows/recommendation-schemas.ts';

/** The Klaviyo delivery of one event attempt, step by step. */
export interface DeliveryRecord {
  id: string;
  eventId: string;
  attempt: number;
  status: 'pending' | 'delivered' | 'failed';
  properties: Record<string, ProfilePropertyValue>;
  profileId: string | null;
  profileCreated: boolean | null;
  profileWrittenAt: Date | null;
  klaviyoEventName: string | null;
  eventSentAt: Date | null;
  error: string | null;
  /** Set when the delivery waits for (or went in) a bulk import job rather than a single write. */
  batchedAt: Date | null;
  /** A holdout shopper's delivery (an experiment's): it clears the flow's properties instead of writing texts. */
  holdout: boolean;
}

interface DeliveryRow {
  id: string;
  event_id: string;
  attempt: number;
  status: 'pending' | 'delivered' | 'failed';
  properties: Record<string, ProfilePropertyValue>;
  profile_id: string | null;
  profile_created: boolean | null;
  profile_written_at: Date | null;
  klaviyo_event_name: string | null;
  event_sent_at: Date | null;
  error: string | null;
  batched_at: Date | null;
  holdout: boolean;
}

/**
 * The properties a delivery wrote, read from a row of `event_deliveries` named `alias`.
 * A property whose value is its own text (the event attempt's generation of that
 * property) is stored as its name in `text_properties`, not as a second copy of the text:
 * the copy was 449 of a delivery's 705 bytes, and was written again with every step of
 * the delivery (docs/decisions/0057-compact-stored-checks.md). The texts read back are the
 * ones sent: once a delivery exists, the database keeps its attempt's texts as they were
 * (docs/decisions/0062-delivered-texts-kept.md). Rows stored before keep every property in
 * `properties` and no names.
 */
export function deliveredPropertiesOf(alias: string): string {
  return `(${alias}.properties || coalesce((SELECT jsonb_object_agg(g.klaviyo_property, g.text) FROM event_generations g
            WHERE g.event_id = ${alias}.event_id AND g.attempt = ${alias}.attempt AND g.klaviyo_property = ANY(${alias}.text_properties)), '{}'::jsonb))`;
}

const deliveryColumns = `id, event_id, attempt, status, ${deliveredPropertiesOf('event_deliveries')} AS properties, profile_id, profile_created, profile_written_at, klaviyo_event_name, event_sent_at, error, batched_at, holdout`;

function toDelivery(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    eventId: row.event_id,
    attempt: row.attempt,
    status: row.status,
    properties: row.properties,
    profileId: row.profile_id,
    profileCreated: row.profile_created,
    profileWrittenAt: row.profile_written_at,
    klaviyoEventName: row.klaviyo_event_name,
    eventSentAt: row.event_sent_at,
    error: row.error,
    batchedAt: row.batched_at,
    holdout: row.holdout,
  };
}

/**
 * The delivery of this attempt: created on the first try with the texts to deliver, and
 * returned unchanged to every retry of the job, which then resumes after the last step
 * that succeeded.
 */
export async function startDelivery(
  db: Queryable,
  delivery: { id: string; eventId: string; attempt: number; properties: Record<string, ProfilePropertyValue>; klaviyoEventName: string | null; holdout: boolean },
): Promise<DeliveryRecord> {
  // The properties that are this attempt's texts, exactly as written, are kept by name (deliveredPropertiesOf).
  await db.query(
    `INSERT INTO event_deliveries (id, event_id, attempt, status, properties, text_properties, klaviyo_event_name, holdout)
     SELECT $1, $2, $3, 'pending',
            coalesce((SELECT jsonb_object_agg(property.key, property.value) FROM jsonb_each($4::jsonb) AS property WHERE property.key <> ALL(own.names)), '{}'::jsonb),
            nullif(own.names, '{}'), $5, $6
       FROM (SELECT coalesce(array_agg(property.key), '{}') AS names
               FROM jsonb_each($4::jsonb) AS property
               JOIN event_generations g ON g.event_id = $2 AND g.attempt = $3 AND g.klaviyo_property = property.key AND to_jsonb(g.text) = property.value) AS own
     ON CONFLICT (event_id, attempt) DO NOTHING`,
    [delivery.id, delivery.eventId, delivery.attempt, JSON.stringify(delivery.properties), delivery.klaviyoEventName, delivery.holdout],
  );
  const { rows } = await db.query<DeliveryRow>(`SELECT ${deliveryColumns} FROM event_deliveries WHERE event_id = $1 AND attempt = $2`, [
    delivery.eventId,
    delivery.attempt,
  ]);
  return toDelivery(rows[0]!);
}

export async function recordProfileWritten(db: Queryable, deliveryId: string, result: { profileId: string; created: boolean }): Promise<void> {
  await db.query(
    'UPDATE event_deliveries SET profile_id = $2, profile_created = $3, profile_written_at = now(), updated_at = now() WHERE id = $1',
    [deliveryId, result.profileId, result.created],
  );
}

export async function recordKlaviyoEventSent(db: Queryable, deliveryId: string): Promise<void> {
  await db.query('UPDATE event_deliveries SET event_sent_at = now(), updated_at = now() WHERE id = $1', [deliveryId]);
}

export async function finishDelivery(db: Queryable, deliveryId: string, status: 'delivered' | 'failed', error: string | null = null): Promise<void> {
  await db.query('UPDATE event_deliveries SET status = $2, error = $3, updated_at = now() WHERE id = $1', [deliveryId, status, error]);
}

export async function listDeliveries(db: Queryable, eventId: string): Promise<DeliveryRecord[]> {
  const { rows } = await db.query<DeliveryRow>(`SELECT ${deliveryColumns} FROM event_deliveries WHERE event_id = $1 ORDER BY attempt DESC`, [eventId]);
  return rows.map(toDelivery);
}

/** Ends this attempt's delivery, if one was started and is not finished, as failed with the event's reason. */
export async function failPendingDelivery(db: Queryable, eventId: string, attempt: number, error: string): Promise<void> {
  await db.query(`UPDATE event_deliveries SET status = 'failed', error = $3, updated_at = now() WHERE event_id = $1 AND attempt = $2 AND status = 'pending'`, [
    eventId,
    attempt,
    error,
  ]);
}

/**
 * How far an attempt has got: texts stored plus Klaviyo steps done. A failed try that got
 * further than the one before is a new step failing, so its count of tries starts again.
 */
export async function progressOf(db: Queryable, eventId: string, attempt: number): Promise<number> {
  const { rows } = await db.query<{ progress: number }>(
    `SELECT (SELECT count(*) FROM event_generations WHERE event_id = $1 AND attempt = $2 AND status = 'succeeded')::int
          + (SELECT count(profile_written_at) + count(event_sent_at) FROM event_deliveries WHERE event_id = $1 AND attempt = $2)::int AS progress`,
    [eventId, attempt],
  );
  return rows[0]?.progress ?? 0;
}
