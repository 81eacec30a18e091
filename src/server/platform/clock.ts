/** Time as the app sees it; tests substitute a clock they can move forward. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * lru-cache options that make entries live `lifetimeMs` on the app's clock: its `perf`
 * reads our clock, and since lru-cache keeps an entry while its age is at most `ttl`,
 * the ttl is one millisecond less, so an entry is gone once its lifetime has passed.
 */
export function cacheLifetime(clock: Clock, lifetimeMs: number): { ttl: number; perf: { now(): number }; ttlResolution: 0 } {
  return { ttl: Math.max(1, lifetimeMs - 1), perf: { now: () => clock.now().getTime() }, ttlResolution: 0 };
}
