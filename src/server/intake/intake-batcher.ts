import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';
import { inTransaction } from '../database/database.ts';
import { isDatabaseUnavailable } from '../database/database-errors.ts';
import { findDuplicateOf, insertEventsOnce, type NewEvent } from '../events/event-queries.ts';
import type { Queryable } from '../database/database.ts';
import type { EventStatus } from '../../shared/events/event-schemas.ts';

/** The part of the job queue intake needs: jobs sent and taken back inside its transaction. */
export interface JobSender {
  enqueueMany(db: Queryable, jobs: Array<{ id: string; job: { eventId: string; attempt: number; arm?: boolean } }>): Promise<void>;
  discardJobs(db: Queryable, jobIds: string[]): Promise<void>;
}

/**
 * Stores accepted events together with their jobs, many requests per transaction.
 *
 * Each request still gets its 2xx only after its own event and job are committed; what is
 * shared is the transaction. While one batch commits, the requests arriving meanwhile
 * gather into the next, so under load a commit (and the per-flow lock the event-change
 * trigger takes, docs/decisions/0009-live-stream.md) is paid once per batch instead of
 * once per request; a lone request is written at once. If a batch fails, each of its
 * events is tried alone, so one event the database refuses cannot fail its neighbours.
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
// Batches of one flow wait for each other on the change-log lock; two keep one committing
// while the next is written, more only queue behind that lock.
const MAX_PARALLEL_BATCHES = 2;

export class IntakeBatcher {
  private readonly pool: pg.Pool;
  private readonly jobs: JobSender;
  private readonly logger: Logger;
  private queue: Pending[] = [];
  private running = 0;

  constructor(pool: pg.Pool, jobs: JobSender, logger: Logger) {
    this.pool = pool;
    this.jobs = jobs;
    this.logger = logger;
  }

  /** Resolves once the event (and, when `enqueue`, its job) is committed, or was already stored. */
  store(event: NewEvent, enqueue: boolean): Promise<StoredEvent> {
    return new Promise((resolve, reject) => {
      this.queue.push({ event, enqueue, resolve, reject });
      this.drain();
    });
  }

  private drain(): void {
    while (this.running < MAX_PARALLEL_BATCHES && this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      this.running += 1;
      void this.write(batch).finally(() => {
        this.running -= 1;
        this.drain();
      });
    }
  }

  private async write(batch: Pending[]): Promise<void> {
    try {
      const inserted = await this.commit(batch);
      await this.settle(batch, inserted);
    } catch (error) {
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
      await Promise.all(batch.map((pending) => this.write([pending])));
    }
  }

  /**
   * Jobs first, events last: the events insert takes the per-flow lock of the change-log
   * trigger, which is then held only for that statement and the commit. Jobs of events
   * that turn out to be duplicates are taken back before the commit.
   */
  private commit(batch: Pending[]): Promise<Set<string>> {
    return inTransaction(this.pool, async (client) => {
      const jobs = batch
        .filter((pending) => pending.enqueue)
        // A waiting event's job only arms its timer; the timer sweep sends the one that generates.
        .map((pending) => ({ id: randomUUID(), job: { eventId: pending.event.id, attempt: 1, arm: pending.event.status === 'waiting' } }));
      await this.jobs.enqueueMany(client, jobs);
      const inserted = await insertEventsOnce(
        client,
        batch.map((pending) => pending.event),
      );
      await this.jobs.discardJobs(
        client,
        jobs.filter((job) => !inserted.has(job.job.eventId)).map((job) => job.id),
      );
      return inserted;
    });
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
