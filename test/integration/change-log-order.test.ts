import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/server/database/database.ts';
import { compareChangeCursors, listChangesAfter, parseChangeCursor, streamStartCursor, type ChangeCursor } from '../../src/server/realtime/event-change-queries.ts';
import { insertEventOnce, setEventStatus } from '../../src/server/events/event-queries.ts';
import { createTestDatabase, genericCartEvent, insertOwnerWithFlow, testDatabaseKind } from '../support/test-database.ts';

/**
 * The change log in commit order (migration 034, docs/decisions/0009-live-stream.md): a
 * reader takes only the changes of transactions older than every one still running, in
 * (transaction, id) order, so changes of one flow need no lock to be read without gaps.
 */
let database: Database;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

async function flowWithEvents(count: number): Promise<{ flowId: string; eventIds: string[] }> {
  const owner = { userId: randomUUID(), flowId: randomUUID(), name: 'Order Owner' };
  await insertOwnerWithFlow(database, owner);
  const eventIds: string[] = [];
  for (let index = 0; index < count; index++) {
    const event = genericCartEvent(owner);
    await insertEventOnce(database.pool, event);
    eventIds.push(event.id);
  }
  return { flowId: owner.flowId, eventIds };
}

const changesOf = async (flowId: string, after: ChangeCursor) =>
  (await listChangesAfter(database.pool, new Map([[flowId, after]]), 100)).map((change) => ({ eventId: change.eventId, status: change.status, cursor: change.cursor, changeId: change.changeId }));

describe('change cursors', () => {
  it('are written <tx>-<id>, read back exactly, and ordered by transaction first', async () => {
    const { flowId, eventIds } = await flowWithEvents(1);
    const start = await streamStartCursor(database.pool);
    expect(await setEventStatus(database.pool, { id: eventIds[0]!, attempt: 1 }, 'generating')).toBe(true);
    // On a server, a transaction running in another database (another test file) holds the
    // change back for a moment, and the stream may start early enough to hold the event's
    // arrival too (docs/decisions/0009-live-stream.md).
    const generating = async () => (await changesOf(flowId, start)).filter((change) => change.status === 'generating');
    await expect.poll(async () => (await generating()).length, { timeout: 10_000, interval: 50 }).toBe(1);
    const [change] = await generating();
    expect(change!.changeId).toMatch(/^\d+-\d+$/);
    expect(parseChangeCursor(change!.changeId)).toEqual(change!.cursor);
    expect(compareChangeCursors(start, change!.cursor)).toBeLessThan(0);
    expect(compareChangeCursors({ tx: 5n, id: 900n }, { tx: 6n, id: 1n })).toBeLessThan(0);
    expect(compareChangeCursors({ tx: 6n, id: 2n }, { tx: 6n, id: 1n })).toBeGreaterThan(0);
    expect(parseChangeCursor('12')).toBeNull();
    expect(parseChangeCursor('1-2-3')).toBeNull();
  });

  it("refuses a cursor beyond the database's types, which would fail the feed's one query for every stream of the process", async () => {
    const { flowId } = await flowWithEvents(1);
    expect(parseChangeCursor('99999999999999999999-1')).toBeNull();
    expect(parseChangeCursor('1-9999999999999999999')).toBeNull();
    // The largest cursor accepted is one the query takes.
    const largest = parseChangeCursor('18446744073709551615-9223372036854775807');
    expect(largest).not.toBeNull();
    await expect(changesOf(flowId, largest!)).resolves.toEqual([]);
  });

  // On a server a fresh stream may start a little earlier: before the changes of any
  // transaction younger than the oldest one running anywhere on the server, never later.
  it.skipIf(testDatabaseKind() === 'server')('a fresh stream starts after the changes already committed', async () => {
    const { flowId } = await flowWithEvents(2);
    expect(await changesOf(flowId, await streamStartCursor(database.pool))).toEqual([]);
    expect((await changesOf(flowId, { tx: 0n, id: 0n })).map((change) => change.status)).toEqual(['received', 'received']);
  });
});

// Two transactions at once need two sessions: the embedded database has one.
describe.skipIf(testDatabaseKind() === 'embedded')('the change log with transactions at once (server)', () => {
  it("a status change of a flow does not wait for another transaction's change of the same flow", async () => {
    // Before migration 034 each change took the flow's advisory lock until its commit,
    // so a shop's one busy flow committed its status changes one at a time.
    const { eventIds } = await flowWithEvents(2);
    const open = await database.pool.connect();
    try {
      await open.query('BEGIN');
      expect(await setEventStatus(open, { id: eventIds[0]!, attempt: 1 }, 'generating')).toBe(true);
      const outcome = await Promise.race([
        setEventStatus(database.pool, { id: eventIds[1]!, attempt: 1 }, 'generating').then(() => 'done'),
        new Promise((resolve) => setTimeout(() => resolve('still waiting'), 3_000)),
      ]);
      expect(outcome).toBe('done');
      await open.query('COMMIT');
    } finally {
      await open.query('ROLLBACK').catch(() => undefined);
      open.release();
    }
  });

  it('holds back a change committed while an older transaction runs, then reads both in commit order, each once', async () => {
    const { flowId, eventIds } = await flowWithEvents(2);
    const start = await streamStartCursor(database.pool);
    const generating = async () => (await changesOf(flowId, start)).filter((change) => change.status === 'generating');
    const older = await database.pool.connect();
    try {
      // The older transaction takes its id first but writes its change last, so its
      // change id is the higher one: id order alone would read the younger change first
      // and then step over the older one when it commits.
      await older.query('BEGIN');
      await older.query('SELECT pg_current_xact_id()');
      expect(await setEventStatus(database.pool, { id: eventIds[1]!, attempt: 1 }, 'generating')).toBe(true);
      expect(await setEventStatus(older, { id: eventIds[0]!, attempt: 1 }, 'generating')).toBe(true);
      expect(await generating()).toEqual([]);
      await older.query('COMMIT');
    } finally {
      await older.query('ROLLBACK').catch(() => undefined);
      older.release();
    }
    // Other databases' transactions on the same server hold the horizon back for a moment,
    // and may have made the stream start before the events' arrival (their 'received').
    await expect.poll(async () => (await generating()).length, { timeout: 10_000, interval: 50 }).toBe(2);
    const changes = await generating();
    expect(changes.map((change) => change.eventId)).toEqual([eventIds[0], eventIds[1]]);
    expect(changes[0]!.cursor.id).toBeGreaterThan(changes[1]!.cursor.id);
    expect((await changesOf(flowId, changes[1]!.cursor)).filter((change) => change.status === 'generating')).toEqual([]);
  });
});
