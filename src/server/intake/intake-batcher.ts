import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';
import { isDatabaseUnavailable } from '../database/database-errors.ts';
import { findDuplicateOf, insertEventsOnce, type JobsForEvents, type NewEvent } from '../events/event-queries.ts';
import type { EventStatus } from '../../shared/events/event-statuses.ts';

/** The part of the job queue intake needs: the statement that sends jobs, run with their events. */
export interface JobSender {
  jobsStatement(jobs: Array<{ id: string; job: { eventId: string; attempt: number; arm?: boolean } }>): Promise<JobsForEvents | null>;
  /** The jobs of a statement from `jobsStatement` were sent (a worker in this process may take them now). */
  jobsSent(): void;
  /** Webhooks are queueing for the database (a worker in this process should leave it to them for a moment). */
  intakeBusy(): void;
}

/**
 * Stores accepted events together with their jobs, many requests per transaction.
 *
 * Each request still gets its 2xx only after its own event and job are committed; what is
 * shared is the statement, which stores a batch's events and their jobs in one round trip
 * (docs/decisions/0031-one-statement-intake.md). While one batch commits, the requests
 * arriving meanwhile gather into the next, so under load a commit (with its flush, and the
 * arrivals trigger's notification, which PostgreSQL commits one at a time:
 * docs/decisions/0009-live-stream.md) is paid once per batch instead of once per request;
 * a lone request is written at once. If a batch
 * fails, each of its events is tried alone, so one event the database refuses cannot
 * fail its neighbours.
 */
export interface StoredEvent {
  inserted: boolean;
  id: string;
  status: EventStatus;
}

interface Pending {
  event: NewEvent;
  enqueue: boolean;
  resolve(stored: StoredEvent): void;
  reject(error: unknown): void;
}

const MAX_BATCH = 100;
/**
 * A batch this large means webhooks gathered while the last one was written: they are
 * queueing for the database, as in a flood (a sale, a bulk import, a backlog Shopify sends
 * again), not arriving one by one, which even at 150 a second go in batches of one to
 * three. Then the intake tells the worker of this process to take few new jobs for a
 * moment (docs/decisions/0055-intake-first.md).
 */
const BUSY_BATCH = 10;
/**
 * How many batches may be at the database at once. One on a server: a second batch of the
 * same flow only waits there on the first's change-log lock, and each is smaller, which
 * measured slower (docs/decisions/0031-one-statement-intake.md). Two on the embedded
 * database, and only under a flood: its single session runs one exchange at a time anyway,
 * so the second batch waits in the wire server's queue, ready to run the moment the first
 * commits, instead of being built only after this process has read the first's answer.
 * Under a flood that read waits behind the HTTP requests this process is answering, and
 * the session sat idle a third of the time in between (docs/decisions/0058-embedded-intake-pipeline.md).
 */
export interface BatchLimits {
  maxParallelBatches: 1 | 2;
}

export const serverBatchLimits: BatchLimits = { maxParallelBatches: 1 };
export const embeddedBatchLimits: BatchLimits = { maxParallelBatches: 2 };

export class IntakeBatcher {
  private readonly pool: pg.Pool;
  private readonly jobs: JobSender;
  private readonly logger: Logger;
  private queue: Pending[] = [];
  private running = 0;
  private drainScheduled = false;
  private readonly limits: BatchLimits;

  constructor(pool: pg.Pool, jobs: JobSender, logger: Logger, limits: BatchLimits = serverBatchLimits) {
    this.pool = pool;
    this.jobs = jobs;
    this.logger = logger;
    this.limits = limits;
  }

  /** Resolves once the event (and, when `enqueue`, its job) is committed, or was already stored. */
  store(event: NewEvent, enqueue: boolean): Promise<StoredEvent> {
    return new Promise((resolve, reject) => {
      this.queue.push({ event, enqueue, resolve, reject });
      this.drainAfterThisTurn();
    });
  }

