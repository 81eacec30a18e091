import { setTimeout as delay } from 'node:timers/promises';
import type { Clock } from '../../src/server/platform/clock.ts';

/**
 * A clock that moves only when a test says so. Its sleep waits for real and leaves the
 * time alone: the tests measure short in-place waits at the fakes, and many jobs sleep at
 * once, so letting each move the shared time would carry it far past what any test set.
 */
export class ManualClock implements Clock {
  private current: number;
  constructor(start: Date = new Date()) {
    this.current = start.getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(milliseconds: number): void {
    this.current += milliseconds;
  }
  sleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
    return delay(milliseconds, undefined, { signal });
  }
}
