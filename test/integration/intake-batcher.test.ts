import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, genericCartEvent, insertOwnerWithFlow } from '../support/test-database.ts';
import type { Database } from '../../src/server/database/database.ts';
import type { NewEvent } from '../../src/server/events/event-queries.ts';
import { embeddedBatchLimits, IntakeBatcher, serverBatchLimits, type BatchLimits, type JobSender } from '../../src/server/intake/intake-batcher.ts';

/**
 * The intake's batches on a real database: what a failed batch does to its neighbours,
 * that the requests of one turn of the event loop go together, that the next batch
 * goes to the database before the last one's requests are answered, and when a second
 * batch may go while one is still at the database.
 */
let database: Database;
const userId = `user-${randomUUID()}`;
const flowId = `flow-${randomUUID()}`;
// These tests send no jobs: the statement that stores a batch sends them, tested through the intake elsewhere.
const noJobs: JobSender = { jobsStatement: async () => null, jobsSent: () => undefined, intakeBusy: () => undefined };
const quietLogger = pino({ level: 'silent' });

beforeAll(async () => {
  database = await createTestDatabase();
  await insertOwnerWithFlow(database, { userId, flowId, name: 'Batch Owner' });
});

afterAll(async () => {
  await database?.close();
});

function arriving(fields: Partial<NewEvent> = {}): NewEvent {
  return genericCartEvent({ userId, flowId }, { externalEventId: `evt_${randomUUID()}`, ...fields });
}

/** A pool whose first statement is held until `release`, and which notes when each statement reached it. */
function heldPool(pool: pg.Pool) {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const arrivals: Array<() => void> = [];
  /** Resolves with what `look` returns as the next statement reaches the pool, looked at right then. */
  const nextStatement = <T>(look: () => T) => new Promise<T>((resolve) => arrivals.push(() => resolve(look())));
  let statements = 0;
  const wrapper = {
    async query(...args: Parameters<pg.Pool['query']>) {
      statements += 1;
      for (const arrived of arrivals.splice(0)) arrived();
      if (statements === 1) await held;
      return (pool.query as (...a: unknown[]) => Promise<unknown>)(...args);
    },
  };
  return {
    pool: wrapper as unknown as pg.Pool,
    release,
    nextStatement,
    statementsSoFar: () => statements,
  };
}

/**
 * A batcher whose first batch is `first` alone, held at the database (`held.release` lets
 * it go), so that what is stored meanwhile gathers into a second batch behind it.
 */
async function batcherHoldingFirst(first: NewEvent, limits: BatchLimits = serverBatchLimits) {
  const held = heldPool(database.pool);
  const batcher = new IntakeBatcher(held.pool, noJobs, quietLogger, limits);
  const firstReachedDatabase = held.nextStatement(() => undefined);
  const firstStored = batcher.store(first, false);
  await firstReachedDatabase;
  return { held, batcher, firstStored };
}

async function storedIds(ids: string[]): Promise<Set<string>> {
  const { rows } = await database.pool.query<{ id: string }>('SELECT id FROM events WHERE id = ANY($1)', [ids]);
  return new Set(rows.map((row) => row.id));
}

it('stores every other event of a batch the database refuses one of, and refuses only that one', async () => {
  // The first event goes alone while the rest gather into one batch behind it.
  const first = arriving();
  const { held, batcher, firstStored } = await batcherHoldingFirst(first);
  const neighbours = Array.from({ length: 6 }, () => arriving());
  // A flow that does not exist: the database refuses the row, and with it the batch's statement.
  const refused = arriving({ flowId: `missing-${randomUUID()}` });
  const batch = [...neighbours.slice(0, 3), refused, ...neighbours.slice(3)];
  const answers = batch.map((event) => batcher.store(event, false).then((stored) => ({ stored }), (error: unknown) => ({ error })));
  held.release();

  expect((await firstStored).inserted).toBe(true);
  const outcomes = await Promise.all(answers);
  const refusedOutcome = outcomes[batch.indexOf(refused)]!;
  expect('error' in refusedOutcome).toBe(true);
  for (const event of neighbours) expect(outcomes[batch.indexOf(event)]).toEqual({ stored: { inserted: true, id: event.id, status: 'received' } });
  expect(await storedIds([first.id, refused.id, ...neighbours.map((event) => event.id)])).toEqual(new Set([first.id, ...neighbours.map((event) => event.id)]));
});

it('answers a repeat in the next batch with the id of the event it repeats', async () => {
  const original = arriving();
  const { held, batcher, firstStored: originalStored } = await batcherHoldingFirst(original);
  const repeat = batcher.store(arriving({ externalEventId: original.externalEventId }), false);
  held.release();
  expect(await originalStored).toEqual({ inserted: true, id: original.id, status: 'received' });
  expect(await repeat).toEqual({ inserted: false, id: original.id, status: 'received' });
});

