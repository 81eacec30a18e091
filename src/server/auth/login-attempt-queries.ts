import type { Queryable } from '../database/database.ts';

/**
 * The login lockout's counters (login_attempts), one row per key (an account or a client
 * address), kept in the database so every server process sees the same lock.
 */

/** The latest end of a lock on any of `keys`, or null when none was ever set. */
export async function latestLockEnd(db: Queryable, keys: string[]): Promise<Date | null> {
  const { rows } = await db.query<{ locked_until: Date | null }>(
    'SELECT locked_until FROM login_attempts WHERE key = ANY($1) AND locked_until IS NOT NULL',
    [keys],
  );
  return rows.reduce<Date | null>((latest, row) => (latest === null || row.locked_until!.getTime() > latest.getTime() ? row.locked_until : latest), null);
}

/**
 * Counts one failure on `key` in one statement, so concurrent failures all count: an
 * expired lock, or a failure after a quiet window (`countsFrom`, null: never quiet),
 * starts a fresh count; the failure that reaches `attempts` locks the key until
 * `lockUntil`. Returns true when this failure set the lock.
 */
export async function countFailedAttempt(
  db: Queryable,
  key: string,
  failure: { at: Date; lockUntil: Date; attempts: number; countsFrom: Date | null },
): Promise<boolean> {
  const { rows } = await db.query<{ locked: boolean }>(
    `INSERT INTO login_attempts AS a (key, failures, locked_until, updated_at)
     VALUES ($1, 1, NULL, $2)
     ON CONFLICT (key) DO UPDATE SET
       failures = CASE WHEN (a.locked_until IS NOT NULL AND a.locked_until <= $2) OR a.updated_at <= $5::timestamptz THEN 1 ELSE a.failures + 1 END,
       locked_until = CASE
         WHEN a.locked_until IS NOT NULL AND a.locked_until > $2 THEN a.locked_until
         WHEN (CASE WHEN (a.locked_until IS NOT NULL AND a.locked_until <= $2) OR a.updated_at <= $5::timestamptz THEN 1 ELSE a.failures + 1 END) >= $4 THEN $3
         ELSE NULL END,
       updated_at = $2
     RETURNING locked_until IS NOT NULL AND locked_until = $3 AS locked`,
    [key, failure.at, failure.lockUntil, failure.attempts, failure.countsFrom],
  );
  return rows.some((row) => row.locked);
}

export async function forgetFailedAttempts(db: Queryable, key: string): Promise<void> {
  await db.query('DELETE FROM login_attempts WHERE key = $1', [key]);
}
