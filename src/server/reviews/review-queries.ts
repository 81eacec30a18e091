import type { Queryable } from '../database/database.ts';

/**
 * The review list (docs/decisions/0040-texts-checked-before-delivery.md): one row per
 * attempt of an event whose flow requires approval. This module owns `text_reviews`.
 */
export type ReviewStatus = 'pending' | 'approved' | 'rejected' | 'expired';

export interface ReviewRecord {
  eventId: string;
  attempt: number;
  userId: string;
  flowId: string;
  status: ReviewStatus;
  decidedBy: 'owner' | 'automatic' | null;
  edited: boolean;
  expiresAt: Date;
  createdAt: Date;
  decidedAt: Date | null;
}

interface ReviewRow {
  event_id: string;
  attempt: number;
  user_id: string;
  flow_id: string;
  status: ReviewStatus;
  decided_by: 'owner' | 'automatic' | null;
  edited: boolean;
  expires_at: Date;
  created_at: Date;
  decided_at: Date | null;
}

const reviewColumns = 'event_id, attempt, user_id, flow_id, status, decided_by, edited, expires_at, created_at, decided_at';

function toReview(row: ReviewRow): ReviewRecord {
  return {
    eventId: row.event_id,
    attempt: row.attempt,
    userId: row.user_id,
    flowId: row.flow_id,
    status: row.status,
    decidedBy: row.decided_by,
    edited: row.edited,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    decidedAt: row.decided_at,
  };
}

export async function findReview(db: Queryable, eventId: string, attempt: number): Promise<ReviewRecord | null> {
  const { rows } = await db.query<ReviewRow>(`SELECT ${reviewColumns} FROM text_reviews WHERE event_id = $1 AND attempt = $2`, [eventId, attempt]);
  return rows[0] ? toReview(rows[0]) : null;
}

/**
 * Opens the review of an event's attempt: pending until `expiresAt`, or approved at once
 * when the flow's run of approvals has earned it. A review already there (a job run twice)
 * is kept as it is and returned.
 */
export async function openReview(
  db: Queryable,
  review: { eventId: string; attempt: number; userId: string; flowId: string; expiresAt: Date; now: Date; approvedAutomatically: boolean },
): Promise<ReviewRecord> {
  const { rows } = await db.query<ReviewRow>(
    `INSERT INTO text_reviews (event_id, attempt, user_id, flow_id, status, decided_by, expires_at, created_at, decided_at)
     VALUES ($1, $2, $3, $4, CASE WHEN $6 THEN 'approved' ELSE 'pending' END, CASE WHEN $6 THEN 'automatic' END, $5, $7, CASE WHEN $6 THEN $7::timestamptz END)
     ON CONFLICT (event_id, attempt) DO NOTHING
     RETURNING ${reviewColumns}`,
    [review.eventId, review.attempt, review.userId, review.flowId, review.expiresAt, review.approvedAutomatically, review.now],
  );
  return rows[0] ? toReview(rows[0]) : (await findReview(db, review.eventId, review.attempt))!;
}

/** The moment passed without a decision; false when the review was decided meanwhile. */
export async function expireReview(db: Queryable, eventId: string, attempt: number, now: Date): Promise<boolean> {
  const { rowCount } = await db.query(`UPDATE text_reviews SET status = 'expired', decided_at = $3 WHERE event_id = $1 AND attempt = $2 AND status = 'pending'`, [eventId, attempt, now]);
  return (rowCount ?? 0) > 0;
}

/**
 * The owner's decision on pending reviews of theirs, for the current attempt of each event;
 * the reviews decided (not those already decided, expired, or another owner's).
 */
export async function decideReviews(
  db: Queryable,
  userId: string,
  decision: { eventIds: string[]; status: 'approved' | 'rejected'; edited: boolean; now: Date },
): Promise<ReviewRecord[]> {
  if (decision.eventIds.length === 0) return [];
  const { rows } = await db.query<ReviewRow>(
    `UPDATE text_reviews AS review SET status = $3, decided_by = 'owner', edited = $4, decided_at = $5
       FROM events
      WHERE review.event_id = ANY($2::text[]) AND review.user_id = $1 AND review.status = 'pending' AND review.expires_at > $5
        AND events.id = review.event_id AND events.attempt = review.attempt
      RETURNING ${reviewColumns.split(', ').map((column) => `review.${column}`).join(', ')}`,
    [userId, decision.eventIds, decision.status, decision.edited, decision.now],
  );
  return rows.map(toReview);
}

/**
 * Whether the owner's last `count` decisions on the flow's texts were all approvals without
 * an edit: "approve automatically after N approved in a row". Reviews that expired or were
 * approved automatically do not count either way.
 */
export async function approvedInARow(db: Queryable, flowId: string, count: number): Promise<boolean> {
  const { rows } = await db.query<{ approved: boolean }>(
    `SELECT count(*) = $2 AND coalesce(bool_and(status = 'approved' AND NOT edited), false) AS approved
       FROM (SELECT status, edited FROM text_reviews WHERE flow_id = $1 AND decided_by = 'owner' ORDER BY decided_at DESC LIMIT $2) AS latest`,
    [flowId, count],
  );
  return rows[0]?.approved ?? false;
}

export interface PendingReview {
  eventId: string;
  attempt: number;
  flowType: string;
  shopperEmail: string | null;
  receivedAt: Date;
  expiresAt: Date;
}

/** The owner's reviews waiting for a decision whose moment lasts, the soonest to expire first. */
export async function listPendingReviews(db: Queryable, userId: string, now: Date, limit: number): Promise<PendingReview[]> {
  const { rows } = await db.query<{ event_id: string; attempt: number; flow_type: string; shopper_email: string | null; received_at: Date; expires_at: Date }>(
    `SELECT review.event_id, review.attempt, events.flow_type, events.shopper_email, events.received_at, review.expires_at
       FROM text_reviews AS review JOIN events ON events.id = review.event_id AND events.attempt = review.attempt
      WHERE review.user_id = $1 AND review.status = 'pending' AND review.expires_at > $2
      ORDER BY review.expires_at, review.event_id
      LIMIT ${Math.trunc(limit)}`,
    [userId, now],
  );
  return rows.map((row) => ({
    eventId: row.event_id,
    attempt: row.attempt,
    flowType: row.flow_type,
    shopperEmail: row.shopper_email,
    receivedAt: row.received_at,
    expiresAt: row.expires_at,
  }));
}

export async function countPendingReviews(db: Queryable, userId: string, now: Date): Promise<number> {
  const { rows } = await db.query<{ count: string }>(`SELECT count(*) AS count FROM text_reviews WHERE user_id = $1 AND status = 'pending' AND expires_at > $2`, [userId, now]);
  return Number(rows[0]?.count ?? 0);
}
