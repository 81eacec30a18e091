import type pg from 'pg';
import type { Logger } from 'pino';
import { setEventStatus, setEventsStatus } from '../events/event-queries.ts';
import type { Clock } from '../platform/clock.ts';
import {
  createEventBulkJob,
  createProfileImportJob,
  getProfileImportJob,
  listImportErrors,
  MAX_EVENTS_PER_BULK_JOB,
  MAX_IMPORT_JOB_BYTES,
  MAX_PROFILES_PER_IMPORT_JOB,
  profileImportJobBody,
  type ProfileImport,
} from '../integrations/klaviyo/klaviyo-profiles.ts';
import { ServiceError } from '../integrations/service-error.ts';
import { failPendingDelivery } from './delivery-queries.ts';
import { claimBatch, finishBatchDeliveries, listBatchDeliveries, recordBatchEventsSent, recordBatchProfilesWritten, releaseUnsentDeliveries, updateBatch, type Batch, type BatchDelivery } from './klaviyo-batch-queries.ts';
import { takeKlaviyoSlot, type KlaviyoEndpoint, type KlaviyoRateLimits } from './klaviyo-rate-limiter.ts';
import { RateLimitWait } from './rate-limit-wait.ts';
import type { CredentialsLoader, EngineCredentials } from './engine-credentials.ts';
import type { PipelineObserver } from './pipeline-context.ts';
import { eventOutcomeMessages as m } from '../../shared/events/event-messages.ts';

/**
 * The bulk side of Klaviyo delivery (docs/decisions/0020-klaviyo-batches.md). Each worker
 * process runs one dispatcher: it takes a batch (a crashed worker's, else up to 10,000
 * queued deliveries of the account that has waited longest), posts one profile import
 * job, follows it to its end, fails the rows Klaviyo refused with Klaviyo's reason, sends
 * the Klaviyo events in bulk jobs of 1,000, and marks the rest delivered. Each step is
 * recorded on the batch before the next, so a batch taken up after a crash goes on where
 * it stopped; a job posted again after a crash writes the same properties (idempotent), and
 * events are de-duplicated by their `unique_id`.
 */
export interface BatchDispatcherDependencies {
  pool: pg.Pool;
  logger: Logger;
  clock: Clock;
  klaviyoBaseUrl: string;
  klaviyoTimeoutMs: number;
  klaviyoLimits: KlaviyoRateLimits | null;
  loadCredentials: CredentialsLoader;
  observer?: PipelineObserver;
  /** How often an idle dispatcher looks for queued deliveries (other processes' too). */
  intervalMs?: number;
  /** How long a batch is held before another worker may take it up. */
  leaseMs?: number;
  /** How often a job's status is asked for. */
  pollMs?: number;
}

export interface BatchDispatcher {
  start(): void;
  /** Runs soon: a delivery was just queued. */
  wake(): void;
  /**
   * Stops taking batches. With `drainMs`, first sends what is queued now for up to that
   * long (deliveries this worker's last jobs queued are in flight too); a batch cut short
   * is handed back at once, so another worker need not wait out its lease.
   */
  stop(options?: { drainMs?: number }): Promise<void>;
  /** Runs until no batch is left to take (tests). */
  runOnce(): Promise<number>;
}

