import type { Queryable } from '../database/database.ts';
import { PROCESS_EVENT_QUEUE } from './job-queue.ts';

/*
 * The only SQL on pg-boss's tables (test/unit/module-rules-pgboss.test.ts names both
 * statements). Everything else about jobs goes through pg-boss's API (job-queue.ts);
 * these two have no counterpart there, and both depend on the version package.json pins
 * (docs/decisions/0034-stored-functions-in-modules.md).
 */

/**
 * Jobs due and not yet taken (pg-boss 12's `pgboss.job`: states created and retry), and
 * how long the oldest of them has been due: what a worker shortage or a stuck worker
 * shows first. pg-boss's `getQueueStats` counts a queue's jobs, as of its monitor's last
 * pass (up to 30 s old), but says nothing of how long they have waited.
 */
export async function findEventJobBacklog(db: Queryable): Promise<{ queued: number; oldestDueSeconds: number }> {
  const { rows } = await db.query<{ queued: number; oldest_due_seconds: number | null }>(
    `SELECT count(*)::int AS queued, extract(epoch FROM now() - min(start_after))::float8 AS oldest_due_seconds
       FROM pgboss.job
      WHERE name = $1 AND state IN ('created', 'retry') AND start_after <= now()`,
    [PROCESS_EVENT_QUEUE],
  );
  return { queued: rows[0]?.queued ?? 0, oldestDueSeconds: Math.max(0, rows[0]?.oldest_due_seconds ?? 0) };
}

/**
 * Account deletion: the queued and kept jobs of these events (pg-boss's own table), in
 * the deleting transaction. pg-boss deletes jobs by id only, and finds them by their data
 * one value at a time (`findJobs`): a round trip per event of the account, all inside the
 * transaction that deletes them.
 */
export async function deleteEventJobs(db: Queryable, eventIds: string[]): Promise<number> {
  if (eventIds.length === 0) return 0;
  const { rowCount } = await db.query(`DELETE FROM pgboss.job WHERE name = $1 AND data->>'eventId' = ANY($2::text[])`, [PROCESS_EVENT_QUEUE, eventIds]);
  return rowCount ?? 0;
}
