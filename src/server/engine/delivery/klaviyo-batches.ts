import type pg from 'pg';
import { inTransaction } from '../../database/database.ts';
import { createBackgroundLoop } from '../../background/background-loop.ts';
import type { Logger } from 'pino';
import { setEventStatus, setEventsStatus } from '../../events/event-queries.ts';
import type { Clock } from '../../platform/clock.ts';
import {
  createEvent,
  createEventBulkJob,
  createProfileImportJob,
  getProfileImportJob,
  importProfile,
  listImportErrors,
  MAX_EVENTS_PER_BULK_JOB,
  MAX_IMPORT_JOB_BYTES,
  MAX_PROFILES_PER_IMPORT_JOB,
  profileImportJobBody,
  type KlaviyoConnection,
  type ProfileImport,
} from '../../integrations/klaviyo/klaviyo-profiles.ts';
import { ServiceError } from '../../integrations/service-error.ts';
import { failPendingDelivery } from '../../deliveries/delivery-queries.ts';
import {
  claimBatch,
  finishBatchDeliveries,
  listBatchDeliveries,
  recordBatchEventsSent,
  recordBatchFailure,
  recordBatchProfilesWritten,
  releaseUnsentDeliveries,
  updateBatch,
  type Batch,
  type BatchDelivery,
} from './klaviyo-batch-queries.ts';
import { takeKlaviyoSlot, type KlaviyoEndpoint, type KlaviyoRateLimits } from './klaviyo-rate-limiter.ts';
import { RateLimitWait } from '../spine/rate-limit-wait.ts';
import { defaultRetryPolicy, nextTryDelay, type RetryPolicy } from '../spine/retry-policy.ts';
import { klaviyoAuthOf, klaviyoLimitKey, type CredentialsLoader, type EngineCredentials } from '../spine/engine-credentials.ts';
import type { PipelineObserver } from '../spine/pipeline-context.ts';
import { eventOutcomeMessages as m } from '../../../shared/events/event-messages.ts';
import type { ServiceConditions } from '../../service-conditions/service-conditions.ts';

/**
 * The bulk side of Klaviyo delivery (docs/decisions/0020-klaviyo-batches.md). Each worker
 * process runs one dispatcher: it takes a batch (a crashed worker's, else up to 10,000
 * queued deliveries of the account that has waited longest), posts one profile import
 * job, follows it to its end, fails the rows Klaviyo refused with Klaviyo's reason, sends
 * the Klaviyo events in bulk jobs of 1,000, and marks the rest delivered. Each step is
 * recorded on the batch before the next, so a batch taken up after a crash goes on where
 * it stopped; a job posted again after a crash writes the same properties (idempotent), and
 * events are de-duplicated by their `unique_id`.
 *
 * Nothing is tried for ever. Where Klaviyo refuses the bulk way for good (403: the key
 * lacks the Lists permission; 400, 413 or 422: the job's body; 404: the job expired; a
 * cancelled job; a job not ended by its deadline; an answer that cannot be read), the
 * profiles are written one at a time instead, each with its own verdict, and likewise
 * the Klaviyo events; a refused key (401, or 403 on the single writes) fails the batch's
 * events with the cause. A batch that keeps failing for want of an answer is tried again
 * after the retry policy's waits, and after its last try its events fail with the error.
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
  /** Tries of a failing batch and the waits between them (the engine's policy). */
  retry?: RetryPolicy;
  /** How often an idle dispatcher looks for queued deliveries (other processes' too). */
  intervalMs?: number;
  /** How long a batch is held before another worker may take it up. */
  leaseMs?: number;
  /** How often a job's status is asked for. */
  pollMs?: number;
  /** How long after its post a job is followed; one not ended by then is given up for single writes. */
  jobDeadlineMs?: number;
  /** Told when the key may not run bulk jobs, and when a job is accepted again (docs/decisions/0047-service-conditions.md). */
  conditions?: ServiceConditions;
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

/** A rate-limit slot is waited for in steps of this long. */
const SLOT_WAIT_STEP_MS = 1_000;

/** Klaviyo usually finishes a job within seconds; one still queued after this is not coming soon. */
export const IMPORT_JOB_DEADLINE_MS = 30 * 60_000;

