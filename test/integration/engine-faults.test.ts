import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/server/database/database.ts';
import { insertEventOnce, newEvent } from '../../src/server/events/event-queries.ts';
import { startDelivery } from '../../src/server/deliveries/delivery-queries.ts';
import { saveGenerations } from '../../src/server/generations/generation-queries.ts';
import { generationRecord } from '../support/generation-record.ts';
import { eventOutcomeMessages, eventLogMessages } from '../../src/shared/events/event-messages.ts';
import { ownerWithFlows, postEvent, sampleEvent, settleOnTheAppClock, useEngineScenario, waitForEvent, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

let owner: Owner;
const scenario = useEngineScenario({ standIns: allStandIns }, { clearFailures: true, advanceClockMs: 61_000 });
beforeAll(async () => {
  owner = await ownerWithFlows(scenario, { abandoned_cart: { klaviyoEventName: 'AI content ready' } });
});

const db = () => scenario.testApp.database.pool;

async function send(event: unknown = sampleEvent('abandoned_cart', { email: uniqueEmail('fault') })) {
  const response = await postEvent(scenario.testApp.baseUrl, owner.flows.abandoned_cart.webhookPath, event);
  expect(response.status, response.text).toBe(202);
  return response.json.eventId as string;
}

/** OpenAI calls since `mark` (tests run one after another and wait for their events). */
const responsesSince = (mark: number) => scenario.openai.requests.slice(mark).filter((request) => request.path === '/v1/responses');
const openaiMark = () => scenario.openai.requests.length;
const profileWritesFor = (email: string) =>
  scenario.klaviyo.requests.filter((request) => request.path === '/api/profile-import' && (request.body as any).data.attributes.email === email);

async function detail(eventId: string) {
  const response = await owner.client.call(endpoints.events.detail, { params: { eventId } });
  expect(response.status).toBe(200);
  return response.json.event;
}

describe('bad input', () => {
  it('fails an event whose known fields have the wrong types, naming the fields', async () => {
    const event = sampleEvent('abandoned_cart') as any;
    event.properties.customer.email = 12345;
    event.properties.products[0].price = { amount: 'lots' };
    const row = await waitForEvent(db(), await send(event));
    expect(row.status).toBe('failed');
    expect(row.error).toContain('properties.customer.email: expected an email address');
    expect(row.error).toContain('properties.products[0].price: expected an amount such as 19.99');
  });

  it('fails an event whose prompt renders empty, with a readable reason', async () => {
    const emptyOwner = await ownerWithFlows(scenario, {
      abandoned_cart: { assistants: [{ name: 'Only URL', klaviyo_property: 'url_line', prompt_template: '{product_url}' }] },
    });
    const response = await postEvent(scenario.testApp.baseUrl, emptyOwner.flows.abandoned_cart.webhookPath, sampleEvent('abandoned_cart', { email: uniqueEmail('empty') }));
    const row = await waitForEvent(db(), response.json.eventId);
    expect(row).toMatchObject({ status: 'failed', error: eventOutcomeMessages.templateEmpty('Only URL', ['{product_url}']) });
  });

  it('fails an event when OpenAI answers without text', async () => {
    scenario.openai.failNext({ kind: 'no-text' });
    const email = uniqueEmail('notext');
    const row = await waitForEvent(db(), await send(sampleEvent('abandoned_cart', { email })));
    expect(row.status).toBe('failed');
    expect(row.error).toContain(eventOutcomeMessages.answerCutOff('Subject Line', 'max_output_tokens'));
    expect(profileWritesFor(email)).toHaveLength(0);
  });

  it('fails an event whose answer was cut off at the output limit, even with text in it, and delivers nothing', async () => {
    const single = await ownerWithFlows(scenario, {
      abandoned_cart: { assistants: [{ name: 'Subject', klaviyo_property: 'subject_line1', prompt_template: 'Subject line for {name}' }] },
    });
    scenario.openai.failNext({ kind: 'incomplete', partialText: 'Your cart is wai' });
    const email = uniqueEmail('cutoff');
    const response = await postEvent(scenario.testApp.baseUrl, single.flows.abandoned_cart.webhookPath, sampleEvent('abandoned_cart', { email }));
    const row = await waitForEvent(db(), response.json.eventId);
    expect(row.status).toBe('failed');
    expect(row.error).toBe(eventOutcomeMessages.answerCutOff('Subject', 'max_output_tokens'));
    expect(profileWritesFor(email)).toHaveLength(0);

    // Two assistants on one model: a cut-off answer whose JSON happens to be whole is still not taken.
    scenario.openai.failNext({ kind: 'incomplete', reason: 'content_filter', partialText: '{"text_1":"Hi","text_2":"Yo"}' });
    const combinedEmail = uniqueEmail('cutoff-json');
    const combined = await waitForEvent(db(), await send(sampleEvent('abandoned_cart', { email: combinedEmail })));
    expect(combined.status).toBe('failed');
    expect(combined.error).toContain(eventOutcomeMessages.answerCutOff('Subject Line', 'content_filter'));
    expect(profileWritesFor(combinedEmail)).toHaveLength(0);
  });

  it('fails an event whose answer has a status a finished call never has, saying so', async () => {
    scenario.openai.failNext({ kind: 'response-status', status: 'in_progress' });
    const mark = openaiMark();
    const email = uniqueEmail('unfinished');
    const row = await waitForEvent(db(), await send(sampleEvent('abandoned_cart', { email })));
    expect(row.status).toBe('failed');
    expect(row.error).toContain('"in_progress"');
    expect(responsesSince(mark)).toHaveLength(1);
    expect(profileWritesFor(email)).toHaveLength(0);
  });

  it('fails an event when Klaviyo refuses a property (400), keeping the generated texts', async () => {
    scenario.klaviyo.failNext({ kind: 'bad-property', on: 'profile-import', property: 'subject_line1' });
    const email = uniqueEmail('badprop');
    const eventId = await send(sampleEvent('abandoned_cart', { email }));
    const row = await waitForEvent(db(), eventId);
    expect(row.status).toBe('failed');
    expect(row.error).toContain("Klaviyo: 'subject_line1' is not a valid field");
    expect(profileWritesFor(email)).toHaveLength(1);
    const event = await detail(eventId);
    expect(event.generations.every((generation: any) => generation.status === 'succeeded')).toBe(true);
    expect(event.deliveries[0]).toMatchObject({ status: 'failed' });
  });
});

describe('missing setup', () => {
  it('fails an event of an owner without saved credentials, saying what to do', async () => {
    const unset = await ownerWithFlows(scenario, { abandoned_cart: {} }, { withCredentials: false });
    const response = await postEvent(scenario.testApp.baseUrl, unset.flows.abandoned_cart.webhookPath, sampleEvent('abandoned_cart', { email: uniqueEmail('nocreds') }));
    expect(await waitForEvent(db(), response.json.eventId)).toMatchObject({ status: 'failed', error: eventOutcomeMessages.noCredentials });
  });

  it('skips an event whose flow was switched off before it was processed', async () => {
    const switching = await ownerWithFlows(scenario, { abandoned_cart: { isActive: false } });
    // An event accepted a moment before the switch: stored as received, with its job.
    const eventId = randomUUID();
    await inTransaction(db(), async (client) => {
      await insertEventOnce(client, newEvent({
        id: eventId,
        flowId: switching.flows.abandoned_cart.id,
        userId: switching.userId,
        flowType: 'abandoned_cart',
        source: 'generic',
        topic: 'cart_abandoned',
        status: 'received',
        contentType: 'application/json',
        rawBody: JSON.stringify(sampleEvent('abandoned_cart')),
        receivedAt: new Date(),
      }));
      await scenario.testApp.app.engine.enqueue(client, { eventId, attempt: 1 });
    });
    expect(await waitForEvent(db(), eventId)).toMatchObject({ status: 'skipped', error: eventOutcomeMessages.flowSwitchedOff });
  });
});

describe('retries', () => {
  it('retries OpenAI 5xx on the app\'s clock and succeeds', async () => {
    scenario.openai.failNext({ kind: 'status', status: 503 }, { kind: 'status', status: 500 });
    const mark = openaiMark();
    const eventId = await send();
    const row = (await settleOnTheAppClock(scenario, [eventId])).get(eventId)!;
    expect(row.status).toBe('delivered');
    // Both assistants share one call (one model): two failures, then the answer.
    expect(responsesSince(mark)).toHaveLength(3);
  });

  it('waits as long as a 429 Retry-After asks, for OpenAI and for Klaviyo', async () => {
    const email = uniqueEmail('retryafter');
    const mark = openaiMark();
    scenario.openai.failNext({ kind: 'status', status: 429, retryAfterMs: 400 });
    scenario.klaviyo.failNext({ kind: 'status', status: 429, retryAfterSeconds: 1, on: 'profile-import' });
    const row = await waitForEvent(db(), await send(sampleEvent('abandoned_cart', { email })));
    expect(row.status).toBe('delivered');

    // One call for both assistants: throttled, and tried again 400 ms later.
    const calls = responsesSince(mark).sort((a, b) => a.receivedAt - b.receivedAt);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.receivedAt - calls[0]!.receivedAt).toBeGreaterThanOrEqual(400);
    const writes = profileWritesFor(email);
    expect(writes).toHaveLength(2);
    expect(writes[1]!.receivedAt - writes[0]!.receivedAt).toBeGreaterThanOrEqual(1_000);
    expect(scenario.klaviyo.profiles.get(email)?.properties.subject_line1).toBeDefined();
  });

  it('does not retry OpenAI insufficient_quota and tells the owner', async () => {
    const mark = openaiMark();
    scenario.openai.failWhen(() => ({ kind: 'insufficient_quota' }));
    const row = await waitForEvent(db(), await send());
    expect(row.status).toBe('failed');
    expect(row.error).toContain('OpenAI: You exceeded your current quota');
    expect(row.error).toContain(eventOutcomeMessages.openAiRefused.quota);
    // Two assistants on one model share one call: no retries.
    expect(responsesSince(mark)).toHaveLength(1);
  });

  it('ends an event at once on a permanent OpenAI answer, telling the owner the cause in words', async () => {
    const cases = [
      { status: 400, code: 'invalid_value', words: eventOutcomeMessages.openAiRefused.badRequest },
      { status: 401, code: 'invalid_api_key', words: eventOutcomeMessages.openAiRefused.unauthorized },
      { status: 403, code: 'unsupported_country_region_territory', words: eventOutcomeMessages.openAiRefused.forbidden },
      { status: 404, code: 'model_not_found', words: eventOutcomeMessages.openAiRefused.notFound('gpt-5-mini') },
      { status: 413, code: null, words: eventOutcomeMessages.openAiRefused.tooLarge },
      { status: 422, code: null, words: eventOutcomeMessages.openAiRefused.badRequest },
    ];
    for (const { status, code, words } of cases) {
      const mark = openaiMark();
      scenario.openai.failNext({ kind: 'status', status, code, message: `Refused with ${status}.` });
      const row = await waitForEvent(db(), await send());
      expect(row.status, `HTTP ${status}`).toBe('failed');
      expect(row.error).toContain(`OpenAI: Refused with ${status}.`);
      expect(row.error).toContain(words);
      expect(responsesSince(mark), `HTTP ${status} is not tried again`).toHaveLength(1);
    }
  });

  it('fails after the last try with the service message', async () => {
    const email = uniqueEmail('always500');
    scenario.klaviyo.failWhen((request) =>
      (request.body as any)?.data?.attributes?.email === email ? { kind: 'status', status: 502, detail: 'Upstream is down' } : undefined,
    );
    const eventId = await send(sampleEvent('abandoned_cart', { email }));
    const row = (await settleOnTheAppClock(scenario, [eventId])).get(eventId)!;
    expect(row).toMatchObject({ status: 'failed', error: eventOutcomeMessages.triesUsedUp('Klaviyo: Upstream is down', 3) });
    expect(profileWritesFor(email)).toHaveLength(3);
  });
});

