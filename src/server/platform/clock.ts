import { setTimeout as delay } from 'node:timers/promises';

/** Time as the app sees it; tests substitute a clock they can move forward. */
export interface Clock {
  now(): Date;
  /** Resolves after `milliseconds`; rejects when `signal` aborts first. Only for waits of a second or so: longer ones are scheduled. */
  sleep(milliseconds: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => new Date(),
  sleep: (milliseconds, signal) => delay(milliseconds, undefined, { signal }),
};

/**
 * lru-cache options that make entries live `lifetimeMs` on the app's clock: its `perf`
 * reads our clock, and since lru-cache keeps an entry while its age is at most `ttl`,
 * the ttl is one millisecond less, so an entry is gone once its lifetime has passed.
 */
export function cacheLifetime(clock: Clock, lifetimeMs: number): { ttl: number; perf: { now(): number }; ttlResolution: 0 } {
  return { ttl: Math.max(1, lifetimeMs - 1), perf: { now: () => clock.now().getTime() }, ttlResolution: 0 };
}
