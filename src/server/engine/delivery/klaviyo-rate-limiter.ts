import { createHash } from 'node:crypto';
import type { Queryable } from '../../database/database.ts';
import type { Clock } from '../../platform/clock.ts';
import { RateLimitWait } from '../spine/rate-limit-wait.ts';
import { tryTakeSlot, type RateWindow } from './klaviyo-rate-queries.ts';

/**
 * Klaviyo's limits are per account, so they must hold across every worker process
 * together: each request first takes a slot here. A slot is a row in
 * `klaviyo_rate_uses`; the account's bucket row is locked (SELECT … FOR UPDATE) while the
 * requests of each window are counted, so two processes cannot both take the last slot;
 * counted and taken in one statement, so the lock is held only while the database works.
 * Counting a sliding log (rather than refilling a token bucket) keeps "at most N in any
 * window" true for every window, whichever way Klaviyo aligns its own. Uses are stamped
 * with the app's clock, like every other time the engine keeps, so a test's manual clock
 * moves the windows too.
 */
export type KlaviyoEndpoint =
  | 'profiles'
  | 'profiles-predictive'
  | 'profile-import'
  | 'events'
  | 'profile-bulk-import-jobs'
  | 'profile-bulk-import-job'
  | 'profile-bulk-import-errors'
  | 'event-bulk-create-jobs';

export type KlaviyoRateLimits = Record<KlaviyoEndpoint, RateWindow[]>;

/**
 * docs/product/service-contracts.md §3: profile writes 75/s burst, 700/min steady; events 350/s, 3,500/min;
 * each bulk endpoint 10/s, 150/min.
 * Profile lookups (GET /api/profiles) are Klaviyo's "L" tier, like profile writes.
 */
export const klaviyoAccountLimits: KlaviyoRateLimits = {
  profiles: [
    { limit: 75, windowMs: 1_000 },
    { limit: 700, windowMs: 60_000 },
  ],
  // A profile look-up that asks for predictive analytics has its own, slower limit
  // (getProfiles: "10/s burst; 150/m steady" with additional-fields[profile]=predictive_analytics).
  'profiles-predictive': mTier(),
  'profile-import': [
    { limit: 75, windowMs: 1_000 },
    { limit: 700, windowMs: 60_000 },
  ],
  events: [
    { limit: 350, windowMs: 1_000 },
    { limit: 3_500, windowMs: 60_000 },
  ],
  // The bulk endpoints, Klaviyo's "M" tier: 10/s, 150/min each.
  'profile-bulk-import-jobs': mTier(),
  'profile-bulk-import-job': mTier(),
  'profile-bulk-import-errors': mTier(),
  'event-bulk-create-jobs': mTier(),
};

function mTier() {
  return [
    { limit: 10, windowMs: 1_000 },
    { limit: 150, windowMs: 60_000 },
  ];
}

export function bucketKey(apiKey: string, endpoint: KlaviyoEndpoint): string {
  return `${createHash('sha256').update(apiKey).digest('hex').slice(0, 32)}:${endpoint}`;
}

/**
 * Takes a slot for one more request of the account to `endpoint`. A slot that frees
 * within `maxInPlaceWaitMs` (in all) is waited for here, without holding a connection;
 * one further off throws RateLimitWait, so the worker slot is given up and the event waits
 * for it. With `limits` null, as when an account's limits are raised or in benchmarks
 * against an unlimited fake, it returns at once.
 */
export async function takeKlaviyoSlot(
  db: Queryable,
  apiKey: string,
  endpoint: KlaviyoEndpoint,
  options: { limits: KlaviyoRateLimits | null; clock: Clock; maxInPlaceWaitMs: number; signal?: AbortSignal; unlessBusy?: boolean },
): Promise<void> {
  const { limits } = options;
  if (!limits) return;
  const key = bucketKey(apiKey, endpoint);
  let waitedMs = 0;
  for (;;) {
    const slot = await tryTakeSlot(db, key, limits[endpoint], { clock: options.clock, unlessBusy: options.unlessBusy });
    if (slot.taken) return;
    // Spread the waiters out so they do not all come back in the same millisecond.
    const waitMs = slot.waitMs + Math.round(Math.random() * 50);
    if (waitedMs + waitMs > options.maxInPlaceWaitMs) throw new RateLimitWait('klaviyo', new Date(slot.at.getTime() + slot.waitMs));
    await options.clock.sleep(waitMs, options.signal);
    waitedMs += waitMs;
  }
}