describe('a job run twice at once', () => {
  // pg-boss hands a job whose worker stopped sending heartbeats (killed, or too busy to
  // reach the database) to another worker, while the first may still be running it. Here
  // the test is that other worker: while this run waits for its text, the event is moved
  // to delivering as the other run would have moved it.
  it('does not write the profile when another run moved the event to delivering first', async () => {
    const email = uniqueEmail('twice');
    scenario.openai.setLatency(1_000);
    try {
      const mark = openaiMark();
      const eventId = await send(sampleEvent('abandoned_cart', { email }));
      await expect.poll(() => responsesSince(mark).length, { timeout: 20_000 }).toBeGreaterThan(0);
      const moved = await db().query("UPDATE events SET status = 'delivering' WHERE id = $1 AND status = 'generating'", [eventId]);
      expect(moved.rowCount).toBe(1);
      // The other run stored its texts and began delivering them.
      const othersTexts = { subject_line1: 'The other run\'s subject', body_copy: 'The other run\'s body' };
      await saveGenerations(db(), Object.entries(othersTexts).map(([property, text]) => generationRecord(eventId, property, { text })), new Date());
      await startDelivery(db(), { id: eventId, eventId, attempt: 1, properties: othersTexts, klaviyoEventName: null, holdout: false });
      const stopped = (line: string) => line.includes(eventId) && line.includes('this run stops before delivering');
      await expect.poll(() => scenario.testApp.logLines.some(stopped), { timeout: 20_000 }).toBe(true);
      expect(profileWritesFor(email)).toHaveLength(0);
      expect(scenario.klaviyo.events.filter((event) => event.email === email)).toHaveLength(0);
      // This run's late texts did not replace the ones being delivered (decision 0062).
      const event = await detail(eventId);
      expect(Object.fromEntries(event.generations.map((generation: any) => [generation.klaviyoProperty, generation.text]))).toEqual(othersTexts);
      expect(event.deliveries[0].properties).toEqual(othersTexts);
    } finally {
      scenario.openai.setLatency(0);
    }
  });
});

