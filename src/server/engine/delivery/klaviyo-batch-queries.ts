import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { inTransaction, type Queryable } from '../../database/database.ts';
import type { ProfilePropertyValue } from '../../../shared/flows/recommendation-schemas.ts';
import { deliveredPropertiesOf } from '../../deliveries/delivery-queries.ts';

/** The queue of deliveries waiting for a bulk import job, and the jobs (klaviyo-batches.ts decides). */
export interface BatchDelivery {
  id: string;
  eventId: string;
  attempt: number;
  email: string;
  firstName: string | null;
  lastName: string | null;
  properties: Record<string, ProfilePropertyValue>;
  klaviyoEventName: string | null;
  profileWrittenAt: Date | null;
  eventSentAt: Date | null;
  /** When its event was received: which services an owner's events go to depends on it. */
  eventReceivedAt: Date;
}

export interface Batch {
  id: string;
  userId: string;
  status: 'importing' | 'sending_events' | 'done';
  jobId: string | null;
  /** When its import job was posted: a job is followed only so long. */
  jobPostedAt: Date | null;
  /** Tries of the batch that failed so far (Klaviyo could not be asked, or kept failing). */
  failedTries: number;
}

type BatchRow = { id: string; user_id: string; status: Batch['status']; job_id: string | null; job_posted_at: Date | null; failed_tries: number };
const batchColumns = 'id, user_id, status, job_id, job_posted_at, failed_tries';

/** Queues a pending delivery for the owner's next bulk import job. */
export async function queueDeliveryForBatch(
  db: Queryable,
  deliveryId: string,
  values: { userId: string; email: string; firstName: string | null; lastName: string | null; at: Date },
): Promise<void> {
  await db.query(
    `UPDATE event_deliveries SET user_id = $2, email = $3, first_name = $4, last_name = $5, batched_at = $6, updated_at = now()
      WHERE id = $1 AND status = 'pending' AND batched_at IS NULL`,
    [deliveryId, values.userId, values.email, values.firstName, values.lastName, values.at],
  );
}

/**
 * Whether any delivery of the owner waits for a batch now. Asked before every single
 * write; a count read the whole queue each time (11 ms per event under a backlog of
 * thousands, in bench:delivery) where the first row answers.
 */
export async function hasQueuedDeliveries(db: Queryable, userId: string): Promise<boolean> {
  const { rows } = await db.query<{ queued: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM event_deliveries WHERE user_id = $1 AND status = 'pending' AND batched_at IS NOT NULL AND batch_id IS NULL) AS queued`,
    [userId],
  );
  return rows[0]!.queued;
}

/**
 * Takes a batch to work on: one whose worker's lease ran out (a crash), else a new one of
 * up to `maxDeliveries` queued deliveries of the owner who has waited longest. SKIP LOCKED
 * lets several workers form batches at once without taking the same delivery.
 */
export async function claimBatch(pool: pg.Pool, options: { now: Date; leaseMs: number; maxDeliveries: number }): Promise<Batch | null> {
  return inTransaction(pool, async (client) => {
    const lease = new Date(options.now.getTime() + options.leaseMs);
    const stale = await client.query<BatchRow>(
      `UPDATE klaviyo_batches SET lease_until = $2, updated_at = now()
        WHERE id = (SELECT id FROM klaviyo_batches WHERE status <> 'done' AND lease_until < $1 ORDER BY lease_until LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING ${batchColumns}`,
      [options.now, lease],
    );
    if (stale.rows[0]) return toBatch(stale.rows[0]);
    const oldest = await client.query<{ user_id: string }>(
      `SELECT user_id FROM event_deliveries
        WHERE status = 'pending' AND batched_at IS NOT NULL AND batch_id IS NULL
        ORDER BY batched_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
    );
    const userId = oldest.rows[0]?.user_id;
    if (!userId) return null;
    const id = randomUUID();
    await client.query(`INSERT INTO klaviyo_batches (id, user_id, status, lease_until) VALUES ($1, $2, 'importing', $3)`, [id, userId, lease]);
    await client.query(
      `UPDATE event_deliveries SET batch_id = $1, updated_at = now()
        WHERE id IN (SELECT id FROM event_deliveries
                      WHERE user_id = $2 AND status = 'pending' AND batched_at IS NOT NULL AND batch_id IS NULL
                      ORDER BY batched_at LIMIT $3 FOR UPDATE SKIP LOCKED)`,
      [id, userId, options.maxDeliveries],
    );
    return { id, userId, status: 'importing', jobId: null, jobPostedAt: null, failedTries: 0 };
  });
}

function toBatch(row: BatchRow): Batch {
  return { id: row.id, userId: row.user_id, status: row.status, jobId: row.job_id, jobPostedAt: row.job_posted_at, failedTries: row.failed_tries };
}

