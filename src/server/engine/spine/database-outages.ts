import { isDatabaseUnavailable } from '../../database/database-errors.ts';
import { ServiceError } from '../../integrations/service-error.ts';
import type { Clock } from '../../platform/clock.ts';

/**
 * The pauses before each new try of a job whose database could not answer: about six
 * minutes in all, more than a database restart or a minute of overload takes.
 */
export const databaseOutagePausesMs: readonly number[] = [1_000, 2_000, 4_000, 8_000, 15_000, 30_000, 60_000, 60_000, 60_000, 120_000];

/**
 * Runs an event's job; when it fails because the database could not answer (every pooled
 * connection busy past the wait, a connection lost, the database restarting), runs it again
 * after a pause instead of failing the job. A failed job uses up one of its tries, and an
 * overload of a few minutes used up all five: the event ended "Processing stopped
 * unexpectedly" although nothing was wrong with it (docs/decisions/0059-jobs-through-database-outages.md).
 * Running the job again is what its retry would do (every step keeps what it stored).
 * A failure of OpenAI, Klaviyo or Shopify is not an outage of the database, even when it
 * carries a network error: it goes up as before, to the pipeline's own retries. So does the
 * outage that outlasts every pause, and a stop (`signal`) ends the wait at once.
 */
export async function throughDatabaseOutages<T>(
  run: () => Promise<T>,
  options: { sleep: Clock['sleep']; signal: AbortSignal; pausesMs?: readonly number[]; onOutage?: (error: unknown, pauseMs: number) => void },
): Promise<T> {
  const pausesMs = options.pausesMs ?? databaseOutagePausesMs;
  for (let outage = 0; ; outage += 1) {
    try {
      return await run();
    } catch (error) {
      const pauseMs = pausesMs[outage];
      if (pauseMs === undefined || options.signal.aborted || error instanceof ServiceError || !isDatabaseUnavailable(error)) throw error;
      options.onOutage?.(error, pauseMs);
      await options.sleep(pauseMs, options.signal);
    }
  }
}
