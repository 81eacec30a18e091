import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/server/database/database.ts';
import { listDeliveries, startDelivery } from '../../src/server/deliveries/delivery-queries.ts';
import { insertEventOnce } from '../../src/server/events/event-queries.ts';
import { listGenerations, replaceTextsByOwner, saveGenerationChecks, saveGenerations } from '../../src/server/generations/generation-queries.ts';
import type { TextChecksRecord } from '../../src/shared/text-checks/text-check-schemas.ts';
import { generationRecord } from '../support/generation-record.ts';
import { createTestDatabase, genericCartEvent, insertOwnerWithFlow } from '../support/test-database.ts';

/**
 * A text is stored once (docs/decisions/0057-compact-stored-checks.md): its checks in their
 * compact form, and a delivery names the properties that are its texts instead of copying
 * them. What is read back is what was written.
 */
let database: Database;
const owner = { userId: `user-${randomUUID()}`, flowId: `flow-${randomUUID()}`, name: 'Compact Owner' };
beforeAll(async () => {
  database = await createTestDatabase();
  await insertOwnerWithFlow(database, owner);
});
afterAll(async () => {
  await database?.close();
});

const passed: TextChecksRecord = {
  stage: 'done',
  rejected: [],
  delivered: 'written',
  verdicts: { amounts: 'passed', discount_codes: 'passed', links: 'passed', length: 'passed', cut_off: 'passed', banned_phrases: 'passed', products: 'passed', language: 'not_run', moderation: 'passed' },
};

async function storedRow(eventId: string): Promise<{ properties: Record<string, unknown>; text_properties: string[] | null; size: number }> {
  const { rows } = await database.pool.query(`SELECT properties, text_properties, pg_column_size(properties) AS size FROM event_deliveries WHERE event_id = $1`, [eventId]);
  return rows[0];
}

describe('texts stored once', () => {
  it('keep their checks compact and read them back whole, an owner edit included', async () => {
    const event = genericCartEvent(owner);
    await insertEventOnce(database.pool, event);
    const subject = generationRecord(event.id, 'subject', { text: 'Your trail shoes wait' });
    await saveGenerations(database.pool, [subject], new Date());
    await saveGenerationChecks(database.pool, [{ ...subject, checks: passed }]);

    const { rows } = await database.pool.query(`SELECT checks::text AS checks FROM event_generations WHERE event_id = $1`, [event.id]);
    expect(rows[0].checks).toBe('{"stage": "done", "verdicts": "pppppppnp", "delivered": "written"}');
    expect((await listGenerations(database.pool, event.id, 1))[0]!.checks).toEqual(passed);

    await replaceTextsByOwner(database.pool, event.id, 1, { subject: 'My own words' });
    expect((await listGenerations(database.pool, event.id, 1))[0]).toMatchObject({ text: 'My own words', checks: { ...passed, delivered: 'edited' } });
  });

  it('let a delivery name the properties that are its texts, and read back what it wrote', async () => {
    const event = genericCartEvent(owner);
    await insertEventOnce(database.pool, event);
    await saveGenerations(database.pool, [generationRecord(event.id, 'subject', { text: 'Your trail shoes wait' }), generationRecord(event.id, 'body', { text: 'They are still in your cart.' })], new Date());
    const properties = {
      subject: 'Your trail shoes wait',
      // Not its text (the owner's fallback went out, say): kept as written.
      body: 'A different body',
      recommended_products: [{ title: 'Wool Socks', url: 'https://shop.example/socks', image: null, price: '12.00', currency: 'USD' }],
    };
    const started = await startDelivery(database.pool, { id: randomUUID(), eventId: event.id, attempt: 1, properties, klaviyoEventName: null, holdout: false });
    expect(started.properties).toEqual(properties);
    expect((await listDeliveries(database.pool, event.id))[0]!.properties).toEqual(properties);

    const stored = await storedRow(event.id);
    expect(stored.text_properties).toEqual(['subject']);
    expect(stored.properties).toEqual({ body: 'A different body', recommended_products: properties.recommended_products });
  });

  it('keep a delivered text as it went out: a later write of that attempt adds its tokens and cost, nothing else', async () => {
    const event = genericCartEvent(owner);
    await insertEventOnce(database.pool, event);
    const written = generationRecord(event.id, 'subject', { text: 'Your trail shoes wait', checks: passed });
    await saveGenerations(database.pool, [written], new Date());
    const delivered = { subject: 'Your trail shoes wait' };
    await startDelivery(database.pool, { id: randomUUID(), eventId: event.id, attempt: 1, properties: delivered, klaviyoEventName: null, holdout: false });

    // A run another worker took over stores its own text late (decision 0061), its checks put
    // a fallback in, and an edit comes in for the same attempt: none reaches the text sent.
    await saveGenerations(database.pool, [{ ...written, text: 'Words of the run that did not deliver', prompt: 'Another prompt', openaiCallId: 'call-2' }], new Date());
    await saveGenerationChecks(database.pool, [{ ...written, text: 'A fallback', checks: { ...passed, delivered: 'fallback' } }]);
    await replaceTextsByOwner(database.pool, event.id, 1, { subject: 'My own words' });

    const [kept] = await listGenerations(database.pool, event.id, 1);
    expect(kept).toMatchObject({ text: 'Your trail shoes wait', prompt: written.prompt, openaiCallId: 'call-1', checks: passed });
    // Both calls were paid for.
    expect(kept).toMatchObject({ inputTokens: 200, outputTokens: 20, totalTokens: 220, cachedInputTokens: 160 });
    expect(kept!.costUsd).toBeCloseTo(0.0002, 10);
    expect((await listDeliveries(database.pool, event.id))[0]!.properties).toEqual(delivered);
  });

  it('keep every property of a delivery without texts as it is', async () => {
    const event = genericCartEvent(owner);
    await insertEventOnce(database.pool, event);
    const cleared = { subject: '', body: '' };
    const started = await startDelivery(database.pool, { id: randomUUID(), eventId: event.id, attempt: 1, properties: cleared, klaviyoEventName: null, holdout: true });
    expect(started.properties).toEqual(cleared);
    expect(await storedRow(event.id)).toMatchObject({ properties: cleared, text_properties: null });
  });

  it('read deliveries stored before with every property in place', async () => {
    const event = genericCartEvent(owner);
    await insertEventOnce(database.pool, event);
    await saveGenerations(database.pool, [generationRecord(event.id, 'subject', { text: 'Stored before' })], new Date());
    await database.pool.query(`INSERT INTO event_deliveries (id, event_id, attempt, status, properties) VALUES ($1, $2, 1, 'delivered', $3)`, [
      randomUUID(),
      event.id,
      JSON.stringify({ subject: 'Stored before' }),
    ]);
    expect((await listDeliveries(database.pool, event.id))[0]!.properties).toEqual({ subject: 'Stored before' });
  });
});