export async function listBatchDeliveries(db: Queryable, batchId: string): Promise<BatchDelivery[]> {
  const { rows } = await db.query<{
    id: string;
    event_id: string;
    attempt: number;
    email: string;
    first_name: string | null;
    last_name: string | null;
    properties: Record<string, ProfilePropertyValue>;
    klaviyo_event_name: string | null;
    profile_written_at: Date | null;
    event_sent_at: Date | null;
    received_at: Date;
  }>(
    `SELECT d.id, d.event_id, d.attempt, d.email, d.first_name, d.last_name, ${deliveredPropertiesOf('d')} AS properties, d.klaviyo_event_name, d.profile_written_at, d.event_sent_at, e.received_at
       FROM event_deliveries d JOIN events e ON e.id = d.event_id
      WHERE d.batch_id = $1 AND d.status = 'pending' ORDER BY d.batched_at`,
    [batchId],
  );
  return rows.map((row) => ({
    id: row.id,
    eventId: row.event_id,
    attempt: row.attempt,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    properties: row.properties,
    klaviyoEventName: row.klaviyo_event_name,
    profileWrittenAt: row.profile_written_at,
    eventSentAt: row.event_sent_at,
    eventReceivedAt: row.received_at,
  }));
}

/** Moves the batch on (its job posted, its events sent, done) and holds it for another lease. */
export async function updateBatch(db: Queryable, batchId: string, values: { status?: Batch['status']; jobId?: string; jobPostedAt?: Date; leaseUntil: Date }): Promise<void> {
  await db.query(
    `UPDATE klaviyo_batches SET status = COALESCE($2, status), job_id = COALESCE($3, job_id), job_posted_at = COALESCE($5, job_posted_at), lease_until = $4, updated_at = now() WHERE id = $1`,
    [batchId, values.status ?? null, values.jobId ?? null, values.leaseUntil, values.jobPostedAt ?? null],
  );
}

/** A try of the batch failed: it is taken up again at `retryAt` (its lease's end), unless it is done. */
export async function recordBatchFailure(db: Queryable, batchId: string, values: { failedTries: number; error: string; retryAt: Date; done: boolean }): Promise<void> {
  await db.query(
    `UPDATE klaviyo_batches SET failed_tries = $2, last_error = $3, lease_until = $4, status = CASE WHEN $5 THEN 'done' ELSE status END, updated_at = now() WHERE id = $1`,
    [batchId, values.failedTries, values.error, values.retryAt, values.done],
  );
}

/** Marks the profiles of a completed job written (one statement for the whole batch). */
export async function recordBatchProfilesWritten(db: Queryable, deliveryIds: string[]): Promise<void> {
  if (deliveryIds.length === 0) return;
  await db.query(`UPDATE event_deliveries SET profile_written_at = now(), updated_at = now() WHERE id = ANY($1) AND profile_written_at IS NULL`, [deliveryIds]);
}

export async function recordBatchEventsSent(db: Queryable, deliveryIds: string[]): Promise<void> {
  if (deliveryIds.length === 0) return;
  await db.query(`UPDATE event_deliveries SET event_sent_at = now(), updated_at = now() WHERE id = ANY($1) AND event_sent_at IS NULL`, [deliveryIds]);
}

/**
 * Marks every delivery of the batch whose profile was written as delivered (but not one
 * whose Klaviyo event was refused since: it failed), in one
 * statement, and returns their events (a batch of 10,000 took 10,000 round trips here).
 */
export async function finishBatchDeliveries(db: Queryable, batchId: string): Promise<Array<{ eventId: string; attempt: number }>> {
  const { rows } = await db.query<{ event_id: string; attempt: number }>(
    `UPDATE event_deliveries SET status = 'delivered', error = NULL, updated_at = now()
      WHERE batch_id = $1 AND profile_written_at IS NOT NULL AND status <> 'failed'
      RETURNING event_id, attempt`,
    [batchId],
  );
  return rows.map((row) => ({ eventId: row.event_id, attempt: row.attempt }));
}

/** Deliveries of a batch that did not go in its job (over 5 MB) go back to the queue. */
export async function releaseUnsentDeliveries(db: Queryable, batchId: string): Promise<void> {
  await db.query(`UPDATE event_deliveries SET batch_id = NULL, updated_at = now() WHERE batch_id = $1 AND status = 'pending' AND profile_written_at IS NULL`, [batchId]);
}

/**
 * Retention: an owner's finished bulk jobs created before `cutoff` (their deliveries went
 * with their events), at most `limit` a call. An unfinished one is left to finish.
 */
export async function deleteFinishedBatchesBefore(db: Queryable, userId: string, cutoff: Date, limit: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM klaviyo_batches WHERE id IN (
       SELECT id FROM klaviyo_batches WHERE user_id = $1 AND status = 'done' AND created_at < $2 ORDER BY created_at LIMIT $3 FOR UPDATE SKIP LOCKED)`,
    [userId, cutoff, limit],
  );
  return rowCount ?? 0;
}
