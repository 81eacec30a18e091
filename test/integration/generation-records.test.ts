import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Queryable } from '../../src/server/database/database.ts';
import { insertEventOnce } from '../../src/server/events/event-queries.ts';
import { listGenerations, saveGenerations } from '../../src/server/generations/generation-queries.ts';
import { generationRecord } from '../support/generation-record.ts';
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

describe("a call's generations", () => {
  it('are saved in one statement, each its own row, and a retried save of a row adds its tokens', async () => {
    const event = genericCartEvent(owner);
    await insertEventOnce(database.pool, event);
    const statements: string[] = [];
    const recording = { query: (text: string, values?: unknown[]) => (statements.push(text), database.pool.query(text, values)) } as Queryable;

    await saveGenerations(recording, [generationRecord(event.id, 'subject'), generationRecord(event.id, 'preheader'), generationRecord(event.id, 'body')], new Date());
    expect(statements).toHaveLength(1);
    const saved = await listGenerations(database.pool, event.id, 1);
    expect(saved.map((generation) => [generation.klaviyoProperty, generation.text]).sort()).toEqual([
      ['body', 'Text for body'],
      ['preheader', 'Text for preheader'],
      ['subject', 'Text for subject'],
    ]);

    // The same property twice in one save keeps the last, as two saves one after the other would.
    await saveGenerations(database.pool, [generationRecord(event.id, 'subject', { text: 'First' }), generationRecord(event.id, 'subject', { text: 'Again' })], new Date());
    const subject = (await listGenerations(database.pool, event.id, 1)).find((generation) => generation.klaviyoProperty === 'subject');
    expect(subject).toMatchObject({ text: 'Again', inputTokens: 200 });
  });
});
