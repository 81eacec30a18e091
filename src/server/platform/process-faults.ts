import type { Logger } from 'pino';
import type { Clock } from './clock.ts';
import { isDatabaseUnavailable } from '../database/database-errors.ts';

/**
 * What the process does with an error nobody caught (docs/decisions/0017-staying-up.md).
 *
 * Flowsmith keeps everything that matters in the database, so one failed callback costs
 * at most that callback's work: a webhook is acknowledged only after its commit, and a job
 * whose handler died is retried. Exiting would cost far more: every open request, stream
 * and job of the process, and on the embedded database the only server there is. So the
 * process logs the error with its context and carries on, except when it cannot:
 * - the embedded database's WebAssembly instance failed (nothing can be stored any more);
 * - errors keep escaping (more than `maxFaults` within `windowMs`): something is broken in
 *   a loop, and a restart by the supervisor is the better cure.
 */
export interface FaultPolicyOptions {
  logger: Pick<Logger, 'error' | 'warn' | 'fatal'>;
  clock: Clock;
  /** Called once when the process cannot go on; it should close what it can and exit non-zero. */
  giveUp(reason: string): void;
  maxFaults?: number;
  windowMs?: number;
}

export interface FaultPolicy {
  onUncaughtException(error: unknown, origin?: string): void;
  onUnhandledRejection(reason: unknown): void;
}

/** Only what identifies an error (no request bodies or credentials a library may have attached). */
function describe(error: unknown): { type: string; message: string; code?: unknown; stack?: string } {
  if (error instanceof Error) {
    return { type: error.name, message: error.message.slice(0, 1_000), code: (error as { code?: unknown }).code, stack: error.stack?.slice(0, 4_000) };
  }
  return { type: typeof error, message: String(error).slice(0, 1_000) };
}

export function createFaultPolicy(options: FaultPolicyOptions): FaultPolicy {
  const maxFaults = options.maxFaults ?? 20;
  const windowMs = options.windowMs ?? 60_000;
  const recent: number[] = [];
  let gaveUp = false;

  const giveUp = (reason: string) => {
    if (gaveUp) return;
    gaveUp = true;
    options.logger.fatal({ reason }, 'the process cannot go on; stopping');
    options.giveUp(reason);
  };

  const handle = (kind: 'uncaught exception' | 'unhandled rejection', error: unknown, origin?: string) => {
    if (error instanceof WebAssembly.RuntimeError) {
      options.logger.fatal({ err: describe(error), kind, origin }, 'the embedded database failed');
      giveUp('the embedded database failed');
      return;
    }
    if (isDatabaseUnavailable(error)) {
      // A connection lost outside any request; the pool and the feed reconnect by themselves.
      options.logger.warn({ err: describe(error), kind, origin }, 'a database connection failed outside a request');
      return;
    }
    options.logger.error({ err: describe(error), kind, origin }, `${kind}: logged, the process carries on`);
    const now = options.clock.now().getTime();
    recent.push(now);
    while (recent.length > 0 && recent[0]! <= now - windowMs) recent.shift();
    if (recent.length > maxFaults) giveUp(`more than ${maxFaults} uncaught errors within ${Math.round(windowMs / 1000)} s`);
  };

  return {
    onUncaughtException: (error, origin) => handle('uncaught exception', error, origin),
    onUnhandledRejection: (reason) => handle('unhandled rejection', reason),
  };
}
