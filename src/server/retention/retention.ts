import type pg from 'pg';
import type { Logger } from 'pino';
import type { Clock } from '../platform/clock.ts';
import type { AppRole } from '../config.ts';
import { deleteEventsReceivedBefore } from '../events/event-queries.ts';
import { deleteFinishedBatchesBefore } from '../engine/klaviyo-batch-queries.ts';
import { deleteSpentCooldowns } from '../engine/generation-cap-queries.ts';
import { listRetentionPeriods } from './retention-queries.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface RetentionOptions {
  /** Rows one statement deletes at most: each batch commits on its own, so no lock is held for long. */
  batchSize: number;
  /** How often the job runs (the period is counted in days; an hour late is within the promise). */
  intervalMs: number;
}

export const defaultRetentionOptions: RetentionOptions = { batchSize: 500, intervalMs: 15 * 60_000 };

/** When data of an owner who keeps it `days` days becomes old enough to delete. */
export function retentionCutoff(now: Date, days: number): Date {
  return new Date(now.getTime() - days * DAY_MS);
}

async function drain(deleteBatch: () => Promise<number>, batchSize: number): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteBatch();
    total += deleted;
    if (deleted < batchSize) return total;
  }
}

/**
 * One pass of the retention job (docs/decisions/0029-retention-and-account-deletion.md):
 * for every owner, by their own period, deletes the events received before the cutoff
 * (their texts, deliveries and cap passes go with them), the finished bulk jobs and the
 * spent shopper cooldowns. Events are deleted through the events module, the only writer
 * of `events`. The realtime change feed prunes itself after a day, and the daily spend
 * and generation counts stay: they are totals without shopper data.
 */
export async function runRetention(pool: pg.Pool, now: Date, options: Pick<RetentionOptions, 'batchSize'> = defaultRetentionOptions): Promise<{ events: number }> {
  const { batchSize } = options;
  let events = 0;
  let afterId = '';
  for (;;) {
    const owners = await listRetentionPeriods(pool, afterId, 200);
    for (const owner of owners) {
      const cutoff = retentionCutoff(now, owner.days);
      events += await drain(() => deleteEventsReceivedBefore(pool, owner.userId, cutoff, batchSize), batchSize);
      await drain(() => deleteFinishedBatchesBefore(pool, owner.userId, cutoff, batchSize), batchSize);
      await drain(() => deleteSpentCooldowns(pool, owner.userId, cutoff, now, batchSize), batchSize);
    }
    if (owners.length < 200) return { events };
    afterId = owners[owners.length - 1]!.userId;
  }
}

export interface RetentionJob {
  start(): void;
  stop(): Promise<void>;
  /** One pass now, by the app's clock (tests call it after moving the manual clock). */
  runOnce(): Promise<{ events: number }>;
}

/**
 * The job runs in the processes that work on events (roles all and worker), every
 * `intervalMs` and once at start. Two workers running it at once is harmless: each batch
 * skips the rows the other holds, and a row is deleted once.
 */
export function createRetentionJob(dependencies: { pool: pg.Pool; clock: Clock; logger: Logger; role: AppRole; options?: Partial<RetentionOptions> }): RetentionJob {
  const options = { ...defaultRetentionOptions, ...dependencies.options };
  const logger = dependencies.logger.child({ module: 'retention' });
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();
  const runOnce = async () => {
    const result = await runRetention(dependencies.pool, dependencies.clock.now(), options);
    if (result.events > 0) logger.info({ events: result.events }, 'deleted events past their owners’ retention');
    return result;
  };
  const tick = () => {
    running = runOnce().catch((error: unknown) => logger.warn({ err: error }, 'retention pass failed; trying again at the next'));
  };
  return {
    start() {
      if (dependencies.role === 'web' || timer) return;
      timer = setInterval(tick, options.intervalMs);
      timer.unref();
      tick();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
    runOnce,
  };
}