  /**
   * Starts a batch once the event loop has run every callback of its current turn, not at
   * the first request: a burst of requests read in one turn then goes as one batch. Sent
   * at once, the first of them went alone, and the rest (up to a hundred, measured in
   * bench:ingest) waited behind a statement for one event. A lone request loses nothing:
   * setImmediate runs in the same turn, after its I/O callbacks.
   */
  private drainAfterThisTurn(): void {
    if (this.drainScheduled) return;
    this.drainScheduled = true;
    setImmediate(() => {
      this.drainScheduled = false;
      this.drain();
    });
  }

  /**
   * Starts the next batch when none is at the database; a second one beside it only where
   * the limits allow, and only once a flood's worth has gathered (BUSY_BATCH), so that
   * webhooks arriving one by one still go as they did, one batch at a time.
   */
  private drain(): void {
    while (this.queue.length > 0 && (this.running === 0 || (this.running < this.limits.maxParallelBatches && this.queue.length >= BUSY_BATCH))) {
      const batch = this.queue.splice(0, MAX_BATCH);
      if (batch.length >= BUSY_BATCH) this.jobs.intakeBusy();
      this.running += 1;
      void this.write(batch, () => {
        this.running -= 1;
        this.drain();
      });
    }
  }

  /**
   * Commits a batch, gives its place to the next one, then answers its requests. The next
   * batch goes to the database before this one's answers are written: answering fifty
   * requests takes the event loop a millisecond or two, which the database spent idle
   * while the next batch waited behind them.
   */
  private async write(batch: Pending[], release: () => void): Promise<void> {
    let inserted: Set<string>;
    try {
      inserted = await this.commit(batch);
    } catch (error) {
      try {
        await this.recover(batch, error);
      } finally {
        release();
      }
      return;
    }
    release();
    await this.settle(batch, inserted);
  }

  private async recover(batch: Pending[], error: unknown): Promise<void> {
    // An unreachable database fails every event alike, the ones still queued too: trying
    // again would keep senders waiting past their deadline for a 503 (docs/decisions/0017-staying-up.md).
    if (isDatabaseUnavailable(error)) {
      for (const pending of [...batch, ...this.queue.splice(0)]) pending.reject(error);
      return;
    }
    if (batch.length === 1) {
      batch[0]!.reject(error);
      return;
    }
    this.logger.warn({ err: error, events: batch.length }, 'intake batch failed; storing its events one by one');
    await Promise.all(batch.map((pending) => this.write([pending], () => undefined)));
  }

  /**
   * One statement: the events, then the jobs of those that were not duplicates. No client
   * round trip falls inside it, so the locks it takes (the rows it writes, its
   * notification's at commit) are held only while the database works.
   */
  private async commit(batch: Pending[]): Promise<Set<string>> {
    const jobs = batch
      .filter((pending) => pending.enqueue)
      // A waiting event's job only arms its timer; the timer sweep sends the one that generates.
      .map((pending) => ({ id: randomUUID(), job: { eventId: pending.event.id, attempt: 1, arm: pending.event.status === 'waiting' } }));
    const inserted = await insertEventsOnce(
      this.pool,
      batch.map((pending) => pending.event),
      await this.jobs.jobsStatement(jobs),
    );
    if (jobs.length > 0) this.jobs.jobsSent();
    return inserted;
  }

  /** Answers every request of a committed batch; a duplicate gets the id of the event it repeats. */
  private async settle(batch: Pending[], inserted: Set<string>): Promise<void> {
    await Promise.all(
      batch.map(async (pending) => {
        if (inserted.has(pending.event.id)) {
          pending.resolve({ inserted: true, id: pending.event.id, status: pending.event.status });
          return;
        }
        try {
          const original = await findDuplicateOf(this.pool, pending.event);
          if (!original) throw new Error('The event could not be stored: its id is already taken');
          pending.resolve({ inserted: false, id: original.id, status: original.status });
        } catch (error) {
          pending.reject(error);
        }
      }),
    );
  }
}
