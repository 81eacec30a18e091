import { ServiceError } from '../../integrations/service-error.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RetryPolicy } from './retry-policy.ts';

/**
 * Runs `call`; when it fails with a retryable error whose Retry-After is short enough to
 * wait in place, waits that long and calls once more. Any other failure goes straight up,
 * for the pipeline to schedule the next try or to fail the event.
 */
export async function withQuickRetry<T>(
  call: () => Promise<T>,
  policy: RetryPolicy,
  options: { sleep: Clock['sleep']; signal?: AbortSignal; onRetry?: (error: ServiceError, delayMs: number) => void },
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof ServiceError) || !error.retryable || error.retryAfterMs === null || error.retryAfterMs > policy.maxInPlaceWaitMs) throw error;
    options.onRetry?.(error, error.retryAfterMs);
    await options.sleep(error.retryAfterMs, options.signal);
    return call();
  }
}
