import type pg from 'pg';
import type { Logger } from 'pino';
import type { Clock } from '../platform/clock.ts';
import { deleteEventsReceivedBefore } from '../events/event-queries.ts';
import { deleteFinishedBatchesBefore } from '../engine/delivery/klaviyo-batch-queries.ts';
import { deleteSpentCooldowns } from '../engine/limits/generation-cap-queries.ts';
import { forgetShoppersOfEndedExperiments } from '../experiments/experiment-queries.ts';
import { listRetentionPeriods } from './retention-queries.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface RetentionOptions {
  /** Rows one statement deletes at most: each batch commits on its own, so no lock is held for long. */
  batchSize: number;
}

export const defaultRetentionOptions: RetentionOptions = { batchSize: 500 };

/**
 * When the job runs: every quarter hour, on pg-boss's cron (the period is counted in days;
 * an hour late is within the promise).
 */
export const RETENTION_SCHEDULE = '*/15 * * * *';

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
 * spent shopper cooldowns, and forgets the shoppers of ended experiments (their counts
 * stay). Events are deleted through the events module, the only writer of `events`. The realtime change feed prunes itself after a day, and the daily spend
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
      await drain(() => deleteSpentCooldowns(pool, owner.userId, { cutoff, now }, batchSize), batchSize);
      await drain(() => forgetShoppersOfEndedExperiments(pool, owner.userId, cutoff, batchSize), batchSize);
    }
    if (owners.length < 200) return { events };
    afterId = owners[owners.length - 1]!.userId;
  }
}

export interface RetentionJob {
  /** One pass now, by the app's clock: the scheduled job's work (tests call it after moving the manual clock). */
  runOnce(): Promise<{ events: number }>;
}

/**
 * The scheduled job's pass (RETENTION_SCHEDULE; the background module runs it in the
 * processes that work on events). A pass that overlaps another (two schedules' jobs, a
 * test's runOnce) is harmless: each batch skips the rows the other holds, and a row is
 * deleted once.
 */
export function createRetentionJob(dependencies: { pool: pg.Pool; clock: Clock; logger: Logger; options?: Partial<RetentionOptions> }): RetentionJob {
  const options = { ...defaultRetentionOptions, ...dependencies.options };
  const logger = dependencies.logger.child({ module: 'retention' });
  return {
    async runOnce() {
      const result = await runRetention(dependencies.pool, dependencies.clock.now(), options);
      if (result.events > 0) logger.info({ events: result.events }, 'deleted events past their owners’ retention');
      return result;
    },
  };
}
