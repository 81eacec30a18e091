import { PgBoss, type Db, type JobWithMetadata } from 'pg-boss';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Queryable } from '../database/database.ts';
import { createBackgroundLoop, type BackgroundLoop } from './background-loop.ts';

/**
 * The durable queue between receiving and processing (pg-boss, on the app's own pool).
 * A job is sent in the same transaction that stores its event, so an event is never
 * stored without its job or the other way round.
 *
 * Workers do not use pg-boss's `work()`: that settles a fetched batch only when its
 * slowest job is done, so one slow OpenAI answer would hold the rest of its batch back.
 * Here each job runs on its own the moment it is fetched, up to `concurrency` at a time,
 * and is completed or failed by itself (docs/decisions/0008-engine.md).
 */
export const PROCESS_EVENT_QUEUE = 'process-event';

/** How long one sign of a busy intake holds the worker back; each busy batch renews it. */
export const INTAKE_BUSY_MS = 500;

/** How often a worker looks for a due scheduled job: a few seconds late is nothing to work due every quarter hour. */
const SCHEDULED_POLL_SECONDS = 5;

export interface ProcessEventJob {
  eventId: string;
  attempt: number;
  /**
   * A waiting event's first job: it ends the timers this event ends (a newer update, say)
   * and checks whether the event is already ended, but never generates; the timer sweep
   * sends the job that does, when the wait is over (shopper-timers.ts).
   */
  arm?: boolean;
}

export interface EventJobOptions {
  /** Jobs in flight per process. */
  concurrency: number;
  /**
   * Jobs in flight at most while this process's intake is busy (see `intakeBusy`): enough
   * to keep events moving, few enough to leave the database and the event loop to the
   * webhooks that are waiting for their answer.
   */
  concurrencyWhileIntakeBusy: number;
  /** How often an idle worker looks for new jobs (other processes' sends). */
  pollIntervalMs: number;
  /** Retries of a job whose handler crashed (a failed service call is not a crash: its next try is scheduled on the event). */
  retryLimit: number;
  retryDelaySeconds: number;
  /** A job whose worker stops sending heartbeats (a killed process) is retried after this. */
  heartbeatSeconds: number;
  /** How often expired and heartbeat-less jobs are looked for (pg-boss supervision). */
  superviseIntervalSeconds: number;
  /** How long stopping waits for jobs in flight before failing them, so they are retried. */
  stopTimeoutMs: number;
}

export type ProcessEventHandler = (job: JobWithMetadata<ProcessEventJob>, signal: AbortSignal) => Promise<void>;

/** pg-boss statements on a pool or on a transaction's client. */
function asBossDb(db: Queryable): Db {
  return { executeSql: (text, values) => db.query(text, values as unknown[] | undefined) };
}

export class JobQueue {
  private readonly boss: PgBoss;
  private readonly options: EventJobOptions;
  private readonly logger: Logger;
  private started = false;
  private worker: JobPump | null = null;

  /**
   * `keepsSchedules`: whether this process runs pg-boss's cron of scheduled work (the
   * processes that work on jobs). Supervision runs wherever the queue does: a web process
   * beside workers hands a killed worker's jobs on as soon as any of them.
   */
  constructor(pool: pg.Pool, options: EventJobOptions, logger: Logger, placement: { keepsSchedules: boolean } = { keepsSchedules: true }) {
    this.options = options;
    this.logger = logger;
    this.boss = new PgBoss({
      db: asBossDb(pool),
      schema: 'pgboss',
      superviseIntervalSeconds: options.superviseIntervalSeconds,
      monitorIntervalSeconds: options.superviseIntervalSeconds,
      // The cron of scheduled work (startScheduled) is kept where that work runs.
      schedule: placement.keepsSchedules,
    });
    this.boss.on('error', (error) => logger.warn({ err: error }, 'job queue error'));
  }

