import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireKnownShopper, UNKNOWN_FOR_MS, KNOWN_FOR_MS } from '../../src/server/engine/shop-facts/known-shoppers.ts';
import { defaultEngineOptions } from '../../src/server/engine/spine/engine.ts';
import type { PipelineContext } from '../../src/server/engine/spine/pipeline-context.ts';
import type { EventRecord } from '../../src/server/events/event-queries.ts';
import { eventOutcomeMessages } from '../../src/shared/events/event-messages.ts';
import { createLogger } from '../../src/server/logger.ts';
import { startFakeKlaviyo, type FakeKlaviyo } from '../fakes/fake-klaviyo.ts';
import { ManualClock } from '../support/manual-clock.ts';

// The pixel's "is this shopper known?" checks: kept (known for an hour, unknown for five
// minutes) and asked together, up to 100 emails in one any() request per account.
let klaviyo: FakeKlaviyo;
beforeAll(async () => {
  klaviyo = await startFakeKlaviyo({ validKeys: ['pk_known_shoppers'] });
});
afterAll(async () => {
  await klaviyo?.close();
});

const credentials = { klaviyoApiKey: 'pk_known_shoppers', openaiApiKey: 'sk-unused', openaiModel: 'gpt-5-mini', shopifySigningSecrets: [] };
const event = { id: 'evt-known' } as EventRecord;

function contextWith(clock: ManualClock): PipelineContext {
  return {
    // The limiter is off (klaviyoLimits null), so no database is asked.
    pool: undefined as never,
    logger: createLogger('silent'),
    openaiBaseUrl: 'http://127.0.0.1:9',
    klaviyoBaseUrl: klaviyo.baseUrl,
    loadCredentials: async () => credentials,
    options: { ...defaultEngineOptions, klaviyoLimits: null },
    clock,
  };
}

const lookups = () => klaviyo.requests.filter((request) => request.method === 'GET' && request.path === '/api/profiles');

describe('known-shopper look-ups', () => {
  it('asks once for shoppers looked up at the same time, with one any() filter', async () => {
    const context = contextWith(new ManualClock());
    const emails = Array.from({ length: 30 }, (_, index) => `together-${index}@shop.example`);
    for (const email of emails.slice(0, 20)) klaviyo.addProfile(email, { first_name: `Name ${email.slice(9, 11)}` });
    const before = lookups().length;
    const answers = await Promise.allSettled(emails.map((email) => requireKnownShopper(context, { event, email, credentials, signal: new AbortController().signal })));
    expect(lookups().length - before).toBe(1);
    expect(lookups().at(-1)!.query.get('filter')).toMatch(/^any\(email,\["together-/);
    answers.slice(0, 20).forEach((answer, index) => expect(answer).toMatchObject({ status: 'fulfilled', value: { kind: 'go_on', value: { firstName: `Name ${emails[index]!.slice(9, 11)}` } } }));
    for (const answer of answers.slice(20)) expect(answer).toMatchObject({ status: 'fulfilled', value: { kind: 'ended', outcome: { status: 'skipped', reason: eventOutcomeMessages.unknownPixelShopper } } });
  });

  it('splits more than 100 emails over several requests', async () => {
    const context = contextWith(new ManualClock());
    const emails = Array.from({ length: 250 }, (_, index) => `many-${index}@shop.example`);
    for (const email of emails) klaviyo.addProfile(email);
    const before = lookups().length;
    await Promise.all(emails.map((email) => requireKnownShopper(context, { event, email, credentials, signal: new AbortController().signal })));
    expect(lookups().length - before).toBe(3);
  });

  it('keeps a known shopper for an hour and an unknown one for five minutes', async () => {
    const clock = new ManualClock();
    const context = contextWith(clock);
    const signal = new AbortController().signal;
    klaviyo.addProfile('kept@shop.example', { first_name: 'Kept' });
    const before = lookups().length;
    await requireKnownShopper(context, { event, email: 'kept@shop.example', credentials, signal });
    expect(await requireKnownShopper(context, { event, email: 'later@shop.example', credentials, signal })).toMatchObject({ kind: 'ended', outcome: { status: 'skipped', reason: eventOutcomeMessages.unknownPixelShopper } });
    expect(lookups().length - before).toBe(2);

    // The unknown shopper signs up; within five minutes the kept answer stands.
    klaviyo.addProfile('later@shop.example', { first_name: 'Later' });
    clock.advance(UNKNOWN_FOR_MS - 1_000);
    await requireKnownShopper(context, { event, email: 'kept@shop.example', credentials, signal });
    expect((await requireKnownShopper(context, { event, email: 'later@shop.example', credentials, signal })).kind).toBe('ended');
    expect(lookups().length - before).toBe(2);

    // Past five minutes Klaviyo is asked again; the known one is still kept.
    clock.advance(2_000);
    expect(await requireKnownShopper(context, { event, email: 'later@shop.example', credentials, signal })).toMatchObject({ kind: 'go_on', value: { firstName: 'Later' } });
    await requireKnownShopper(context, { event, email: 'kept@shop.example', credentials, signal });
    expect(lookups().length - before).toBe(3);

    clock.advance(KNOWN_FOR_MS);
    await requireKnownShopper(context, { event, email: 'kept@shop.example', credentials, signal });
    expect(lookups().length - before).toBe(4);
  });
});
