import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/server/database/database.ts';
import { createLogger } from '../../src/server/logger.ts';
import { CHANGE_LOG_PRUNING_SCHEDULE, pruneChangeLog } from '../../src/server/realtime/change-feed.ts';
import { JobQueue } from '../../src/server/background/job-queue.ts';
import { defaultEngineOptions } from '../../src/server/engine/spine/engine.ts';
import { scheduleOf, sendScheduledJob } from '../support/scheduled-jobs.ts';
import { deleteOldChanges, listChangesAfter } from '../../src/server/realtime/event-change-queries.ts';
import { insertEventOnce, setEventStatus } from '../../src/server/events/event-queries.ts';
import { createTestDatabase, genericCartEvent, insertOwnerWithFlow } from '../support/test-database.ts';

/**
 * The change log keeps 15 minutes (what a stream resumes across); the cleanup walks it
 * oldest first along its primary key, in slices, since the table has no index on its
 * time, and it runs whether or not a console is open (docs/decisions/0033).
 */
let database: Database;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

/** Changes written in this order, each `minutesAgo` old. */
async function changesAged(minutesAgo: number[]): Promise<string[]> {
  const ids: string[] = [];
  for (const [index, minutes] of minutesAgo.entries()) {
    const { rows } = await database.pool.query<{ id: string }>(
      `INSERT INTO event_changes (user_id, flow_id, event_id, status, created_at)
       VALUES ('cleanup-owner', 'cleanup-flow', $1, 'received', now() - make_interval(mins => $2)) RETURNING id::text`,
      [`event-${index}`, minutes],
    );
    ids.push(rows[0]!.id);
  }
  return ids;
}

async function remainingIds(): Promise<string[]> {
  const { rows } = await database.pool.query<{ id: string }>("SELECT id::text FROM event_changes WHERE flow_id = 'cleanup-flow' ORDER BY id");
  return rows.map((row) => row.id);
}

describe('the change log cleanup', () => {
  it('drops the changes older than 15 minutes, slice after slice, and keeps the rest', async () => {
    const ids = await changesAged([50, 49, 30, 26, 16, 14, 2, 0]);
    expect(await deleteOldChanges(database.pool, 2)).toBe(5);
    expect(await remainingIds()).toEqual(ids.slice(5));
    expect(await deleteOldChanges(database.pool, 2)).toBe(0);
    expect(await remainingIds()).toEqual(ids.slice(5));
    await database.pool.query("DELETE FROM event_changes WHERE flow_id = 'cleanup-flow'");
  });

  it('stops at the first change of the kept window, leaving an older one written after it for a later cleanup', async () => {
    // A transaction that began a moment earlier can commit its change after a younger one.
    const ids = await changesAged([30, 10, 20]);
    expect(await deleteOldChanges(database.pool, 2)).toBe(1);
    expect(await remainingIds()).toEqual(ids.slice(1));
    await database.pool.query("DELETE FROM event_changes WHERE flow_id = 'cleanup-flow'");
  });

  it('runs on its own with no stream open (a shop whose owner never opens a console): every minute on the cron, a job of it prunes', async () => {
    // Before the fix the feed pruned only while a stream was open, so the log grew for good.
    const jobs = new JobQueue(database.pool, defaultEngineOptions, createLogger('silent'));
    await jobs.start();
    try {
      await jobs.startScheduled('change-log-pruning', CHANGE_LOG_PRUNING_SCHEDULE, () => pruneChangeLog(database.pool));
      expect(await scheduleOf(database.pool, 'change-log-pruning')).toEqual([{ cron: '* * * * *', timezone: 'UTC' }]);
      const [old, young] = await changesAged([20, 1]);
      await sendScheduledJob(database.pool, 'change-log-pruning');
      await expect.poll(remainingIds, { timeout: 20_000, interval: 100 }).toEqual([young]);
      expect(old).toBeDefined();
    } finally {
      await jobs.stop();
      await database.pool.query("DELETE FROM event_changes WHERE flow_id = 'cleanup-flow'");
    }
  });

  it("says which change is an event's arrival even once its earlier changes are pruned", async () => {
    const owner = { userId: randomUUID(), flowId: randomUUID(), name: 'Cleanup Owner' };
    await insertOwnerWithFlow(database, owner);
    const event = genericCartEvent(owner);
    await insertEventOnce(database.pool, event);
    expect(await setEventStatus(database.pool, { id: event.id, attempt: 1 }, 'generating')).toBe(true);
    // On a server, a transaction in another database (another test file) holds the changes
    // back for a moment (docs/decisions/0009-live-stream.md).
    const changesOfFlow = () => listChangesAfter(database.pool, new Map([[owner.flowId, { tx: 0n, id: 0n }]]), 10);
    await expect.poll(async () => (await changesOfFlow()).length, { timeout: 10_000, interval: 50 }).toBe(2);
    const changes = await changesOfFlow();
    expect(changes.map((change) => [change.status, change.arrival])).toEqual([
      ['received', true],
      ['generating', false],
    ]);
    // The arrival pruned, as the cleanup does after 15 minutes (a waiting event's wait is longer).
    await database.pool.query("DELETE FROM event_changes WHERE event_id = $1 AND status = 'received'", [event.id]);
    const later = await listChangesAfter(database.pool, new Map([[owner.flowId, { tx: 0n, id: 0n }]]), 10);
    expect(later.map((change) => [change.status, change.arrival])).toEqual([['generating', false]]);
  });
});