export function createBatchDispatcher(dependencies: BatchDispatcherDependencies): BatchDispatcher {
  const intervalMs = dependencies.intervalMs ?? 1_000;
  const leaseMs = dependencies.leaseMs ?? 60_000;
  const pollMs = dependencies.pollMs ?? 250;
  const logger = dependencies.logger.child({ module: 'klaviyo-batches' });
  let stopping = new AbortController();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;
  let again = false;

  const runOnce = async (): Promise<number> => {
    let batches = 0;
    for (;;) {
      if (stopping.signal.aborted) return batches;
      const batch = await claimBatch(dependencies.pool, { now: dependencies.clock.now(), leaseMs, maxDeliveries: MAX_PROFILES_PER_IMPORT_JOB });
      if (!batch) return batches;
      batches += 1;
      try {
        await runBatch(batch);
      } catch (error) {
        if (stopping.signal.aborted) {
          // Handed back: another worker takes it up from where its row says it got to.
          await updateBatch(dependencies.pool, batch.id, { leaseUntil: dependencies.clock.now() }).catch(() => undefined);
          return batches;
        }
        // The batch's lease runs out and it is taken up again (by this worker or another).
        logger.warn({ err: error, batchId: batch.id }, 'bulk delivery batch stopped; it is taken up again when its lease ends');
        return batches;
      }
    }
  };

  const run = () => {
    if (running) {
      again = true;
      return;
    }
    running = runOnce()
      .catch((error: unknown) => {
        logger.warn({ err: error }, 'bulk delivery dispatcher failed; trying again');
        return 0;
      })
      .finally(() => {
        running = null;
        if (again && !stopping.signal.aborted) {
          again = false;
          run();
        }
      });
  };

  async function runBatch(batch: Batch): Promise<void> {
    const { pool, clock } = dependencies;
    let deliveries = await listBatchDeliveries(pool, batch.id);
    // The services of the batch's events, as of when they came (sandbox events never join a
    // batch, so an owner who entered the sandbox since still has these go to the real Klaviyo).
    const credentials = deliveries[0] ? await dependencies.loadCredentials(pool, batch.userId, deliveries[0].eventReceivedAt) : null;
    if (!credentials) {
      for (const delivery of deliveries) await endFailed(delivery, m.noCredentials);
      await updateBatch(pool, batch.id, { status: 'done', leaseUntil: clock.now() });
      return;
    }
    const connection = { baseUrl: credentials.sandbox?.klaviyoBaseUrl ?? dependencies.klaviyoBaseUrl, apiKey: credentials.klaviyoApiKey, timeoutMs: dependencies.klaviyoTimeoutMs, now: () => clock.now() };
    const renew = () => updateBatch(pool, batch.id, { leaseUntil: new Date(clock.now().getTime() + leaseMs) });

    if (batch.status === 'importing') {
      const toImport = deliveries.filter((delivery) => !delivery.profileWrittenAt);
      if (toImport.length > 0) {
        const profiles = fitInJob(toImport.map(profileOf));
        let jobId = batch.jobId;
        if (!jobId) {
          const job = await withSlotAndRetries(credentials, 'profile-bulk-import-jobs', () => createProfileImportJob(connection, profiles, stopping.signal));
          jobId = job.id;
          await updateBatch(pool, batch.id, { jobId, leaseUntil: new Date(clock.now().getTime() + leaseMs) });
        }
        let job = await withSlotAndRetries(credentials, 'profile-bulk-import-job', () => getProfileImportJob(connection, jobId, stopping.signal));
        while (job.status !== 'complete' && job.status !== 'cancelled') {
          await clock.sleep(pollMs, stopping.signal);
          await renew();
          job = await withSlotAndRetries(credentials, 'profile-bulk-import-job', () => getProfileImportJob(connection, jobId, stopping.signal));
        }
        const refused = new Map<string, string>();
        if (job.status === 'cancelled') {
          for (const delivery of toImport) refused.set(delivery.email.toLowerCase(), 'Klaviyo cancelled the import job');
        } else if (job.failedCount > 0) {
          const errors = await withSlotAndRetries(credentials, 'profile-bulk-import-errors', () => listImportErrors(connection, jobId, stopping.signal));
          for (const error of errors) if (error.email) refused.set(error.email.toLowerCase(), error.reason);
        }
        const inJob = new Set(profiles.map((profile) => profile.email));
        const written: string[] = [];
        for (const delivery of toImport) {
          const reason = refused.get(delivery.email.toLowerCase());
          if (reason) await endFailed(delivery, `Klaviyo: ${reason}`);
          else if (inJob.has(delivery.email)) written.push(delivery.id);
        }
        await recordBatchProfilesWritten(pool, written);
      }
      await updateBatch(pool, batch.id, { status: 'sending_events', leaseUntil: new Date(clock.now().getTime() + leaseMs) });
      deliveries = await listBatchDeliveries(pool, batch.id);
    }

    // Events, for flows that name one: bulk jobs of up to 1,000, unique_id = the delivery id.
    const withEvents = deliveries.filter((delivery) => delivery.profileWrittenAt && delivery.klaviyoEventName && !delivery.eventSentAt);
    for (let start = 0; start < withEvents.length; start += MAX_EVENTS_PER_BULK_JOB) {
      const chunk = withEvents.slice(start, start + MAX_EVENTS_PER_BULK_JOB);
      const time = clock.now().toISOString();
      await withSlotAndRetries(credentials, 'event-bulk-create-jobs', () =>
        createEventBulkJob(
          connection,
          chunk.map((delivery) => ({ metricName: delivery.klaviyoEventName!, email: delivery.email, properties: delivery.properties, uniqueId: delivery.id, time })),
          stopping.signal,
        ),
      );
      await recordBatchEventsSent(pool, chunk.map((delivery) => delivery.id));
      await renew();
    }

    // The deliveries, then their events: taken up again after a crash between the two, the
    // batch marks the same deliveries again and moves only the events still delivering.
    const delivered = await setEventsStatus(pool, await finishBatchDeliveries(pool, batch.id), 'delivered');
    for (let count = 0; count < delivered; count += 1) dependencies.observer?.eventFinished('delivered');
    // Rows left out of an over-large job go back to the queue for the next batch.
    await releaseUnsentDeliveries(pool, batch.id);
    await updateBatch(pool, batch.id, { status: 'done', leaseUntil: clock.now() });
    logger.info({ batchId: batch.id, deliveries: deliveries.length }, 'bulk delivery batch done');
  }

  async function endFailed(delivery: BatchDelivery, reason: string): Promise<void> {
    await failPendingDelivery(dependencies.pool, delivery.eventId, delivery.attempt, reason);
    if (await setEventStatus(dependencies.pool, delivery.eventId, delivery.attempt, 'failed', reason)) dependencies.observer?.eventFinished('failed');
  }

  /**
   * One Klaviyo request under the endpoint's limit, waiting for its slot and for any
   * Retry-After (a 429 changes nothing at Klaviyo, so asking again is safe); other
   * retryable failures are tried again a few times, then the batch stops and is taken up
   * again later.
   */
  async function withSlotAndRetries<T>(credentials: EngineCredentials, endpoint: KlaviyoEndpoint, call: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await takeKlaviyoSlot(dependencies.pool, credentials.klaviyoApiKey, endpoint, dependencies.klaviyoLimits, {
          clock: dependencies.clock,
          maxInPlaceWaitMs: 5 * 60_000,
          signal: stopping.signal,
        });
        return await call();
      } catch (error) {
        if (stopping.signal.aborted) throw error;
        if (error instanceof RateLimitWait) {
          await dependencies.clock.sleep(Math.max(0, error.until.getTime() - dependencies.clock.now().getTime()), stopping.signal);
          continue;
        }
        if (!(error instanceof ServiceError) || !error.retryable || attempt >= 5) throw error;
        await dependencies.clock.sleep(error.retryAfterMs ?? 500 * attempt, stopping.signal);
      }
    }
  }

  return {
    start() {
      if (timer) return;
      if (stopping.signal.aborted) stopping = new AbortController();
      timer = setInterval(run, intervalMs);
      timer.unref();
      run();
    },
    wake() {
      if (timer) run();
    },
    async stop(options = {}) {
      if (timer) clearInterval(timer);
      timer = null;
      const drainMs = options.drainMs ?? 0;
      if (drainMs > 0 && !stopping.signal.aborted) {
        const deadline = setTimeout(() => stopping.abort(new Error('the worker is stopping')), drainMs);
        deadline.unref();
        await running?.catch(() => undefined);
        await runOnce().catch(() => 0);
        clearTimeout(deadline);
      }
      stopping.abort(new Error('the worker is stopping'));
      await running?.catch(() => undefined);
    },
    runOnce,
  };
}

function profileOf(delivery: BatchDelivery): ProfileImport {
  return { email: delivery.email, firstName: delivery.firstName, lastName: delivery.lastName, properties: delivery.properties };
}

/** The profiles that fit in one job's 5 MB, in order; the rest wait for the next batch. */
function fitInJob(profiles: ProfileImport[]): ProfileImport[] {
  let count = profiles.length;
  while (count > 1 && Buffer.byteLength(profileImportJobBody(profiles.slice(0, count))) > MAX_IMPORT_JOB_BYTES) count = Math.floor(count * 0.9);
  return profiles.slice(0, count);
}
