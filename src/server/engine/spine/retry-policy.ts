import type { ServiceError } from '../../integrations/service-error.ts';

/**
 * How patiently a failing call to OpenAI, Klaviyo or Shopify is tried again: like Shopify
 * retries its own webhook deliveries, 8 tries over about 4 hours, each wait longer than
 * the one before, or longer still when the service asks for it with Retry-After. The
 * waits are not slept in a worker slot: the event waits (status `waiting`) and the timer
 * sweep sends its job when the next try is due, on the app's clock
 * (docs/decisions/0014-patient-retries-and-caps.md). Only a Retry-After of a second or so
 * is waited in place, since scheduling would cost more than it saves.
 */
export interface RetryPolicy {
  /** Tries of a step that keeps failing without getting further, the first included. */
  tries: number;
  /** The wait before the 2nd, 3rd … try; the last one repeats if there are more tries. */
  delaysMs: number[];
  /** Each wait is spread by up to this fraction either way, so failed events do not all come back together. */
  jitter: number;
  /**
   * A Retry-After up to this long is waited in the worker slot, once per call; so is a
   * rate-limit slot (Klaviyo's, Shopify's) that frees this soon. Anything longer is scheduled.
   */
  maxInPlaceWaitMs: number;
  /** A service asking for a longer wait than this ends the tries: the event fails and can be replayed. */
  maxRetryAfterMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  tries: 8,
  // 30 s, 2 min, 5 min, 15 min, 30 min, 1 h, 2 h: about 4 hours from the first try to the last.
  delaysMs: [30_000, 120_000, 300_000, 900_000, 1_800_000, 3_600_000, 7_200_000],
  jitter: 0.2,
  maxInPlaceWaitMs: 1_000,
  maxRetryAfterMs: 6 * 60 * 60_000,
};

/**
 * The wait before the next try, after `failedTries` tries in a row failed: the policy's
 * step for it with jitter, but never shorter than what the service asked for.
 */
export function nextTryDelay(policy: RetryPolicy, failedTries: number, retryAfterMs: number | null, random: () => number = Math.random): number {
  const step = policy.delaysMs[Math.min(Math.max(failedTries, 1), policy.delaysMs.length) - 1] ?? 0;
  const spread = step * policy.jitter * (2 * random() - 1);
  return Math.max(Math.round(step + spread), retryAfterMs ?? 0);
}

/** Why the next try is not worth scheduling, or null when it is. */
export function retryRefusal(policy: RetryPolicy, error: Pick<ServiceError, 'retryable' | 'retryAfterMs'>, failedTries: number): 'permanent' | 'tries_used_up' | 'wait_too_long' | null {
  if (!error.retryable) return 'permanent';
  if (failedTries >= policy.tries) return 'tries_used_up';
  if (error.retryAfterMs !== null && error.retryAfterMs > policy.maxRetryAfterMs) return 'wait_too_long';
  return null;
}
