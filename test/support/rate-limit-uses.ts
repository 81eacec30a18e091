import type pg from 'pg';
import type { UserRateLimitKind } from '../../src/server/platform/user-rate-limit.ts';

/**
 * Puts `count` uses of `kind` in the owner's window, made at `at`, as if the owner had
 * sent that many requests: reaching a limit of hundreds without sending hundreds.
 */
export async function fillRateLimitWindow(pool: pg.Pool, userId: string, kind: UserRateLimitKind, count: number, at: Date): Promise<void> {
  await pool.query('INSERT INTO user_rate_limit_uses (user_id, kind, used_at) SELECT $1, $2, $3 FROM generate_series(1, $4)', [userId, kind, at, count]);
}
