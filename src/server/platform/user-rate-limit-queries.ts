import type { Queryable } from '../database/database.ts';

/**
 * The per-user rate limit's uses (user_rate_limit_uses). Each use is a row, so every
 * server process counts the same window; the caller runs these in one transaction.
 */

/** Holds off other requests of this user and kind until the caller's transaction ends. */
export async function lockUserRateLimit(db: Queryable, userId: string, kind: string): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`rate:${userId}:${kind}`]);
}

/** Drops the uses that have left the window, so the table holds one window per user and kind. */
export async function forgetUsesUpTo(db: Queryable, userId: string, kind: string, windowStart: Date): Promise<void> {
  await db.query('DELETE FROM user_rate_limit_uses WHERE user_id = $1 AND kind = $2 AND used_at <= $3', [userId, kind, windowStart]);
}

/** How many uses the window holds, and when the oldest of them was. */
export async function countUses(db: Queryable, userId: string, kind: string): Promise<{ uses: number; oldest: Date | null }> {
  const { rows } = await db.query<{ uses: number; oldest: Date | null }>(
    'SELECT count(*)::int AS uses, min(used_at) AS oldest FROM user_rate_limit_uses WHERE user_id = $1 AND kind = $2',
    [userId, kind],
  );
  return rows[0]!;
}

export async function recordUse(db: Queryable, userId: string, kind: string, usedAt: Date): Promise<void> {
  await db.query('INSERT INTO user_rate_limit_uses (user_id, kind, used_at) VALUES ($1, $2, $3)', [userId, kind, usedAt]);
}
