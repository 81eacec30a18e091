import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/server/database/database.ts';
import { deleteOldChanges } from '../../src/server/realtime/event-change-queries.ts';
import { createTestDatabase } from '../support/test-database.ts';

/**
 * The change log keeps a day (streams resume within one); the cleanup walks it oldest
 * first along its primary key, in slices, since the table has no index on its time.
 */
let database: Database;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

/** Changes written in this order, each `hoursAgo` old. */
async function changesAged(hoursAgo: number[]): Promise<string[]> {
  const ids: string[] = [];
  for (const [index, hours] of hoursAgo.entries()) {
    const { rows } = await database.pool.query<{ id: string }>(
      `INSERT INTO event_changes (user_id, flow_id, event_id, status, created_at)
       VALUES ('cleanup-owner', 'cleanup-flow', $1, 'received', now() - make_interval(hours => $2)) RETURNING id::text`,
      [`event-${index}`, hours],
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
  it('drops the changes older than a day, slice after slice, and keeps the rest', async () => {
    const ids = await changesAged([50, 49, 30, 26, 25, 23, 2, 0]);
    expect(await deleteOldChanges(database.pool, 2)).toBe(5);
    expect(await remainingIds()).toEqual(ids.slice(5));
    expect(await deleteOldChanges(database.pool, 2)).toBe(0);
    expect(await remainingIds()).toEqual(ids.slice(5));
    await database.pool.query("DELETE FROM event_changes WHERE flow_id = 'cleanup-flow'");
  });

  it('stops at the first change of the last day, leaving an older one written after it for a later cleanup', async () => {
    // A transaction that began a moment earlier can commit its change after a younger one.
    const ids = await changesAged([30, 20, 26]);
    expect(await deleteOldChanges(database.pool, 2)).toBe(1);
    expect(await remainingIds()).toEqual(ids.slice(1));
    await database.pool.query("DELETE FROM event_changes WHERE flow_id = 'cleanup-flow'");
  });
});