it('sends the next batch to the database before answering the requests of the one before', async () => {
  const answered: string[] = [];
  const first = arriving();
  const { held, batcher, firstStored } = await batcherHoldingFirst(first);
  const firstAnswered = firstStored.then(() => answered.push(first.id));
  // Gathered while the first batch is held; they form the second batch.
  const second = Array.from({ length: 3 }, () => arriving());
  const secondAnswers = second.map((event) => batcher.store(event, false));
  const secondReachedDatabase = held.nextStatement(() => [...answered]);
  held.release();
  // When the second batch's statement reached the database, no request of the first had been answered yet.
  expect(await secondReachedDatabase).toEqual([]);
  await Promise.all([firstAnswered, ...secondAnswers]);
  expect(answered).toEqual([first.id]);
});

it('sends the requests that arrive in one turn of the event loop as one batch, not the first alone', async () => {
  const statements: unknown[][] = [];
  const counting = {
    query(...args: unknown[]) {
      statements.push(args);
      return (database.pool.query as (...a: unknown[]) => Promise<unknown>)(...args);
    },
  } as unknown as pg.Pool;
  const batcher = new IntakeBatcher(counting, noJobs, quietLogger);
  const burst = Array.from({ length: 5 }, () => arriving());
  const answers = await Promise.all(burst.map((event) => batcher.store(event, false)));
  expect(answers).toEqual(burst.map((event) => ({ inserted: true, id: event.id, status: 'received' })));
  expect(statements).toHaveLength(1);
  expect(await storedIds(burst.map((event) => event.id))).toEqual(new Set(burst.map((event) => event.id)));
});

it('tells the worker the intake is busy when webhooks gather into a batch of ten or more, and not for a few', async () => {
  let busySignals = 0;
  const watching: JobSender = { ...noJobs, intakeBusy: () => (busySignals += 1) };
  const batcher = new IntakeBatcher(database.pool, watching, quietLogger);
  const few = Array.from({ length: 9 }, () => arriving());
  await Promise.all(few.map((event) => batcher.store(event, false)));
  expect(busySignals).toBe(0);
  const flood = Array.from({ length: 10 }, () => arriving());
  const answers = await Promise.all(flood.map((event) => batcher.store(event, false)));
  expect(busySignals).toBe(1);
  expect(answers.every((answer) => answer.inserted)).toBe(true);
});

/** Lets the event loop turn a few times, so that any batch the batcher would start has started. */
async function afterSomeTurns(): Promise<void> {
  for (let turn = 0; turn < 5; turn += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

it('on the embedded database sends a flood as a second batch while the first is still at the database, and a few only after it', async () => {
  const first = arriving();
  const { held, batcher, firstStored } = await batcherHoldingFirst(first, embeddedBatchLimits);
  let firstSettled = false;
  void firstStored.then(() => (firstSettled = true));
  const few = Array.from({ length: 3 }, () => arriving());
  const fewAnswers = few.map((event) => batcher.store(event, false));
  await afterSomeTurns();
  // Three webhooks are not a flood: they wait for the batch at the database, as on a server.
  expect(held.statementsSoFar()).toBe(1);

  const flood = Array.from({ length: 9 }, () => arriving());
  const secondReachedDatabase = held.nextStatement(() => firstSettled);
  const floodAnswers = flood.map((event) => batcher.store(event, false));
  // Twelve gathered: they go as a second batch while the first is still held.
  expect(await secondReachedDatabase).toBe(false);
  expect(held.statementsSoFar()).toBe(2);

  held.release();
  const answers = await Promise.all([firstStored, ...fewAnswers, ...floodAnswers]);
  expect(answers.every((answer) => answer.inserted)).toBe(true);
  const ids = [first, ...few, ...flood].map((event) => event.id);
  expect(await storedIds(ids)).toEqual(new Set(ids));
});

it('on a server database sends no second batch while one is at the database, however many gather', async () => {
  const first = arriving();
  const { held, batcher, firstStored } = await batcherHoldingFirst(first, serverBatchLimits);
  const flood = Array.from({ length: 30 }, () => arriving());
  const floodAnswers = flood.map((event) => batcher.store(event, false));
  await afterSomeTurns();
  expect(held.statementsSoFar()).toBe(1);

  const secondReachedDatabase = held.nextStatement(() => undefined);
  held.release();
  await secondReachedDatabase;
  const answers = await Promise.all([firstStored, ...floodAnswers]);
  expect(answers.every((answer) => answer.inserted)).toBe(true);
  // All thirty went together, after the first.
  expect(held.statementsSoFar()).toBe(2);
});