describe('replay', () => {
  it('replays a failed event without generating its texts again, and delivers it', async () => {
    const email = uniqueEmail('replayfail');
    scenario.klaviyo.failWhen((request) => ((request.body as any)?.data?.attributes?.email === email ? { kind: 'status', status: 500 } : undefined));
    const mark = openaiMark();
    const eventId = await send(sampleEvent('abandoned_cart', { email }));
    expect((await settleOnTheAppClock(scenario, [eventId])).get(eventId)!.status).toBe('failed');
    expect(responsesSince(mark)).toHaveLength(1);

    scenario.klaviyo.clearFailures();
    const replay = await owner.client.call(endpoints.events.replay, { params: { eventId } });
    expect(replay.status).toBe(202);
    expect(replay.json.event).toMatchObject({ id: eventId, status: 'received', attempt: 2 });
    expect((await waitForEvent(db(), eventId)).status).toBe('delivered');
    expect(responsesSince(mark)).toHaveLength(1);
    const event = await detail(eventId);
    expect(event.generations.map((generation: any) => generation.reused)).toEqual([true, true]);
    expect(scenario.klaviyo.profiles.get(email)?.properties.subject_line1).toBeDefined();
  });

  it('replays a delivered event deliberately: a second delivery with a new unique_id', async () => {
    const email = uniqueEmail('replaydone');
    const eventId = await send(sampleEvent('abandoned_cart', { email }));
    expect((await waitForEvent(db(), eventId)).status).toBe('delivered');
    const replay = await owner.client.call(endpoints.events.replay, { params: { eventId } });
    expect(replay.status).toBe(202);
    expect((await waitForEvent(db(), eventId)).status).toBe('delivered');
    expect(profileWritesFor(email)).toHaveLength(2);
    const klaviyoEvents = scenario.klaviyo.events.filter((event) => event.email === email);
    expect(klaviyoEvents.map((event) => event.uniqueId)).toEqual([eventId, `${eventId}:2`]);
    const event = await detail(eventId);
    expect(event.deliveries.map((delivery: any) => [delivery.attempt, delivery.status])).toEqual([
      [2, 'delivered'],
      [1, 'delivered'],
    ]);
  });

  it('refuses to replay an event that is not failed or delivered, or another owner’s event', async () => {
    const skipped = await send(sampleEvent('abandoned_cart', { email: null }));
    await waitForEvent(db(), skipped);
    const refused = await owner.client.call(endpoints.events.replay, { params: { eventId: skipped } });
    expect(refused.status).toBe(409);
    expect(refused.json.message).toBe(eventLogMessages.replayNotAllowed);

    const stranger = await ownerWithFlows(scenario, {});
    expect((await stranger.client.call(endpoints.events.replay, { params: { eventId: skipped } })).status).toBe(404);
    expect((await stranger.client.call(endpoints.events.detail, { params: { eventId: skipped } })).status).toBe(404);
    expect((await stranger.client.call(endpoints.events.list)).json.events).toEqual([]);
  });

  it('filters the event log by status', async () => {
    const failedOnly = await owner.client.call(endpoints.events.list, { query: { status: 'failed', limit: 100 } });
    expect(failedOnly.status).toBe(200);
    expect(failedOnly.json.events.length).toBeGreaterThan(0);
    expect(failedOnly.json.events.every((event: any) => event.status === 'failed')).toBe(true);
    const firstPage = await owner.client.call(endpoints.events.list, { query: { limit: 2 } });
    expect(firstPage.json.events).toHaveLength(2);
    const secondPage = await owner.client.call(endpoints.events.list, { query: { limit: 2, before: firstPage.json.nextBefore } });
    expect(secondPage.json.events[0].id).not.toBe(firstPage.json.events[1].id);
    expect(new Date(secondPage.json.events[0].receivedAt).getTime()).toBeLessThanOrEqual(new Date(firstPage.json.events[1].receivedAt).getTime());
  });
});
