/** Time as the app sees it; tests substitute a clock they can move forward. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** The clock as lru-cache's `perf` option takes it, so cached entries expire on the app's time. */
export function cacheTimeOf(clock: Clock): { now(): number } {
  return { now: () => clock.now().getTime() };
}