  async start(): Promise<void> {
    if (this.started) return;
    await this.boss.start();
    const queue = {
      retryLimit: this.options.retryLimit,
      retryDelay: this.options.retryDelaySeconds,
      retryBackoff: true,
      heartbeatSeconds: this.options.heartbeatSeconds,
      expireInSeconds: 60 * 60,
      // Jobs that ended failed (a handler that crashed on every try) are kept a day for a
      // look, then pg-boss's maintenance deletes them; finished jobs are deleted at once.
      deleteAfterSeconds: 24 * 60 * 60,
    };
    await this.boss.createQueue(PROCESS_EVENT_QUEUE, queue);
    // createQueue leaves an existing queue as it was; a database from an earlier version gets these settings too.
    await this.boss.updateQueue(PROCESS_EVENT_QUEUE, queue);
    // pg-boss looks a queue up in its cache before sending, and fills a miss from the pool.
    // Inside the intake transaction that second connection would wait behind the first on
    // the single-session embedded database, for ever; so the cache is filled here, once.
    await this.boss.findJobs(PROCESS_EVENT_QUEUE, { id: '00000000-0000-0000-0000-000000000000' });
    this.started = true;
  }

  /**
   * Sends within the caller's transaction: the job exists exactly when the event does. Jobs
   * are due at once; waiting is the timer sweep's business (shopper-timers.ts), on the app's clock.
   */
  async send(db: Queryable, job: ProcessEventJob): Promise<void> {
    await this.boss.send(PROCESS_EVENT_QUEUE, job, { db: asBossDb(db), heartbeatSeconds: this.options.heartbeatSeconds });
    this.worker?.wake();
  }

  /**
   * pg-boss's own statement for sending many jobs (ids chosen by the caller), not run here:
   * the intake runs it in the statement that stores their events, so that both are one
   * round trip (events/event-queries.ts, docs/decisions/0031). pg-boss builds it exactly
   * as for `insert`, and hands it to the database adapter given, which keeps it.
   *
   * The one place the app leans on pg-boss's SQL rather than its API: the statement's
   * shape (one parameter, the jobs as JSON; an insert and nothing else, so that it can run
   * inside store_events_once) is pg-boss's internal business. That is why package.json
   * pins pg-boss to one exact version, and why test/integration/event-jobs-statement.test.ts
   * holds the statement this version builds: an upgrade that changes it fails there
   * before it reaches an owner (docs/decisions/0034-stored-functions-in-modules.md).
   */
  async sendManyStatement(jobs: Array<{ id: string; job: ProcessEventJob }>): Promise<{ statement: string; jobs: string } | null> {
    if (jobs.length === 0) return null;
    let kept: { statement: string; jobs: string } | null = null;
    const keeper: Db = {
      executeSql: async (text, values) => {
        const [payload] = values ?? [];
        if (kept || typeof payload !== 'string' || values?.length !== 1) throw new Error('pg-boss sent jobs in an unexpected form');
        kept = { statement: text, jobs: payload };
        return { rows: [] };
      },
    };
    await this.boss.insert(
      PROCESS_EVENT_QUEUE,
      jobs.map(({ id, job }) => ({ id, data: job, heartbeatSeconds: this.options.heartbeatSeconds })),
      { db: keeper },
    );
    if (!kept) throw new Error('pg-boss built no statement for the jobs');
    return kept;
  }

  /** Tells this process's worker that jobs were sent by another path (sendManyStatement's). */
  jobsSent(): void {
    this.worker?.wake();
  }

  /**
   * Tells this process's worker that webhooks are queueing for the database here: for the
   * next INTAKE_BUSY_MS it takes new jobs only up to `concurrencyWhileIntakeBusy`. A
   * sender waits for its answer and gives up after seconds (Shopify after 5), while a job
   * taken a moment later loses nothing (docs/decisions/0055-intake-first.md).
   */
  intakeBusy(): void {
    this.worker?.holdBack(INTAKE_BUSY_MS);
  }

  /** Starts taking jobs in this process. */
  work(handler: ProcessEventHandler): void {
    if (this.worker) return;
    this.worker = new JobPump(this.boss, handler, this.options, this.logger);
    this.worker.start();
  }

  /**
   * Periodic work on pg-boss's cron (one-minute granularity, UTC): the schedule is one row
   * per queue, the timekeeper of a working process sends one job when it is due, and one
   * worker process takes it, so two workers never run it at once. Work that needs seconds
   * rather than minutes is a background loop instead (src/server/background/).
   */
  async startScheduled(queue: string, cron: string, run: () => Promise<unknown>, failureMessage = 'scheduled work failed; it runs again at its next time'): Promise<void> {
    // No retries: the next occurrence is the retry, and a pass left half done is taken up by
    // it. A pass still running after an hour is given up as expired, for the next to go on.
    await this.boss.createQueue(queue, { retryLimit: 0, expireInSeconds: 60 * 60, deleteAfterSeconds: 24 * 60 * 60 });
    await this.boss.schedule(queue, cron, null, { tz: 'UTC' });
    await this.boss.work(queue, { pollingIntervalSeconds: SCHEDULED_POLL_SECONDS }, async () => {
      try {
        await run();
      } catch (error) {
        // Logged here, by what failed; the job ends done either way, as its next occurrence is the retry.
        this.logger.warn({ err: error, queue }, failureMessage);
      }
    });
  }

