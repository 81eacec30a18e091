import { createHash } from 'node:crypto';
import type pg from 'pg';
import { inTransaction } from '../database/database.ts';
import type { Clock } from '../platform/clock.ts';
import { RateLimitWait } from './rate-limit-wait.ts';

/**
 * Klaviyo's limits are per account, so they must hold across every worker process
 * together: each request first takes a slot here. A slot is a row in
 * `klaviyo_rate_uses`; the account's bucket row is locked (SELECT … FOR UPDATE) while the
 * requests of each window are counted, so two processes cannot both take the last slot.
 * Counting a sliding log (rather than refilling a token bucket) keeps "at most N in any
 * window" true for every window, whichever way Klaviyo aligns its own. Uses are stamped
 * with the app's clock, like every other time the engine keeps, so a test's manual clock
 * moves the windows too.
 */
export type KlaviyoEndpoint = 'profiles' | 'profile-import' | 'events';

export interface RateWindow {
  limit: number;
  windowMs: number;
}

export type KlaviyoRateLimits = Record<KlaviyoEndpoint, RateWindow[]>;

/**
 * INTEGRATIONS.md: profile writes 75/s burst, 700/min steady; events 350/s, 3,500/min.
 * Profile lookups (GET /api/profiles) are Klaviyo's "L" tier, like profile writes.
 */
export const klaviyoAccountLimits: KlaviyoRateLimits = {
  profiles: [
    { limit: 75, windowMs: 1_000 },
    { limit: 700, windowMs: 60_000 },
  ],
  'profile-import': [
    { limit: 75, windowMs: 1_000 },
    { limit: 700, windowMs: 60_000 },
  ],
  events: [
    { limit: 350, windowMs: 1_000 },
    { limit: 3_500, windowMs: 60_000 },
  ],
};

/**
 * Our clock and Klaviyo's differ, and a request reaches Klaviyo a little after it took its
 * slot; counting each window slightly longer than Klaviyo's keeps those from adding up to
 * a 429.
 */
function paddedWindowMs(windowMs: number): number {
  return Math.round(windowMs * 1.05) + 100;
}

export function bucketKey(apiKey: string, endpoint: KlaviyoEndpoint): string {
  return `${createHash('sha256').update(apiKey).digest('hex').slice(0, 32)}:${endpoint}`;
}

/** Takes a slot now, or says how long from `at` until one frees up. */
export async function tryTakeSlot(
  pool: pg.Pool,
  key: string,
  windows: RateWindow[],
  clock: Pick<Clock, 'now'>,
): Promise<{ taken: true } | { taken: false; waitMs: number; at: Date }> {
  return inTransaction(pool, async (client) => {
    await client.query('INSERT INTO klaviyo_rate_buckets (bucket_key) VALUES ($1) ON CONFLICT DO NOTHING', [key]);
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

/**
 * Takes a slot for one more request of the account to `endpoint`. A slot that frees
 * within `maxInPlaceWaitMs` (in all) is waited for here, without holding a connection;
 * one further off throws RateLimitWait, so the worker slot is given up and the event waits
 * for it. With `limits` null, as when an account's limits are raised or in benchmarks
 * against an unlimited fake, it returns at once.
 */
export async function takeKlaviyoSlot(
  pool: pg.Pool,
  apiKey: string,
  endpoint: KlaviyoEndpoint,
  limits: KlaviyoRateLimits | null,
  options: { clock: Clock; maxInPlaceWaitMs: number; signal?: AbortSignal },
): Promise<void> {
  if (!limits) return;
  const key = bucketKey(apiKey, endpoint);
  let waitedMs = 0;
  for (;;) {
    const slot = await tryTakeSlot(pool, key, limits[endpoint], options.clock);
    if (slot.taken) return;
    // Spread the waiters out so they do not all come back in the same millisecond.
    const waitMs = slot.waitMs + Math.round(Math.random() * 50);
    if (waitedMs + waitMs > options.maxInPlaceWaitMs) throw new RateLimitWait('klaviyo', new Date(slot.at.getTime() + slot.waitMs));
    await options.clock.sleep(waitMs, options.signal);
    waitedMs += waitMs;
  }
}
