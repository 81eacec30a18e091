import type { Queryable } from '../../database/database.ts';
import type { Clock } from '../../platform/clock.ts';

export interface RateWindow {
  limit: number;
  windowMs: number;
}

/**
 * Our clock and Klaviyo's differ, and a request reaches Klaviyo a little after it took its
 * slot; counting each window slightly longer than Klaviyo's keeps those from adding up to
 * a 429. The fixed part covers the trip from slot to arrival: 100 ms was too short for two
 * workers on a busy machine (two of 200 profile writes refused), 250 ms lets a write
 * arrive a quarter second late, for a burst of at most 75 writes in 1.3 s (58 a second).
 */
function paddedWindowMs(windowMs: number): number {
  return Math.round(windowMs * 1.05) + 250;
}

/**
 * The shared sliding log of Klaviyo requests per account and endpoint (klaviyo-rate-limiter.ts
 * decides): takes a slot now, or says how long from `at` until one frees up.
 */
export async function tryTakeSlot(
  db: Queryable,
  key: string,
  windows: RateWindow[],
  options: SlotOptions,
): Promise<{ taken: true } | { taken: false; waitMs: number; at: Date }> {
  try {
    return await takeSlotInOneStatement(db, key, windows, options);
  } catch (error) {
    if ((error as { code?: unknown }).code === LOCK_NOT_AVAILABLE) return { taken: false, waitMs: 1, at: options.clock.now() };
    throw error;
  }
}

/** The clock the uses are stamped with; `unlessBusy` to give up on a bucket whose lock is long in coming (BUSY_LOCK_TIMEOUT_MS). */
interface SlotOptions {
  clock: Pick<Clock, 'now'>;
  unlessBusy?: boolean;
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

/** One statement (take_klaviyo_slot, klaviyo-rate-functions.ts): the bucket's lock is held only while the database works. */
async function takeSlotInOneStatement(db: Queryable, key: string, windows: RateWindow[], options: SlotOptions): Promise<{ taken: true } | { taken: false; waitMs: number; at: Date }> {
  const { clock } = options;
  const { rows } = await db.query<{ wait_ms: number; stamped_at: Date }>('SELECT wait_ms, stamped_at FROM take_klaviyo_slot($1, $2, $3::int[], $4::float8[], $5)', [
    key,
    clock.now(),
    windows.map((window) => window.limit),
    windows.map((window) => paddedWindowMs(window.windowMs)),
    options.unlessBusy ? BUSY_LOCK_TIMEOUT_MS : null,
  ]);
  const slot = rows[0]!;
  return slot.wait_ms > 0 ? { taken: false, waitMs: slot.wait_ms, at: slot.stamped_at } : { taken: true };
}