  /** Takes no more of the queue's jobs, once the one under way has ended; the schedule stays for other workers. */
  async stopScheduled(queue: string): Promise<void> {
    await this.boss.offWork(queue, { wait: true });
  }

  /** Lets jobs in flight finish (up to the stop timeout), then takes no more. */
  async stopWorking(): Promise<void> {
    if (this.worker) await this.worker.stop();
    this.worker = null;
  }

  /** Stops working (if this process does), then stops the queue. */
  async stop(): Promise<void> {
    await this.stopWorking();
    if (this.started) await this.boss.stop({ graceful: true, close: false, timeout: 1_000 });
    this.started = false;
  }

  /** Jobs of this process still running (for tests and shutdown logs). */
  inFlight(): number {
    return this.worker?.inFlightCount() ?? 0;
  }
}

interface RunningJob {
  job: JobWithMetadata<ProcessEventJob>;
  controller: AbortController;
  /** The handler has ended and the job is being deleted or handed back: a heartbeat that misses it says nothing. */
  settling: boolean;
  done: Promise<void>;
}

class JobPump {
  private readonly boss: PgBoss;
  private readonly handler: ProcessEventHandler;
  private readonly options: EventJobOptions;
  private readonly logger: Logger;
  /**
   * Runs in flight. A set, not a map by job id: after a lapsed heartbeat this worker may take
   * up again a job it is still running (a database outage, decision 0059), and each run is
   * its own entry until it ends.
   */
  private readonly running = new Set<RunningJob>();
  /** Fetches jobs every poll interval, and at once after a local send or a finished job (when full). */
  private readonly fetching: BackgroundLoop;
  /** One statement refreshes every job in flight; a killed process stops refreshing, and supervision then hands its jobs to another worker. */
  private readonly heartbeat: BackgroundLoop;
  /** Until this time (ms since the epoch, real time) new jobs are taken only up to `concurrencyWhileIntakeBusy`. */
  private heldBackUntil = 0;

  constructor(boss: PgBoss, handler: ProcessEventHandler, options: EventJobOptions, logger: Logger) {
    this.boss = boss;
    this.handler = handler;
    this.options = options;
    this.logger = logger;
    this.fetching = createBackgroundLoop({ name: 'event-jobs', intervalMs: options.pollIntervalMs, run: () => this.fetchWhileFree(), logger });
    this.heartbeat = createBackgroundLoop({
      name: 'event-job-heartbeat',
      intervalMs: (options.heartbeatSeconds * 1000) / 3,
      run: () => this.touchRunning(),
      logger,
      runAtStart: false,
    });
  }

  start(): void {
    this.fetching.start();
    this.heartbeat.start();
  }

  wake(): void {
    this.fetching.wake();
  }

  holdBack(forMs: number): void {
    this.heldBackUntil = Math.max(this.heldBackUntil, Date.now() + forMs);
  }

  inFlightCount(): number {
    return this.running.size;
  }

  /** Fetches until the worker is full or a fetch comes back short; one that found jobs asks for a look again right after. */
  private async fetchWhileFree(): Promise<void> {
    for (;;) {
      const heldBackFor = this.heldBackUntil - Date.now();
      const limit = heldBackFor > 0 ? this.options.concurrencyWhileIntakeBusy : this.options.concurrency;
      const free = limit - this.running.size;
      if (free <= 0) {
        // No job may finish before the hold ends; the jobs waiting are looked for then, not a poll later.
        if (heldBackFor > 0) this.fetching.wakeIn(heldBackFor + 1);
        return;
      }
      const wanted = Math.min(free, 100);
      let jobs: Array<JobWithMetadata<ProcessEventJob>>;
      try {
        jobs = await this.boss.fetch<ProcessEventJob>(PROCESS_EVENT_QUEUE, { batchSize: wanted, includeMetadata: true });
      } catch (error) {
        if (!this.fetching.isRunning()) return;
        this.logger.warn({ err: error }, 'fetching jobs failed; trying again');
        return;
      }
      for (const job of jobs) this.run(job);
      if (jobs.length === wanted) continue;
      // Jobs sent while this fetch ran are looked for once more before the loop waits.
      if (jobs.length > 0) this.wake();
      return;
    }
  }

