/**
 * The one way the server repeats work in the background (docs/decisions/0036-background-work.md):
 * a pass every `intervalMs`, and sooner when asked. Never two passes at once: a wake-up
 * that comes while a pass runs makes one more pass right after it, so work stored
 * meanwhile is not left for the next interval. A pass that fails is logged and the loop
 * goes on; `stop` waits for the pass under way.
 */
export interface BackgroundLoop {
  /** The first pass comes at once (`runAtStart`, the default) or after one interval. */
  start(): void;
  /** A pass now, or right after the one under way. Nothing while the loop is stopped. */
  wake(): void;
  /** A pass in `delayMs` unless one comes sooner anyway (a short wait that should not cost a whole interval). */
  wakeIn(delayMs: number): void;
  /** No more passes; resolves once the pass under way has ended. */
  stop(): Promise<void>;
  isRunning(): boolean;
}

export interface BackgroundLoopOptions {
  /** Names the loop in its log lines. */
  name: string;
  intervalMs: number;
  /** One pass. Its failure is logged as a warning and the loop carries on. */
  run: () => Promise<unknown>;
  /** The warning a failed pass logs (operators search for these); by default one naming the loop. */
  failureMessage?: string;
  logger: { warn(details: object, message: string): void };
  runAtStart?: boolean;
}

export function createBackgroundLoop(options: BackgroundLoopOptions): BackgroundLoop {
  const runAtStart = options.runAtStart ?? true;
  let started = false;
  let pass: Promise<void> | null = null;
  let again = false;
  let next: { at: number; timer: NodeJS.Timeout } | null = null;

  const schedule = (delayMs: number) => {
    if (!started) return;
    const at = Date.now() + Math.max(0, delayMs);
    if (next && next.at <= at) return;
    if (next) clearTimeout(next.timer);
    const timer = setTimeout(() => {
      next = null;
      runPass();
    }, Math.max(0, delayMs));
    // A loop never keeps the process alive: shutting down is stop()'s business.
    timer.unref();
    next = { at, timer };
  };

  const runPass = () => {
    if (!started) return;
    if (pass) {
      again = true;
      return;
    }
    if (next) clearTimeout(next.timer);
    next = null;
    pass = Promise.resolve()
      .then(options.run)
      .then(
        () => undefined,
        (error: unknown) => options.logger.warn({ err: error, loop: options.name }, options.failureMessage ?? `${options.name}: a pass failed; trying again`),
      )
      .finally(() => {
        pass = null;
        if (!started) return;
        if (again) {
          again = false;
          runPass();
        } else {
          schedule(options.intervalMs);
        }
      });
  };

  return {
    start() {
      if (started) return;
      started = true;
      again = false;
      // A pass left from before a stop (stop was not awaited) schedules the next one itself.
      if (pass) return;
      if (runAtStart) runPass();
      else schedule(options.intervalMs);
    },
    wake: runPass,
    wakeIn(delayMs) {
      if (delayMs <= 0) runPass();
      else schedule(delayMs);
    },
    async stop() {
      started = false;
      again = false;
      if (next) clearTimeout(next.timer);
      next = null;
      await pass;
    },
    isRunning: () => started,
  };
}
