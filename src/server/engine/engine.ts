import type pg from 'pg';
import type { Logger } from 'pino';
import type { Queryable } from '../database/database.ts';
import type { AppRole } from '../config.ts';
import { EventJobs, type EventJobOptions, type ProcessEventJob } from './event-jobs.ts';
import { fireDueTimers } from './shopper-timers.ts';
import { inTransaction } from '../database/database.ts';
import type { Clock } from '../platform/clock.ts';
import { processEvent, type PipelineObserver, type PipelineOptions } from './event-pipeline.ts';
import { defaultRetryPolicy } from './retry-policy.ts';
import { klaviyoAccountLimits } from './klaviyo-rate-limiter.ts';
import type { CredentialsLoader } from './engine-credentials.ts';
import type { ShopifyAccessTokenProvider } from '../credentials/shopify-token-provider.ts';
import { setEventStatus, type JobsForEvents } from '../events/event-queries.ts';
import { eventOutcomeMessages } from '../../shared/events/event-messages.ts';
import { createBatchDispatcher } from './klaviyo-batches.ts';

/**
 * The engine as the rest of the app sees it: `enqueue` inside the transaction that stores
 * an event (or starts a replay), and `start`/`stop` with the server. Every role sends; the
 * `all` and `worker` roles also process (STACK.md, PRODUCT.md section 5).
 */
export type EngineOptions = PipelineOptions &
  EventJobOptions & {
    /** How often a worker looks for abandonment timers that are due (by the app's clock). */
    timerSweepIntervalMs: number;
  };

export const defaultEngineOptions: EngineOptions = {
  retry: defaultRetryPolicy,
  openaiTimeoutMs: 60_000,
  // Flex answers are slow (minutes) by design; the flows that use it wait 15 minutes or more.
  flexTimeoutMs: 5 * 60_000,
  klaviyoTimeoutMs: 30_000,
  maxOutputTokens: 1_024,
  klaviyoLimits: klaviyoAccountLimits,
  bulkDelivery: true,
  concurrency: 300,
  pollIntervalMs: 1_000,
  retryLimit: 5,
  retryDelaySeconds: 5,
  heartbeatSeconds: 30,
  superviseIntervalSeconds: 30,
  stopTimeoutMs: 10_000,
  timerSweepIntervalMs: 5_000,
};

export interface Engine {
  enqueue(db: Queryable, job: ProcessEventJob): Promise<void>;
  /**
   * The statement that sends many jobs (the webhook intake's batches, job ids chosen by the
   * caller), for the caller to run with their events; `jobsSent` once it has.
   */
  jobsStatement(jobs: Array<{ id: string; job: ProcessEventJob }>): Promise<JobsForEvents | null>;
  jobsSent(): void;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Jobs this process is running now. */
  inFlight(): number;
  /** Runs the bulk delivery batches waiting now (the worker does it every second, and when a delivery is queued). */
  runBatches(): Promise<number>;
  /** Fires the abandonment timers due now (the worker does it every timerSweepIntervalMs). */
  fireDueTimers(): Promise<number>;
}

export function createEngine(dependencies: {
  pool: pg.Pool;
  logger: Logger;
  role: AppRole;
  openaiBaseUrl: string;
  klaviyoBaseUrl: string;
  loadCredentials: CredentialsLoader;
  shopifyTokens?: ShopifyAccessTokenProvider;
  options?: Partial<EngineOptions>;
  clock: Clock;
  /** Told how events end and what generations cost (the app's metrics). */
  observer?: PipelineObserver;
}): Engine {
  const options: EngineOptions = { ...defaultEngineOptions, ...dependencies.options };
  const logger = dependencies.logger.child({ module: 'engine' });
  const jobs = new EventJobs(dependencies.pool, options, logger);
  let sweeper: NodeJS.Timeout | null = null;
  let sweeping: Promise<unknown> = Promise.resolve();
  const sweep = () => {
    sweeping = fireTimers().catch((error: unknown) => logger.warn({ err: error }, 'firing due timers failed; trying again'));
  };
  // The regular sweep comes every timerSweepIntervalMs; an event this worker put to wait
  // for less than that (a rate limit's slot a second or two away) is come back for on
  // time instead, so a short wait does not cost a whole sweep interval.
  let wake: { at: number; timer: NodeJS.Timeout } | null = null;
  const wakeAt = (until: Date) => {
    if (!sweeper) return;
    const at = until.getTime();
    const delayMs = at - dependencies.clock.now().getTime();
    if (delayMs >= options.timerSweepIntervalMs || (wake && wake.at <= at)) return;
    if (wake) clearTimeout(wake.timer);
    const timer = setTimeout(() => {
      wake = null;
      sweep();
    }, Math.max(0, delayMs) + 10);
    timer.unref();
    wake = { at, timer };
  };
  const batches = createBatchDispatcher({
    pool: dependencies.pool,
    logger,
    clock: dependencies.clock,
    klaviyoBaseUrl: dependencies.klaviyoBaseUrl,
    klaviyoTimeoutMs: options.klaviyoTimeoutMs,
    klaviyoLimits: options.klaviyoLimits,
    loadCredentials: dependencies.loadCredentials,
    observer: dependencies.observer,
    retry: options.retry,
  });
  const context = {
    pool: dependencies.pool,
    logger,
    openaiBaseUrl: dependencies.openaiBaseUrl,
    klaviyoBaseUrl: dependencies.klaviyoBaseUrl,
    loadCredentials: dependencies.loadCredentials,
    shopifyTokens: dependencies.shopifyTokens,
    options,
    clock: dependencies.clock,
    observer: dependencies.observer,
    onWaiting: wakeAt,
    onBatched: () => batches.wake(),
  };
  let started: Promise<void> | null = null;
  const fireTimers = () =>
    fireDueTimers(
      dependencies.pool,
      dependencies.clock.now(),
      (db, job) => jobs.send(db, job),
      (work) => inTransaction(dependencies.pool, work),
    );
  return {
    enqueue: (db, job) => jobs.send(db, job),
    jobsStatement: (many) => jobs.sendManyStatement(many),
    jobsSent: () => jobs.jobsSent(),
    start() {
      started ??= (async () => {
        await jobs.start();
        if (dependencies.role !== 'web') {
          jobs.work(async (job, signal) => {
            try {
              await processEvent(context, job.data, signal);
            } catch (error) {
              // The last try of a job that keeps crashing: say so on the event rather than
              // leave it "generating" for ever.
              if (!signal.aborted && job.retryCount >= job.retryLimit) {
                const failed = await setEventStatus(dependencies.pool, job.data.eventId, job.data.attempt, 'failed', eventOutcomeMessages.processingFailed).catch(() => false);
                if (failed) dependencies.observer?.eventFinished('failed');
              }
              throw error;
            }
          });
          sweeper = setInterval(sweep, options.timerSweepIntervalMs);
          sweeper.unref();
          batches.start();
          logger.info({ concurrency: options.concurrency }, 'event worker started');
        }
      })();
      return started;
    },
    async stop() {
      if (!started) return;
      await started.catch(() => undefined);
      if (sweeper) clearInterval(sweeper);
      sweeper = null;
      if (wake) clearTimeout(wake.timer);
      wake = null;
      await sweeping;
      await jobs.stop();
      // After the jobs: the deliveries they queued for a bulk job are sent before the
      // worker goes, as far as the stop's time allows.
      await batches.stop({ drainMs: options.stopTimeoutMs });
      started = null;
    },
    inFlight: () => jobs.inFlight(),
    runBatches: () => batches.runOnce(),
    fireDueTimers: fireTimers,
  };
}