/** What became of a batch's import job. */
type ImportOutcome =
  /** It completed: these rows were refused (by email, Klaviyo's reason); `uncertain` when refused rows could not all be named. */
  | { kind: 'completed'; refused: Map<string, string>; uncertain: boolean }
  /** The bulk way is closed for this batch: its profiles are written one at a time. */
  | { kind: 'write_singly'; why: string; forbidden?: boolean }
  /** Klaviyo refused the key: nothing can be written. */
  | { kind: 'refused_key'; reason: string };

/** A refusal the same request gets again: the bulk way is given up, not retried. */
const isFinal = (error: unknown): error is ServiceError => error instanceof ServiceError && !error.retryable;
/** The key itself (401) or its permission for single writes (403): every row would get the same answer. */
const refusesEveryRow = (error: ServiceError) => error.code === 'unauthorized' || error.code === 'forbidden';

export function createBatchDispatcher(dependencies: BatchDispatcherDependencies): BatchDispatcher {
  const intervalMs = dependencies.intervalMs ?? 1_000;
  const leaseMs = dependencies.leaseMs ?? 60_000;
  const pollMs = dependencies.pollMs ?? 250;
  const jobDeadlineMs = dependencies.jobDeadlineMs ?? IMPORT_JOB_DEADLINE_MS;
  const retry = dependencies.retry ?? defaultRetryPolicy;
  const logger = dependencies.logger.child({ module: 'klaviyo-batches' });
  let stopping = new AbortController();

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
        await recordFailedTry(batch, error);
        return batches;
      }
    }
  };

  /**
   * A try of the batch failed without a verdict (no answer, 5xx, 429s beyond waiting): it
   * is taken up again after the retry policy's wait for that try, and after the last try
   * its events fail with the error (the owner can replay them).
   */
  async function recordFailedTry(batch: Batch, error: unknown): Promise<void> {
    const failedTries = batch.failedTries + 1;
    const problem = error instanceof ServiceError ? error.message : 'Klaviyo delivery failed unexpectedly';
    const done = failedTries >= retry.tries;
    const retryAfterMs = error instanceof ServiceError ? error.retryAfterMs : null;
    const retryAt = new Date(dependencies.clock.now().getTime() + (done ? 0 : nextTryDelay(retry, failedTries, retryAfterMs)));
    if (done) {
      const reason = m.triesUsedUp(problem, failedTries);
      for (const delivery of await listBatchDeliveries(dependencies.pool, batch.id)) await endFailed(delivery, reason);
    }
    await recordBatchFailure(dependencies.pool, batch.id, { failedTries, error: problem, retryAt, done });
    logger.warn({ err: error, batchId: batch.id, failedTries, retryAt: done ? null : retryAt }, done ? 'bulk delivery batch failed for good' : 'bulk delivery batch failed; it is tried again later');
  }

  // Every second (other processes' deliveries, leases run out), and at once when a delivery is queued.
  const loop = createBackgroundLoop({ name: 'klaviyo-batches', intervalMs, run: runOnce, logger, failureMessage: 'bulk delivery dispatcher failed; trying again' });

  async function runBatch(batch: Batch): Promise<void> {
    const { pool, clock } = dependencies;
    let deliveries = await listBatchDeliveries(pool, batch.id);
    // Nothing pending: the batch was finished but for its last writes (one that failed
    // between its deliveries and their events before those became one transaction). Its
    // delivered deliveries' events still delivering are moved on.
    if (deliveries.length === 0) {
      await finishBatch(batch);
      return;
    }
    // The services of the batch's events, as of when they came (sandbox events never join a
    // batch, so an owner who entered the sandbox since still has these go to the real Klaviyo).
    const credentials = deliveries[0] ? await dependencies.loadCredentials(pool, batch.userId, deliveries[0].eventReceivedAt) : null;
    if (!credentials) {
      for (const delivery of deliveries) await endFailed(delivery, m.noCredentials);
      await updateBatch(pool, batch.id, { status: 'done', leaseUntil: clock.now() });
      return;
    }
    const connection = { baseUrl: credentials.sandbox?.klaviyoBaseUrl ?? dependencies.klaviyoBaseUrl, ...(await klaviyoAuthOf(credentials)), timeoutMs: dependencies.klaviyoTimeoutMs, now: () => clock.now() };
    let renewedAt = clock.now().getTime();
    const renew = async () => {
      renewedAt = clock.now().getTime();
      await updateBatch(pool, batch.id, { leaseUntil: new Date(renewedAt + leaseMs) });
    };
    // Single writes go at the account's single-write rate: the lease is renewed by the time
    // passed, not the rows written, so a slow account does not lose its batch to another worker.
    const renewWhenDue = async () => {
      if (clock.now().getTime() - renewedAt >= leaseMs / 4) await renew();
    };

    if (batch.status === 'importing') {
      const toImport = deliveries.filter((delivery) => !delivery.profileWrittenAt);
      if (toImport.length > 0) {
        const profiles = fitInJob(toImport.map(profileOf));
        const inJob = toImport.slice(0, profiles.length);
        const outcome = await importInBulk(batch, profiles, { credentials, connection, renew });
        await tellBulkCondition(batch.userId, outcome);
        if (outcome.kind === 'refused_key') {
          for (const delivery of inJob) await endFailed(delivery, outcome.reason);
        } else if (outcome.kind === 'write_singly') {
          logger.warn({ batchId: batch.id, why: outcome.why }, 'bulk import given up; writing the batch’s profiles one at a time');
          await writeSingly(inJob, credentials, connection, renewWhenDue);
        } else {
          const written: string[] = [];
          const unsure: BatchDelivery[] = [];
          for (const delivery of inJob) {
            const reason = outcome.refused.get(delivery.email.toLowerCase());
            if (reason) await endFailed(delivery, `Klaviyo: ${reason}`);
            else if (outcome.uncertain) unsure.push(delivery);
            else written.push(delivery.id);
          }
          await recordBatchProfilesWritten(pool, written);
          if (unsure.length > 0) {
            // Klaviyo refused rows it did not name: which of these it wrote is unknown, so
            // each is written again on its own (the same properties; a write is idempotent).
            logger.warn({ batchId: batch.id, rows: unsure.length }, 'import errors did not name every refused row; writing the others one at a time');
            await writeSingly(unsure, credentials, connection, renewWhenDue);
          }
        }
      }
      await updateBatch(pool, batch.id, { status: 'sending_events', leaseUntil: new Date(clock.now().getTime() + leaseMs) });
      deliveries = await listBatchDeliveries(pool, batch.id);
    }

    // Events, for flows that name one: bulk jobs of up to 1,000, unique_id = the delivery id.
    const withEvents = deliveries.filter((delivery) => delivery.profileWrittenAt && delivery.klaviyoEventName && !delivery.eventSentAt);
    for (let start = 0; start < withEvents.length; start += MAX_EVENTS_PER_BULK_JOB) {
      const chunk = withEvents.slice(start, start + MAX_EVENTS_PER_BULK_JOB);
      const time = clock.now().toISOString();
      try {
        await withSlotAndRetries(credentials, 'event-bulk-create-jobs', () => createEventBulkJob(connection, chunk.map((delivery) => eventOf(delivery, time)), stopping.signal));
        await recordBatchEventsSent(pool, chunk.map((delivery) => delivery.id));
      } catch (error) {
        if (!isFinal(error)) throw error;
        logger.warn({ batchId: batch.id, why: error.message }, 'bulk event job refused; sending the events one at a time');
        await sendEventsSingly(chunk, credentials, connection, renewWhenDue);
      }
      await renew();
    }

    await finishBatch(batch);
    logger.info({ batchId: batch.id, deliveries: deliveries.length }, 'bulk delivery batch done');
  }

  /**
   * The deliveries, then their events, in one transaction: marked one after the other, a
   * failure between the two (a lost connection, a crash) left deliveries delivered whose
   * events stayed `delivering` for good, since the batch taken up again had no pending
   * delivery left to finish (a one-hour soak lost 529 events so). Then the batch is done.
   */
  async function finishBatch(batch: Batch): Promise<void> {
    const { pool, clock } = dependencies;
    const delivered = await inTransaction(pool, async (client) => setEventsStatus(client, await finishBatchDeliveries(client, batch.id), 'delivered'));
    for (let count = 0; count < delivered; count += 1) dependencies.observer?.eventFinished('delivered');
    // Rows left out of an over-large job go back to the queue for the next batch.
    await releaseUnsentDeliveries(pool, batch.id);
    await updateBatch(pool, batch.id, { status: 'done', leaseUntil: clock.now() });
  }

  /**
   * Posts the batch's import job (unless it was posted before a crash), follows it until it
   * ends or its deadline passes, and reads every page of its import errors. A refusal that
   * asking again would not change closes the bulk way for this batch. `renew` renews the
   * batch's lease while the job is followed.
   */
  async function importInBulk(
    batch: Batch,
    profiles: ProfileImport[],
    account: { credentials: EngineCredentials; connection: KlaviyoConnection; renew: () => Promise<void> },
  ): Promise<ImportOutcome> {
    const { credentials, connection, renew } = account;
    const { pool, clock } = dependencies;
    try {
      let jobId = batch.jobId;
      let postedAt = batch.jobPostedAt ?? clock.now();
      if (!jobId) {
        const job = await withSlotAndRetries(credentials, 'profile-bulk-import-jobs', () => createProfileImportJob(connection, profiles, stopping.signal));
        jobId = job.id;
        postedAt = clock.now();
        await updateBatch(pool, batch.id, { jobId, jobPostedAt: postedAt, leaseUntil: new Date(clock.now().getTime() + leaseMs) });
      }
      const followed = jobId;
      let job = await withSlotAndRetries(credentials, 'profile-bulk-import-job', () => getProfileImportJob(connection, followed, stopping.signal));
      while (job.status === 'queued' || job.status === 'processing') {
        if (clock.now().getTime() - postedAt.getTime() >= jobDeadlineMs) {
          return { kind: 'write_singly', why: `Klaviyo had not finished import job ${followed} ${Math.round(jobDeadlineMs / 60_000)} minutes after it was posted` };
        }
        await clock.sleep(pollMs, stopping.signal);
        await renew();
        job = await withSlotAndRetries(credentials, 'profile-bulk-import-job', () => getProfileImportJob(connection, followed, stopping.signal));
      }
      if (job.status === 'cancelled') return { kind: 'write_singly', why: `Klaviyo cancelled import job ${followed}` };
      if (job.failedCount === 0) return { kind: 'completed', refused: new Map(), uncertain: false };
      const errors = await withSlotAndRetries(credentials, null, () =>
        listImportErrors(connection, followed, stopping.signal, () => takeSlot(credentials, 'profile-bulk-import-errors')),
      );
      const inJob = new Set(profiles.map((profile) => profile.email.toLowerCase()));
      const refused = new Map<string, string>();
      let named = 0;
      for (const error of errors) {
        if (!error.email || !inJob.has(error.email.toLowerCase())) continue;
        named += 1;
        refused.set(error.email.toLowerCase(), error.reason);
      }
      return { kind: 'completed', refused, uncertain: named < job.failedCount };
    } catch (error) {
      if (!isFinal(error)) throw error;
      if (error.code === 'unauthorized') return { kind: 'refused_key', reason: error.message };
      return { kind: 'write_singly', why: error.message, forbidden: error.code === 'forbidden' };
    }
  }

  /**
   * A key that may not run bulk jobs (403: they need the Lists permission as well as
   * Profiles) makes every backlog slower: the owner is told, and told it is over once a
   * job is accepted again. Other reasons to write singly concern one batch only.
   */
  async function tellBulkCondition(userId: string, outcome: ImportOutcome): Promise<void> {
    if (outcome.kind === 'completed') await dependencies.conditions?.answered(userId, 'klaviyo_bulk_refused');
    else if (outcome.kind === 'write_singly' && outcome.forbidden) await dependencies.conditions?.raise({ userId, kind: 'klaviyo_bulk_refused', detail: outcome.why });
  }

  /** The bulk way's fallback: one profile write per delivery, each recorded as it lands, each refusal that delivery's own. */
  function writeSingly(deliveries: BatchDelivery[], credentials: EngineCredentials, connection: KlaviyoConnection, keepLease: () => Promise<void>): Promise<void> {
    return oneByOne(deliveries, keepLease, async (delivery) => {
      await withSlotAndRetries(credentials, 'profile-import', () => importProfile(connection, profileOf(delivery), stopping.signal));
      await recordBatchProfilesWritten(dependencies.pool, [delivery.id]);
    });
  }

  /** The bulk event job's fallback: one Klaviyo event per delivery; a refused one fails its delivery with the reason. */
  function sendEventsSingly(deliveries: BatchDelivery[], credentials: EngineCredentials, connection: KlaviyoConnection, keepLease: () => Promise<void>): Promise<void> {
    const time = dependencies.clock.now().toISOString();
    return oneByOne(deliveries, keepLease, async (delivery) => {
      await withSlotAndRetries(credentials, 'events', () => createEvent(connection, eventOf(delivery, time), stopping.signal));
      await recordBatchEventsSent(dependencies.pool, [delivery.id]);
    });
  }

  /**
   * Sends each delivery on its own. A final refusal fails that delivery with its reason;
   * one that refuses every row alike (the key) fails the rest without asking again.
   */
  async function oneByOne(deliveries: BatchDelivery[], keepLease: () => Promise<void>, send: (delivery: BatchDelivery) => Promise<void>): Promise<void> {
    for (const [index, delivery] of deliveries.entries()) {
      try {
        await send(delivery);
      } catch (error) {
        if (!isFinal(error)) throw error;
        if (refusesEveryRow(error)) {
          for (const rest of deliveries.slice(index)) await endFailed(rest, error.message);
          return;
        }
        await endFailed(delivery, error.message);
      }
      await keepLease();
    }
  }

  async function endFailed(delivery: BatchDelivery, reason: string): Promise<void> {
    await failPendingDelivery(dependencies.pool, delivery.eventId, delivery.attempt, reason);
    if (await setEventStatus(dependencies.pool, { id: delivery.eventId, attempt: delivery.attempt }, 'failed', reason)) dependencies.observer?.eventFinished('failed');
  }

  function takeSlot(credentials: EngineCredentials, endpoint: KlaviyoEndpoint): Promise<void> {
    return takeKlaviyoSlot(dependencies.pool, klaviyoLimitKey(credentials), endpoint, {
      limits: dependencies.klaviyoLimits,
      clock: dependencies.clock,
      maxInPlaceWaitMs: SLOT_WAIT_STEP_MS,
      signal: stopping.signal,
    });
  }

  /**
   * One Klaviyo request under the endpoint's limit (null: the call takes its own slots),
   * waiting for its slot and for any Retry-After (a 429 changes nothing at Klaviyo, so
   * asking again is safe); other retryable failures are tried again a few times, then the
   * batch's try fails and it is taken up again later.
   */
  async function withSlotAndRetries<T>(credentials: EngineCredentials, endpoint: KlaviyoEndpoint | null, call: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        if (endpoint) await takeSlot(credentials, endpoint);
        return await call();
      } catch (error) {
        if (stopping.signal.aborted) throw error;
        if (error instanceof RateLimitWait) {
          // In steps, asking again after each: a slot another worker gave back, or the
          // clock moving on faster than the wait (a test's), frees it sooner.
          await dependencies.clock.sleep(Math.min(SLOT_WAIT_STEP_MS, Math.max(0, error.until.getTime() - dependencies.clock.now().getTime())), stopping.signal);
          continue;
        }
        if (!(error instanceof ServiceError) || !error.retryable || attempt >= 5) throw error;
        await dependencies.clock.sleep(error.retryAfterMs ?? 500 * attempt, stopping.signal);
      }
    }
  }

  return {
    start() {
      if (loop.isRunning()) return;
      if (stopping.signal.aborted) stopping = new AbortController();
      loop.start();
    },
    wake: () => loop.wake(),
    async stop(options = {}) {
      const drainMs = options.drainMs ?? 0;
      if (drainMs > 0 && !stopping.signal.aborted) {
        const deadline = setTimeout(() => stopping.abort(new Error('the worker is stopping')), drainMs);
        deadline.unref();
        await loop.stop();
        await runOnce().catch(() => 0);
        clearTimeout(deadline);
      }
      stopping.abort(new Error('the worker is stopping'));
      await loop.stop();
    },
    runOnce,
  };
}

function profileOf(delivery: BatchDelivery): ProfileImport {
  return { email: delivery.email, firstName: delivery.firstName, lastName: delivery.lastName, properties: delivery.properties };
}

function eventOf(delivery: BatchDelivery, time: string) {
  return { metricName: delivery.klaviyoEventName!, email: delivery.email, properties: delivery.properties, uniqueId: delivery.id, time };
}

/** The profiles that fit in one job's 5 MB, in order; the rest wait for the next batch. */
function fitInJob(profiles: ProfileImport[]): ProfileImport[] {
  let count = profiles.length;
  while (count > 1 && Buffer.byteLength(profileImportJobBody(profiles.slice(0, count))) > MAX_IMPORT_JOB_BYTES) count = Math.floor(count * 0.9);
  return profiles.slice(0, count);
}
