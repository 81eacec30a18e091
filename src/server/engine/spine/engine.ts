import { MAX_OUTPUT_TOKENS_PER_TEXT } from '../../../shared/flows/text-rules.ts';
import { previewTexts, type PreviewedText, type PreviewFlow } from '../writing/text-preview.ts';
import type { FlowAlerts } from '../../alerts/flow-alerts.ts';
import type { ServiceConditions } from '../../service-conditions/service-conditions.ts';
import type { NormalizedEvent } from '../../../shared/events/event-schemas.ts';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Queryable } from '../../database/database.ts';
import type { AppRole } from '../../config.ts';
import { JobQueue, type EventJobOptions, type ProcessEventHandler, type ProcessEventJob } from '../../background/job-queue.ts';
import { fireDueTimers } from '../timers/shopper-timers.ts';
import { inTransaction } from '../../database/database.ts';
import type { Clock } from '../../platform/clock.ts';
import { processEvent, type PipelineObserver, type PipelineOptions } from './event-pipeline.ts';
import { throughDatabaseOutages } from './database-outages.ts';
import { defaultRetryPolicy } from './retry-policy.ts';
import { klaviyoAccountLimits } from '../delivery/klaviyo-rate-limiter.ts';
import type { CredentialsLoader } from './engine-credentials.ts';
import { withShopperContext, type ShopperContextNeeds } from '../shop-facts/shopper-context.ts';
import type { RecommendedProduct } from '../../../shared/flows/recommendation-schemas.ts';
import type { ShopifyAccessTokenProvider } from '../../credentials/shopify-token-provider.ts';
import { setEventStatus, type JobsForEvents } from '../../events/event-queries.ts';
import { eventOutcomeMessages } from '../../../shared/events/event-messages.ts';
import { createBatchDispatcher } from '../delivery/klaviyo-batches.ts';
import { createBackgroundLoop } from '../../background/background-loop.ts';
import { WritingSlots } from '../writing/writing-slots.ts';
import type { BackgroundPart } from '../../background/background.ts';

/**
 * The engine as the rest of the app sees it: `enqueue` inside the transaction that stores
 * an event (or starts a replay), and its background parts, which the background module
 * starts with the server (src/server/background/): the queue in every role, since every
 * role sends; the event worker, the timer sweep and the bulk batches in the roles that
 * process (`all`, `worker`; docs/architecture.md, docs/product/product-rules.md §5).
 */
export type EngineOptions = PipelineOptions &
  EventJobOptions & {
    /** How often a worker looks for abandonment timers that are due (by the app's clock). */
    timerSweepIntervalMs: number;
    /**
     * OpenAI calls at once per worker process (writing-slots.ts). `concurrency`, the jobs in
     * flight, is larger: jobs checking their texts or delivering them hold no call.
     */
    writingConcurrency: number;
  };

export const defaultEngineOptions: EngineOptions = {
  retry: defaultRetryPolicy,
  openaiTimeoutMs: 60_000,
  // Flex answers are slow (minutes) by design; the flows that use it wait 15 minutes or more.
  flexTimeoutMs: 5 * 60_000,
  klaviyoTimeoutMs: 30_000,
  maxOutputTokens: MAX_OUTPUT_TOKENS_PER_TEXT,
  klaviyoLimits: klaviyoAccountLimits,
  bulkDelivery: true,
  // A worker's rate is its OpenAI calls at once over OpenAI's answer time; the other half
  // of its jobs check, deliver or wait for Klaviyo's limits meanwhile (0008, 0042).
  writingConcurrency: 300,
  concurrency: 600,
  concurrencyWhileIntakeBusy: 10,
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
  /** Webhooks queue for the database in this process: its worker takes few new jobs for a moment (JobQueue.intakeBusy). */
  intakeBusy(): void;
  /** In start order: the queue, the bulk batches, the event worker, the timer sweep. */
  backgroundParts: BackgroundPart[];
  /** A worker part that runs `run` on the queue's cron (`cron`, UTC), in one worker process at a time. */
  scheduledPart(name: string, cron: string, run: () => Promise<unknown>, failureMessage?: string): BackgroundPart;
  /** Jobs this process is running now. */
  inFlight(): number;
  /** Runs the bulk delivery batches waiting now (the worker does it every second, and when a delivery is queued). */
  runBatches(): Promise<number>;
  /** Fires the abandonment timers due now (the worker's sweep does it every timerSweepIntervalMs). */
  fireDueTimers(): Promise<number>;
  /**
   * The flow's texts for one event, written and checked as the pipeline would, delivered
   * nowhere (text-preview.ts); null when the owner has no credentials to write with.
   */
  /** Null without credentials; `recommendations` null when the flow asks for none. */
  preview(
    userId: string,
    flow: PreviewFlow & ShopperContextNeeds,
    event: NormalizedEvent,
    signal: AbortSignal,
  ): Promise<{ texts: PreviewedText[]; recommendations: RecommendedProduct[] | null } | null>;
}

