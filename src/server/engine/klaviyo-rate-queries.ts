import type pg from 'pg';
import { inTransaction } from '../database/database.ts';
import type { Clock } from '../platform/clock.ts';

export interface RateWindow {
  limit: number;
  windowMs: number;
}

/**
 * Our clock and Klaviyo's differ, and a request reaches Klaviyo a little after it took its
 * slot; counting each window slightly longer than Klaviyo's keeps those from adding up to
 * a 429.
 */
function paddedWindowMs(windowMs: number): number {
  return Math.round(windowMs * 1.05) + 100;
}

/**
 * The shared sliding log of Klaviyo requests per account and endpoint (klaviyo-rate-limiter.ts
 * decides): takes a slot now, or says how long from `at` until one frees up.
 */
export async function tryTakeSlot(
  pool: pg.Pool,
  key: string,
  windows: RateWindow[],
  clock: Pick<Clock, 'now'>,
  options: { unlessBusy?: boolean } = {},
): Promise<{ taken: true } | { taken: false; waitMs: number; at: Date }> {
  try {
    return await takeSlotInTransaction(pool, key, windows, clock, options);
  } catch (error) {
    if ((error as { code?: unknown }).code === LOCK_NOT_AVAILABLE) return { taken: false, waitMs: 1, at: clock.now() };
    throw error;
  }
}

/** PostgreSQL's error when `lock_timeout` ran out. */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * How long an `unlessBusy` caller waits for the bucket's lock. A slot's transaction holds
 * it for a few milliseconds and the line is at most a pool's worth of connections, so
 * deliveries arriving together under light load (or a slow machine) each get it well
 * within this; a line that takes longer means a backlog, and the caller is better off in
 * a bulk job than waiting here holding a connection. (SKIP LOCKED alone sent even the
 * second of two simultaneous deliveries to a batch on a server database.)
 */
const BUSY_LOCK_TIMEOUT_MS = 1_000;

async function takeSlotInTransaction(
  pool: pg.Pool,
  key: string,
  windows: RateWindow[],
  clock: Pick<Clock, 'now'>,
  options: { unlessBusy?: boolean },
): Promise<{ taken: true } | { taken: false; waitMs: number; at: Date }> {
  return inTransaction(pool, async (client) => {
    await client.query('INSERT INTO klaviyo_rate_buckets (bucket_key) VALUES ($1) ON CONFLICT DO NOTHING', [key]);
    if (options.unlessBusy) await client.query(`SET LOCAL lock_timeout = ${BUSY_LOCK_TIMEOUT_MS}`);
    await client.query('SELECT bucket_key FROM klaviyo_rate_buckets WHERE bucket_key = $1 FOR UPDATE', [key]);
    // Read once the lock is held: callers queue for it, and a use stamped before the wait
    // would leave the window early by that wait while its request goes out late.
    const now = clock.now();
    const longest = Math.max(...windows.map((window) => paddedWindowMs(window.windowMs)));
    await client.query(`DELETE FROM klaviyo_rate_uses WHERE bucket_key = $1 AND used_at < $3::timestamptz - make_interval(secs => $2::float8 / 1000)`, [
      key,
      longest,
      now,
    ]);
    let waitMs = 0;
    for (const window of windows) {
      const padded = paddedWindowMs(window.windowMs);
      // The limit-th newest use inside the window: while it is inside, the window is full.
      const { rows } = await client.query<{ frees_in_ms: number }>(
        `SELECT extract(epoch FROM (used_at + make_interval(secs => $2::float8 / 1000) - $4::timestamptz)) * 1000 AS frees_in_ms
           FROM klaviyo_rate_uses
          WHERE bucket_key = $1 AND used_at > $4::timestamptz - make_interval(secs => $2::float8 / 1000)
          ORDER BY used_at DESC
          OFFSET $3 LIMIT 1`,
        [key, padded, window.limit - 1, now],
      );
      if (rows[0]) waitMs = Math.max(waitMs, Math.ceil(Number(rows[0].frees_in_ms)));
    }
    if (waitMs > 0) return { taken: false, waitMs, at: now };
    await client.query('INSERT INTO klaviyo_rate_uses (bucket_key, used_at) VALUES ($1, $2)', [key, now]);
    return { taken: true };
  });
}

