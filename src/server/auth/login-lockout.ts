import type { Queryable } from '../database/database.ts';
import type { Clock } from '../platform/clock.ts';
import { LOGIN_LOCKOUT_ATTEMPTS, LOGIN_LOCKOUT_SECONDS } from '../../shared/constants.ts';

/**
 * SPEC.md's lockout, enforced by the server: 5 consecutive failed sign-ins lock the
 * account and the client address for 60 seconds; the lock's end, or a success, resets
 * the count. Counted in the database so every server process sees the same lock.
 */
export function lockoutKeys(email: string, clientAddress: string): string[] {
  return [`account:${email.toLowerCase()}`, `address:${clientAddress}`];
}

/** Seconds until every lock on `keys` ends, or 0 when none holds. */
export async function secondsUntilUnlocked(db: Queryable, keys: string[], clock: Clock): Promise<number> {
  const { rows } = await db.query<{ locked_until: Date | null }>(
    'SELECT locked_until FROM login_attempts WHERE key = ANY($1) AND locked_until IS NOT NULL',
    [keys],
  );
  const now = clock.now().getTime();
  const latest = Math.max(0, ...rows.map((row) => row.locked_until!.getTime()));
  return latest > now ? Math.ceil((latest - now) / 1000) : 0;
}

/** Counts one failure on each key; returns true when that failure set a lock. */
export async function recordFailedSignIn(db: Queryable, keys: string[], clock: Clock): Promise<boolean> {
  const now = clock.now();
  const lockUntil = new Date(now.getTime() + LOGIN_LOCKOUT_SECONDS * 1000);
  // An expired lock starts a fresh count, as SPEC.md's "unlocks and the counter resets".
  const { rows } = await db.query<{ locked: boolean }>(
    `INSERT INTO login_attempts AS a (key, failures, locked_until, updated_at)
       SELECT k, 1, NULL, $2 FROM unnest($1::text[]) AS k
     ON CONFLICT (key) DO UPDATE SET
       failures = CASE WHEN a.locked_until IS NOT NULL AND a.locked_until <= $2 THEN 1 ELSE a.failures + 1 END,
       locked_until = CASE
         WHEN a.locked_until IS NOT NULL AND a.locked_until > $2 THEN a.locked_until
         WHEN (CASE WHEN a.locked_until IS NOT NULL AND a.locked_until <= $2 THEN 1 ELSE a.failures + 1 END) >= $4 THEN $3
         ELSE NULL END,
       updated_at = $2
     RETURNING locked_until IS NOT NULL AND locked_until = $3 AS locked`,
    [keys, now, lockUntil, LOGIN_LOCKOUT_ATTEMPTS],
  );
  return rows.some((row) => row.locked);
}

export async function clearFailedSignIns(db: Queryable, keys: string[]): Promise<void> {
  await db.query('DELETE FROM login_attempts WHERE key = ANY($1)', [keys]);
}
