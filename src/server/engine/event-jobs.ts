import { PgBoss, type Db, type JobWithMetadata } from 'pg-boss';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Queryable } from '../database/database.ts';

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

export class EventJobs {
  private readonly boss: PgBoss;
  private readonly options: EventJobOptions;
  private readonly logger: Logger;
  private started = false;
  private worker: JobPump | null = null;

  constructor(pool: pg.Pool, options: EventJobOptions, logger: Logger) {
    this.options = options;
    this.logger = logger;
    this.boss = new PgBoss({
      db: asBossDb(pool),
      schema: 'pgboss',
      superviseIntervalSeconds: options.superviseIntervalSeconds,
      monitorIntervalSeconds: options.superviseIntervalSeconds,
      schedule: false,
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

  /** Starts taking jobs in this process. */
  work(handler: ProcessEventHandler): void {
    if (this.worker) return;
    this.worker = new JobPump(this.boss, handler, this.options, this.logger);
    this.worker.start();
  }

  /** Lets jobs in flight finish (up to the stop timeout), then stops the queue. */
  async stop(): Promise<void> {
    if (this.worker) await this.worker.stop();
    this.worker = null;
    if (this.started) await this.boss.stop({ graceful: true, close: false, timeout: 1_000 });
    this.started = false;
  }

  /** Jobs of this process still running (for tests and shutdown logs). */
  inFlight(): number {
    return this.worker?.inFlightCount() ?? 0;
  }
}

class JobPump {
  private readonly boss: PgBoss;
  private readonly handler: ProcessEventHandler;
  private readonly options: EventJobOptions;
  private readonly logger: Logger;
  private readonly running = new Map<string, { job: JobWithMetadata<ProcessEventJob>; controller: AbortController; done: Promise<void> }>();
  private stopping = false;
  private loopDone: Promise<void> = Promise.resolve();
  private wakeUp: (() => void) | null = null;
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(boss: PgBoss, handler: ProcessEventHandler, options: EventJobOptions, logger: Logger) {
    this.boss = boss;
    this.handler = handler;
    this.options = options;
    this.logger = logger;
  }

  start(): void {
    this.loopDone = this.loop();
    // One statement refreshes every job in flight; a killed process stops refreshing, and
    // supervision then hands its jobs to another worker.
    this.heartbeat = setInterval(() => void this.touchRunning(), (this.options.heartbeatSeconds * 1000) / 3);
    this.heartbeat.unref();
  }

  wake(): void {
    this.wakeUp?.();
  }

  inFlightCount(): number {
    return this.running.size;
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      const free = this.options.concurrency - this.running.size;
      let fetched = 0;
      if (free > 0) {
        try {
          const jobs = await this.boss.fetch<ProcessEventJob>(PROCESS_EVENT_QUEUE, { batchSize: Math.min(free, 100), includeMetadata: true });
          fetched = jobs.length;
          for (const job of jobs) this.run(job);
          if (fetched === Math.min(free, 100)) continue;
        } catch (error) {
          if (this.stopping) break;
          this.logger.warn({ err: error }, 'fetching jobs failed; trying again');
        }
      }
      await this.idle(fetched > 0 ? 0 : this.options.pollIntervalMs);
    }
  }

  /** Waits for the poll interval, a local send, or a finished job (when full). */
  private idle(milliseconds: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wakeUp === done) this.wakeUp = null;
        resolve();
      };
      const timer = setTimeout(done, milliseconds);
      this.wakeUp = done;
    });
  }

  private run(job: JobWithMetadata<ProcessEventJob>): void {
    const controller = new AbortController();
    const done = (async () => {
      try {
        await this.handler(job, controller.signal);
        // A finished job is deleted, not kept as `completed`: the event row is the record of
        // what happened, and kept jobs made every pass of pg-boss's queue statistics count
        // a week of them (docs/decisions/0033-steady-for-hours.md). Fenced on the attempt,
        // so a worker whose job was handed to another (a lapsed heartbeat) deletes nothing.
        await this.boss.deleteJob(PROCESS_EVENT_QUEUE, job);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (!controller.signal.aborted) this.logger.warn({ err: error, eventId: job.data.eventId }, 'event job failed; it will be retried');
        await this.boss.fail(PROCESS_EVENT_QUEUE, job, { message }).catch((failError: unknown) => {
          this.logger.warn({ err: failError, eventId: job.data.eventId }, 'could not hand the job back; it is retried when its heartbeat lapses');
        });
      } finally {
        this.running.delete(job.id);
        this.wake();
      }
    })();
    this.running.set(job.id, { job, controller, done });
  }

  private async touchRunning(): Promise<void> {
    if (this.running.size === 0) return;
    const jobs = [...this.running.values()].map(({ job }) => job);
    try {
      await this.boss.touch(PROCESS_EVENT_QUEUE, jobs);
    } catch (error) {
      this.logger.warn({ err: error }, 'job heartbeat failed');
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loopDone;
    const deadline = Date.now() + this.options.stopTimeoutMs;
    const all = () => Promise.all([...this.running.values()].map((entry) => entry.done));
    const timedOut = await Promise.race([
      all().then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), Math.max(0, deadline - Date.now())).unref()),
    ]);
    if (timedOut) {
      this.logger.info({ jobs: this.running.size }, 'stopping: handing unfinished jobs back to the queue');
      for (const entry of this.running.values()) entry.controller.abort(new Error('The worker is stopping'));
      await all();
    }
    if (this.heartbeat) clearInterval(this.heartbeat);
  }
}
