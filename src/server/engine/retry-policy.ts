import { ServiceCallError } from './service-call-error.ts';

/**
 * How often and how patiently a call to OpenAI or Klaviyo is tried: exponential backoff
 * with jitter, or exactly what the service asked for with Retry-After. Tests pass
 * millisecond delays through buildApp's dependencies.
 */
export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A service asking for a longer wait than this ends the tries: the event fails and can be replayed. */
  maxRetryAfterMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { attempts: 5, baseDelayMs: 1_000, maxDelayMs: 30_000, maxRetryAfterMs: 120_000 };

export type Sleep = (milliseconds: number, signal?: AbortSignal) => Promise<void>;

export const sleep: Sleep = (milliseconds, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** The wait before try number `retry + 1`: half fixed, half random, so workers spread out. */
export function backoffDelay(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

/**
 * Runs `call` until it succeeds, fails permanently, or the tries are used up. Only
 * retryable ServiceCallErrors are tried again; everything else goes straight up.
 */
export async function withRetries<T>(
  call: () => Promise<T>,
  policy: RetryPolicy,
  options: { signal?: AbortSignal; sleep?: Sleep; onRetry?: (error: ServiceCallError, delayMs: number) => void } = {},
): Promise<T> {
  const wait = options.sleep ?? sleep;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof ServiceCallError) || !error.retryable || attempt >= policy.attempts) throw error;
      if (error.retryAfterMs !== null && error.retryAfterMs > policy.maxRetryAfterMs) throw error;
      const delay = error.retryAfterMs !== null ? error.retryAfterMs : backoffDelay(policy, attempt);
      options.onRetry?.(error, delay);
      await wait(delay, options.signal);
    }
  }
}