export function createEngine(dependencies: {
  pool: pg.Pool;
  logger: Logger;
  role: AppRole;
  openaiBaseUrl: string;
  klaviyoBaseUrl: string;
  loadCredentials: CredentialsLoader;
  shopifyTokens?: ShopifyAccessTokenProvider;
  alerts?: FlowAlerts;
  /** Told of, and asked about, conditions of the owners' services (docs/decisions/0047-service-conditions.md). */
  conditions?: ServiceConditions;
  options?: Partial<EngineOptions>;
  clock: Clock;
  /** Told how events end and what generations cost (the app's metrics). */
  observer?: PipelineObserver;
}): Engine {
  const options: EngineOptions = { ...defaultEngineOptions, ...dependencies.options };
  const logger = dependencies.logger.child({ module: 'engine' });
  const jobs = new JobQueue(dependencies.pool, options, logger, { keepsSchedules: dependencies.role !== 'web' });
  const fireTimers = () =>
    fireDueTimers(dependencies.pool, {
      now: dependencies.clock.now(),
      enqueue: (db, job) => jobs.send(db, job),
      inTransaction: (work) => inTransaction(dependencies.pool, work),
    });
  // The regular sweep comes every timerSweepIntervalMs; an event this worker put to wait
  // for less than that (a rate limit's slot a second or two away) is come back for on
  // time instead, so a short wait does not cost a whole sweep interval. The loop keeps one
  // timer, on the process's clock, so each pass sets it again for the next of these times
  // still ahead by the app's clock: a later wait is not lost behind an earlier one, and a
  // timer that fired before the app's clock got there (the clocks can differ) fires again.
  const comeBackAt = new Set<number>();
  const sweepPass = async () => {
    const fired = await fireTimers();
    const now = dependencies.clock.now().getTime();
    let next = Infinity;
    for (const at of comeBackAt) {
      if (at <= now) comeBackAt.delete(at);
      else next = Math.min(next, at);
    }
    if (next !== Infinity) sweep.wakeIn(next - now + 10);
    return fired;
  };
  const sweep = createBackgroundLoop({
    name: 'timer-sweep',
    intervalMs: options.timerSweepIntervalMs,
    run: sweepPass,
    logger,
    runAtStart: false,
    failureMessage: 'firing due timers failed; trying again',
  });
  const wakeAt = (until: Date) => {
    const delayMs = until.getTime() - dependencies.clock.now().getTime();
    if (delayMs >= options.timerSweepIntervalMs) return;
    if (comeBackAt.size < 10_000) comeBackAt.add(until.getTime());
    sweep.wakeIn(Math.max(0, delayMs) + 10);
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
    conditions: dependencies.conditions,
  });
  const context = {
    pool: dependencies.pool,
    logger,
    openaiBaseUrl: dependencies.openaiBaseUrl,
    klaviyoBaseUrl: dependencies.klaviyoBaseUrl,
    loadCredentials: dependencies.loadCredentials,
    shopifyTokens: dependencies.shopifyTokens,
    alerts: dependencies.alerts,
    conditions: dependencies.conditions,
    options,
    clock: dependencies.clock,
    observer: dependencies.observer,
    onWaiting: wakeAt,
    onBatched: () => batches.wake(),
    writingSlots: new WritingSlots(options.writingConcurrency),
  };
  const handleJob: ProcessEventHandler = async (job, signal) => {
    try {
      await throughDatabaseOutages(() => processEvent(context, job.data, signal), {
        sleep: (ms, abort) => dependencies.clock.sleep(ms, abort),
        signal,
        onOutage: (error, pauseMs) =>
          logger.warn({ err: error, eventId: job.data.eventId, retryInMs: pauseMs }, 'event job could not reach the database; it runs again shortly, without using up a try'),
      });
    } catch (error) {
      // The last try of a job that keeps crashing: say so on the event rather than
      // leave it "generating" for ever.
      if (!signal.aborted && job.retryCount >= job.retryLimit) {
        const failed = await setEventStatus(dependencies.pool, { id: job.data.eventId, attempt: job.data.attempt }, 'failed', eventOutcomeMessages.processingFailed).catch(() => false);
        if (failed) dependencies.observer?.eventFinished('failed');
      }
      throw error;
    }
  };
  return {
    preview: async (userId, flow, event, signal) => {
      const credentials = await context.loadCredentials(context.pool, userId, context.clock.now());
      // An owner's Preview does not queue behind a backlog's calls.
      if (!credentials) return null;
      const previewContext = { ...context, writingSlots: undefined };
      // The shopper as the pipeline would see them now (Preview's event is not counted as their own history).
      const toWrite = await withShopperContext(previewContext, { event: { id: 'preview', userId, receivedAt: context.clock.now() }, needs: flow, described: event, credentials, signal });
      return { texts: await previewTexts(previewContext, { userId, flow, described: toWrite, credentials, signal }), recommendations: toWrite.recommendations ?? null };
    },
    enqueue: (db, job) => jobs.send(db, job),
    jobsStatement: (many) => jobs.sendManyStatement(many),
    jobsSent: () => jobs.jobsSent(),
    intakeBusy: () => jobs.intakeBusy(),
    backgroundParts: [
      // Every role sends jobs; the cron of scheduled work runs only where jobs are worked (see JobQueue).
      { name: 'job-queue', runsIn: 'every', start: () => jobs.start(), stop: () => jobs.stop() },
      // Stopped after the event worker: the deliveries its last jobs queued for a bulk job
      // are sent before the process goes, as far as the stop's time allows.
      { name: 'klaviyo-batches', runsIn: 'worker', start: () => batches.start(), stop: () => batches.stop({ drainMs: options.stopTimeoutMs }) },
      {
        name: 'event-jobs',
        runsIn: 'worker',
        start: () => {
          jobs.work(handleJob);
          logger.info({ concurrency: options.concurrency, writingConcurrency: options.writingConcurrency }, 'event worker started');
        },
        stop: () => jobs.stopWorking(),
      },
      { name: 'timer-sweep', runsIn: 'worker', start: () => sweep.start(), stop: () => sweep.stop() },
    ],
    scheduledPart: (name, cron, run, failureMessage) => ({
      name,
      runsIn: 'worker',
      start: () => jobs.startScheduled(name, cron, run, failureMessage),
      stop: () => jobs.stopScheduled(name),
    }),
    inFlight: () => jobs.inFlight(),
    runBatches: () => batches.runOnce(),
    fireDueTimers: fireTimers,
  };
}
