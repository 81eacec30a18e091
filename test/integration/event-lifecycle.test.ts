import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, genericCartEvent, insertOwnerWithFlow } from '../support/test-database.ts';
import type { Database } from '../../src/server/database/database.ts';
import { eventLifecycle, finishedStatuses, predecessorsOf } from '../../src/server/events/event-lifecycle.ts';
import {
  endWaitingEvent,
  findEventById,
  insertEventOnce,
  releaseWaitingEvent,
  scheduleEventRetry,
  setEventStatus,
  setEventsStatus,
  startReplay,
  type NewEvent,
} from '../../src/server/events/event-queries.ts';
import { eventStatuses, type EventStatus } from '../../src/shared/events/event-statuses.ts';

/**
 * The lifecycle as the database applies it: every allowed move is made by the events
 * module's guarded UPDATEs, and every move the table does not allow changes nothing,
 * so a late or repeated job cannot move an event backwards or reopen a finished one.
 */
let database: Database;
const userId = `user-${randomUUID()}`;
const flowId = `flow-${randomUUID()}`;

beforeAll(async () => {
  database = await createTestDatabase();
  await insertOwnerWithFlow(database, { userId, flowId, name: 'Lifecycle Owner' });
});

afterAll(async () => {
  await database?.close();
});

function eventStoredAs(status: EventStatus): NewEvent {
  return genericCartEvent({ userId, flowId }, { status, processAfter: status === 'waiting' ? new Date() : null });
}

/** An event put in `status` directly, as a past of moves would have left it. */
async function eventIn(status: EventStatus): Promise<string> {
  const event = eventStoredAs('received');
  await insertEventOnce(database.pool, event);
  await database.pool.query("UPDATE events SET status = $2, process_after = CASE WHEN $2 = 'waiting' THEN now() ELSE NULL END WHERE id = $1", [event.id, status]);
  return event.id;
}

async function statusOf(eventId: string): Promise<{ status: EventStatus; attempt: number; finishedAt: Date | null }> {
  const event = await findEventById(database.pool, eventId);
  return { status: event!.status, attempt: event!.attempt, finishedAt: event!.finishedAt };
}

/** The events module's write for a move to `to`, as the engine, the timers and intake make it. */
async function move(eventId: string, from: EventStatus, to: EventStatus): Promise<boolean> {
  if (from === 'waiting' && to === 'received') return (await releaseWaitingEvent(database.pool, eventId)) !== null;
  if (from === 'waiting' && to === 'skipped') return endWaitingEvent(database.pool, eventId, 'ended by a newer event');
  if (to === 'waiting') {
    return scheduleEventRetry(database.pool, eventId, 1, { nextTryAt: new Date(Date.now() + 60_000), retryCount: 1, retryProgress: 0, error: 'try again later' });
  }
  return setEventStatus(database.pool, { id: eventId, attempt: 1 }, to, to === 'failed' || to === 'skipped' ? 'why it ended' : null);
}

const allowed = eventStatuses.flatMap((from) => (eventLifecycle.transitions[from] as readonly EventStatus[]).map((to) => [from, to] as const));

describe('the event lifecycle', () => {
  it('states the finished statuses and the statuses an event starts in', () => {
    expect(finishedStatuses).toEqual(['delivered', 'skipped', 'failed', 'rejected']);
    expect(eventLifecycle.initial).toEqual(['received', 'waiting', 'skipped', 'rejected']);
    // Every status can be reached: stored as it, or moved to.
    for (const status of eventStatuses) {
      expect((eventLifecycle.initial as readonly EventStatus[]).includes(status) || predecessorsOf(status).length > 0).toBe(true);
    }
  });

  it.each(allowed)('moves an event from %s to %s', async (from, to) => {
    const eventId = await eventIn(from);
    expect(await move(eventId, from, to)).toBe(true);
    const after = await statusOf(eventId);
    expect(after.status).toBe(to);
    expect(after.finishedAt !== null).toBe(finishedStatuses.includes(to));
  });

  // A late job of each step meets an event that has moved on; none of them may pull it back.
  it.each([
    ['delivered', 'generating'],
    ['delivered', 'waiting'],
    ['skipped', 'received'],
    ['skipped', 'generating'],
    ['failed', 'delivering'],
    ['failed', 'waiting'],
    ['rejected', 'received'],
    ['rejected', 'generating'],
    ['delivering', 'generating'],
    ['generating', 'received'],
  ] as const)('refuses to move an event from %s to %s, and leaves it as it was', async (from, to) => {
    const eventId = await eventIn(from);
    expect(await move(eventId, from, to)).toBe(false);
    expect((await statusOf(eventId)).status).toBe(from);
  });

  it('refuses every move out of each finished status but the replay', async () => {
    for (const from of finishedStatuses) {
      for (const to of eventStatuses) {
        const eventId = await eventIn(from);
        expect(await move(eventId, from, to)).toBe(false);
        expect((await statusOf(eventId)).status).toBe(from);
      }
    }
  });

  it('moves nothing of an attempt a replay has replaced', async () => {
    const eventId = await eventIn('failed');
    const replayed = await startReplay(database.pool, userId, eventId);
    expect(replayed).toMatchObject({ status: 'received', attempt: 2 });
    // The first attempt's job, late: its moves are refused although received → generating is allowed.
    expect(await setEventStatus(database.pool, { id: eventId, attempt: 1 }, 'generating')).toBe(false);
    expect(await setEventStatus(database.pool, { id: eventId, attempt: 2 }, 'generating')).toBe(true);
  });

  it("moves many events at once (a bulk delivery's) by the same rules: only from an allowed status, only at the event's own attempt", async () => {
    const delivering = [await eventIn('delivering'), await eventIn('delivering')];
    const alreadyDelivered = await eventIn('delivered');
    const stillGenerating = await eventIn('generating');
    const replaced = await eventIn('failed');
    await startReplay(database.pool, userId, replaced);
    await database.pool.query("UPDATE events SET status = 'delivering' WHERE id = $1", [replaced]);

    const moving = [...delivering, alreadyDelivered, stillGenerating, replaced].map((eventId) => ({ eventId, attempt: 1 }));
    expect(await setEventsStatus(database.pool, moving, 'delivered')).toBe(2);
    for (const eventId of delivering) expect(await statusOf(eventId)).toMatchObject({ status: 'delivered' });
    expect(await statusOf(stillGenerating)).toMatchObject({ status: 'generating' });
    expect(await statusOf(replaced)).toMatchObject({ status: 'delivering' });
    // Moving them again moves nothing: a batch taken up again after a crash delivers nothing twice.
    expect(await setEventsStatus(database.pool, moving, 'delivered')).toBe(0);
    expect(await setEventsStatus(database.pool, [], 'delivered')).toBe(0);
  });

  it('replays only what the lifecycle calls replayable', async () => {
    for (const status of eventStatuses) {
      const eventId = await eventIn(status);
      const replayed = await startReplay(database.pool, userId, eventId);
      expect(replayed !== null).toBe((eventLifecycle.replayable as readonly EventStatus[]).includes(status));
    }
  });

  it('stores an event only in a status the lifecycle starts with', async () => {
    for (const status of eventStatuses) {
      const store = insertEventOnce(database.pool, eventStoredAs(status));
      if ((eventLifecycle.initial as readonly EventStatus[]).includes(status)) await expect(store).resolves.toMatchObject({ inserted: true, status });
      else await expect(store).rejects.toThrow(/cannot be stored as/);
    }
  });
});
