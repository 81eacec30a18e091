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
