import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Queryable } from '../../src/server/database/database.ts';
import { insertEventOnce } from '../../src/server/events/event-queries.ts';
import { listGenerations, saveGenerations, type GenerationRecord } from '../../src/server/generations/generation-queries.ts';
import { createTestDatabase, genericCartEvent, insertOwnerWithFlow } from '../support/test-database.ts';

/** Each assistant's outcome is its own row, however many one OpenAI call wrote. */
let database: Database;
const owner = { userId: `user-${randomUUID()}`, flowId: `flow-${randomUUID()}`, name: 'Generations Owner' };
beforeAll(async () => {
  database = await createTestDatabase();
  await insertOwnerWithFlow(database, owner);
});
afterAll(async () => {
  await database?.close();
});

function outcome(eventId: string, klaviyoProperty: string, fields: Partial<GenerationRecord> = {}): GenerationRecord {
  return {
    eventId,
    attempt: 1,
    klaviyoProperty,
    assistantName: `Writer of ${klaviyoProperty}`,
    model: 'gpt-5-mini',
    instructions: 'Write briefly.',
    prompt: `A line for ${klaviyoProperty}`,
    status: 'succeeded',
    text: `Text for ${klaviyoProperty}`,
    inputTokens: 100,
    outputTokens: 10,
    totalTokens: 110,
    durationMs: 900,
    reused: false,
    error: null,
    cachedInputTokens: 80,
    serviceTier: 'default',
    costUsd: 0.0001,
    costEstimated: false,
    openaiCallId: 'call-1',
    reuseKey: null,
    reusedFrom: null,
    checks: null,
    ...fields,
  };
}

describe("a call's generations", () => {
  it('are saved in one statement, each its own row, and a retried save of a row adds its tokens', async () => {
    const event = genericCartEvent(owner);
    await insertEventOnce(database.pool, event);
    const statements: string[] = [];
    const recording = { query: (text: string, values?: unknown[]) => (statements.push(text), database.pool.query(text, values)) } as Queryable;

    await saveGenerations(recording, [outcome(event.id, 'subject'), outcome(event.id, 'preheader'), outcome(event.id, 'body')], new Date());
    expect(statements).toHaveLength(1);
    const saved = await listGenerations(database.pool, event.id, 1);
    expect(saved.map((generation) => [generation.klaviyoProperty, generation.text]).sort()).toEqual([
      ['body', 'Text for body'],
      ['preheader', 'Text for preheader'],
      ['subject', 'Text for subject'],
    ]);

    // The same property twice in one save keeps the last, as two saves one after the other would.
    await saveGenerations(database.pool, [outcome(event.id, 'subject', { text: 'First' }), outcome(event.id, 'subject', { text: 'Again' })], new Date());
    const subject = (await listGenerations(database.pool, event.id, 1)).find((generation) => generation.klaviyoProperty === 'subject');
    expect(subject).toMatchObject({ text: 'Again', inputTokens: 200 });
  });
});
