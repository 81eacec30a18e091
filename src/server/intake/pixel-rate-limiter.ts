import { LRUCache } from 'lru-cache';
import type { Clock } from '../platform/clock.ts';

/**
 * The browsing pixel's endpoint is public (docs/product/service-contracts.md §4: treat it
 * as untrusted), so each client address (request.ip: behind a proxy, what TRUST_PROXY
 * lets it name; an IPv6 client as its /64) gets a budget of events per minute. Counted in
 * this process's memory, not the database: the point is to turn a flood away before it
 * costs a query, and a real shopper's browser sends a few events a minute, far below any
 * budget (docs/decisions/0011-shopper-timers.md). A sliding window over two fixed minutes
 * keeps the count per address at two numbers; the table is a bounded LRU so a spray of
 * addresses cannot grow it without end. Why not @fastify/rate-limit: docs/decisions/0019.
 */
const WINDOW_MS = 60_000;
const MAX_TRACKED_SOURCES = 100_000;

interface Window {
  start: number;
  count: number;
  previous: number;
}

export class PixelRateLimiter {
  private readonly perMinute: number;
  private readonly clock: Clock;
  private readonly sources = new LRUCache<string, Window>({ max: MAX_TRACKED_SOURCES });

  constructor(perMinute: number, clock: Clock) {
    this.perMinute = perMinute;
    this.clock = clock;
  }

  /** Counts one event of `source`; null when allowed, else the seconds to wait. */
  take(source: string): number | null {
    const now = this.clock.now().getTime();
    const start = now - (now % WINDOW_MS);
    let window = this.sources.get(source);
    if (!window || window.start < start - WINDOW_MS) window = { start, count: 0, previous: 0 };
    else if (window.start < start) window = { start, count: 0, previous: window.count };
    const weightOfPrevious = 1 - (now - start) / WINDOW_MS;
    const estimate = window.previous * weightOfPrevious + window.count;
    if (estimate + 1 > this.perMinute) {
      this.remember(source, window);
      return Math.max(1, Math.ceil((start + WINDOW_MS - now) / 1000));
    }
    window.count += 1;
    this.remember(source, window);
    return null;
  }

  private remember(source: string, window: Window): void {
    this.sources.set(source, window);
  }
}