  private run(job: JobWithMetadata<ProcessEventJob>): void {
    // A job claimed before ran once already: it failed, or its worker stopped sending
    // heartbeats (killed, or too busy to reach the database) and may still be running it.
    // Said here, as its earlier run may never say anything; pg-boss counts each claim.
    if (job.retryCount > 0) this.logger.info({ eventId: job.data.eventId, retryCount: job.retryCount }, 'event job taken up again after an earlier run');
    const controller = new AbortController();
    const entry: RunningJob = { job, controller, settling: false, done: Promise.resolve() };
    entry.done = (async () => {
      try {
        await this.handler(job, controller.signal);
        entry.settling = true;
        // A finished job is deleted, not kept as `completed`: the event row is the record of
        // what happened, and kept jobs made every pass of pg-boss's queue statistics count
        // a week of them (docs/decisions/0033-steady-for-hours.md). Fenced on the attempt,
        // so a worker whose job was handed to another (a lapsed heartbeat) deletes nothing.
        await this.boss.deleteJob(PROCESS_EVENT_QUEUE, job);
      } catch (error) {
        entry.settling = true;
        const message = error instanceof Error ? error.message : String(error);
        if (!controller.signal.aborted) this.logger.warn({ err: error, eventId: job.data.eventId }, 'event job failed; it will be retried');
        await this.boss.fail(PROCESS_EVENT_QUEUE, job, { message }).catch((failError: unknown) => {
          this.logger.warn({ err: failError, eventId: job.data.eventId }, 'could not hand the job back; it is retried when its heartbeat lapses');
        });
      } finally {
        this.running.delete(entry);
        this.wake();
      }
    })();
    this.running.add(entry);
  }

  private async touchRunning(): Promise<void> {
    if (this.running.size === 0) return;
    const held = [...this.running];
    let touched: { settled?: unknown };
    try {
      touched = await this.boss.touch(PROCESS_EVENT_QUEUE, held.map(({ job }) => job));
    } catch (error) {
      // A heartbeat that could not run says nothing about the claims: no run is stopped.
      this.logger.warn({ err: error }, 'job heartbeat failed');
      return;
    }
    // The refresh is fenced on each job's claim (its retry count), and pg-boss returns the ids
    // it refreshed. A run whose claim was not refreshed, or was followed by a newer claim of
    // the same job, no longer holds its job: its heartbeat lapsed and another run took the
    // job up (decision 0061). It is stopped here, as pg-boss's own workers stop theirs, so it
    // waits for and pays for nothing more. A response without the ids stops nothing.
    if (!Array.isArray(touched.settled)) return;
    const refreshed = new Set(touched.settled);
    const newestClaim = new Map<string, number>();
    for (const { job } of held) newestClaim.set(job.id, Math.max(newestClaim.get(job.id) ?? -1, job.retryCount));
    for (const entry of held) {
      const holdsItsJob = refreshed.has(entry.job.id) && newestClaim.get(entry.job.id) === entry.job.retryCount;
      if (holdsItsJob || entry.settling || !this.running.has(entry) || entry.controller.signal.aborted) continue;
      this.logger.info({ eventId: entry.job.data.eventId, retryCount: entry.job.retryCount }, 'event job taken up by another run; this run stops');
      entry.controller.abort(new Error('The event job was taken up by another run'));
    }
  }

  async stop(): Promise<void> {
    await this.fetching.stop();
    const deadline = Date.now() + this.options.stopTimeoutMs;
    const all = () => Promise.all([...this.running].map((entry) => entry.done));
    const timedOut = await Promise.race([
      all().then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), Math.max(0, deadline - Date.now())).unref()),
    ]);
    if (timedOut) {
      this.logger.info({ jobs: this.running.size }, 'stopping: handing unfinished jobs back to the queue');
      for (const entry of this.running) entry.controller.abort(new Error('The worker is stopping'));
      await all();
    }
    // Last: jobs still finishing keep their heartbeat until they end.
    await this.heartbeat.stop();
  }
}
