import { beforeAll, describe, expect, it } from 'vitest';
import { eventOutcomeMessages as outcome } from '../../src/shared/events/event-messages.ts';
import { randomUUID } from 'node:crypto';
import { ownerWithFlows, postEvent, sampleEvent, settleOnTheAppClock, shopifySecret, useEngineScenario, waitForEvent, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { sendShopifyWebhook, shopifyCheckoutPayload } from '../fakes/fake-shopify.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * Patient retries: a failing service is tried again later, on the app's clock, by the
 * timer sweep, while no worker slot waits. The test engine tries 3 times, 1 s and then
 * 2 s apart (test-app.ts); nothing here waits for those seconds, the clock is moved.
 */
let owner: Owner;
const scenario = useEngineScenario({ standIns: allStandIns }, { clearFailures: true, advanceClockMs: 61_000 });
beforeAll(async () => {
  const oneAssistant = { assistants: [{ name: 'Subject Line', klaviyo_property: 'subject_line1', prompt_template: 'Write a subject line for {description}' }] };
  owner = await ownerWithFlows(scenario, { abandoned_cart: oneAssistant, post_purchase: oneAssistant, abandoned_checkout: { ...oneAssistant, waitMinutes: 30 } });
});

const db = () => scenario.testApp.database.pool;
const engine = () => scenario.testApp.app.engine;

async function send(email: string): Promise<string> {
  const response = await postEvent(scenario.testApp.baseUrl, owner.flows.abandoned_cart.webhookPath, sampleEvent('abandoned_cart', { email }));
  expect(response.status, response.text).toBe(202);
  return response.json.eventId as string;
}

async function row(eventId: string) {
  return (await db().query<{ status: string; error: string | null; process_after: Date | null }>('SELECT status, error, process_after FROM events WHERE id = $1', [eventId])).rows[0]!;
}

/** Waits (by polling the database) until the event's failed try has been scheduled. */
async function scheduled(eventId: string) {
  await expect.poll(async () => (await row(eventId)).error ?? '', { timeout: 10_000, interval: 50 }).toContain('Trying again at');
  return row(eventId);
}

const profileWrites = (email: string) =>
  scenario.klaviyo.requests.filter((request) => request.path === '/api/profile-import' && (request.body as any).data.attributes.email === email);
const openaiCallsFor = (mark: number) => scenario.openai.responsesRequests().length - mark;

describe('a failed try is scheduled, not slept', () => {
  it('puts the event back to waiting until the next try, says when in the event log, holds no worker slot, and tries again when the clock gets there', async () => {
    const email = uniqueEmail('scheduled');
    const mark = scenario.openai.responsesRequests().length;
    scenario.klaviyo.failNext({ kind: 'status', status: 503, on: 'profile-import' });
    const sentAt = scenario.testApp.clock.now().getTime();
    const eventId = await send(email);
    const waiting = await scheduled(eventId);

    expect(waiting.status).toBe('waiting');
    expect(waiting.process_after!.getTime() - sentAt).toBeGreaterThanOrEqual(1_000);
    expect(waiting.error).toBe(outcome.retrying('Klaviyo: The service answered with an error.', waiting.process_after!, 2, 3));
    await expect.poll(() => engine().inFlight()).toBe(0);
    const listed = (await owner.client.call(endpoints.events.list, { query: { flowType: 'abandoned_cart' } })).json.events.find((event: { id: string }) => event.id === eventId);
    expect(listed).toMatchObject({ status: 'waiting', waitsUntil: waiting.process_after!.toISOString(), error: waiting.error });

    // Not due yet on the app's clock: the sweep leaves it alone.
    expect(await engine().fireDueTimers()).toBe(0);
    expect(profileWrites(email)).toHaveLength(1);

    scenario.testApp.clock.advance(1_000);
    expect((await settleOnTheAppClock(scenario, [eventId], { stepMs: 0 })).get(eventId)).toMatchObject({ status: 'delivered', error: null });
    expect(profileWrites(email)).toHaveLength(2);
    // The text generated before the failure was kept, not paid for again.
    expect(openaiCallsFor(mark)).toBe(1);
  });

  it('waits at least as long as the service asks with Retry-After, without a slot waiting for it', async () => {
    const mark = scenario.openai.responsesRequests().length;
    scenario.openai.failNext({ kind: 'status', status: 429, retryAfterSeconds: 90 });
    const eventId = await send(uniqueEmail('retry-after'));
    const waiting = await scheduled(eventId);
    await expect.poll(() => engine().inFlight()).toBe(0);

    scenario.testApp.clock.advance(89_000);
    expect(await engine().fireDueTimers()).toBe(0);
    expect(openaiCallsFor(mark)).toBe(1);
    scenario.testApp.clock.advance(waiting.process_after!.getTime() - scenario.testApp.clock.now().getTime());
    expect((await settleOnTheAppClock(scenario, [eventId], { stepMs: 0 })).get(eventId)).toMatchObject({ status: 'delivered' });
    expect(openaiCallsFor(mark)).toBe(2);
  });

  it('counts tries per step: a try that gets further starts the count again', async () => {
    // Three tries per step in tests: two OpenAI failures, then two Klaviyo failures, still delivered.
    const email = uniqueEmail('per-step');
    scenario.openai.failNext({ kind: 'status', status: 500 }, { kind: 'status', status: 502 });
    scenario.klaviyo.failNext({ kind: 'status', status: 500, on: 'profile-import' }, { kind: 'status', status: 503, on: 'profile-import' });
    const eventId = await send(email);
    expect((await settleOnTheAppClock(scenario, [eventId], { stepMs: 2_000 })).get(eventId)).toMatchObject({ status: 'delivered', error: null });
    expect(profileWrites(email)).toHaveLength(3);
  });

  it('fails at once on a permanent error or exhausted quota, and after the last try otherwise', async () => {
    scenario.openai.failNext({ kind: 'insufficient_quota' });
    const quota = await send(uniqueEmail('quota'));
    expect((await settleOnTheAppClock(scenario, [quota])).get(quota)).toMatchObject({ status: 'failed', error: expect.stringContaining('OpenAI: You exceeded your current quota') });

    scenario.openai.failWhen(() => ({ kind: 'status', status: 500 }));
    const mark = scenario.openai.responsesRequests().length;
    const down = await send(uniqueEmail('down'));
    const failed = (await settleOnTheAppClock(scenario, [down], { stepMs: 2_000 })).get(down)!;
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain('gave up after 3 tries');
    expect(openaiCallsFor(mark)).toBe(3);
  });

  it('leaves a waiting event to the sweep: a leftover job of its last try does not run it early', async () => {
    const email = uniqueEmail('leftover');
    scenario.klaviyo.failNext({ kind: 'status', status: 503, on: 'profile-import' });
    const eventId = await send(email);
    await scheduled(eventId);
    // As if the worker that scheduled the try had died before completing its job.
    await engine().enqueue(db(), { eventId, attempt: 1 });
    await expect
      // Both jobs (the try's and the leftover) have run once none is left: a finished job is deleted.
      .poll(async () => (await db().query(`SELECT count(*)::int AS left FROM pgboss.job WHERE name = 'process-event' AND data->>'eventId' = $1`, [eventId])).rows[0].left, {
        timeout: 10_000,
        interval: 50,
      })
      .toBe(0);
    expect((await row(eventId)).status).toBe('waiting');
    expect(profileWrites(email)).toHaveLength(1);
    expect((await settleOnTheAppClock(scenario, [eventId])).get(eventId)).toMatchObject({ status: 'delivered' });
    expect(profileWrites(email)).toHaveLength(2);
  });

  it('still counts an order waiting for its next try: orders/paid of the same order is not followed up again', async () => {
    const email = uniqueEmail('order-retry');
    const order = { ...shopifyCheckoutPayload(email), id: 7_000_000_000_000_000 + Math.floor(Math.random() * 1e9), checkout_token: `chk_${randomUUID()}` };
    scenario.klaviyo.failNext({ kind: 'status', status: 503, on: 'profile-import' });
    const created = await sendShopify(owner.flows.post_purchase.webhookPath, 'orders/create', order);
    await scheduled(created);
    const paid = await sendShopify(owner.flows.post_purchase.webhookPath, 'orders/paid', order);
    expect(await waitForEvent(db(), paid)).toMatchObject({ status: 'skipped', error: outcome.orderFollowedUp });
    expect((await settleOnTheAppClock(scenario, [created], { stepMs: 2_000 })).get(created)).toMatchObject({ status: 'delivered' });
    expect(profileWrites(email)).toHaveLength(2);
  });

  it('does not let the shopper timers end a replay waiting for its next try: replaying is the owner\'s wish', async () => {
    const email = uniqueEmail('replay-retry');
    const checkout = shopifyCheckoutPayload(email);
    const checkoutEvent = await sendShopify(owner.flows.abandoned_checkout.webhookPath, 'checkouts/update', checkout);
    scenario.testApp.clock.advance(31 * 60_000);
    expect((await settleOnTheAppClock(scenario, [checkoutEvent])).get(checkoutEvent)).toMatchObject({ status: 'delivered' });

    // Klaviyo asks for two minutes, so the replay is still waiting when the order comes.
    scenario.klaviyo.failNext({ kind: 'status', status: 429, retryAfterSeconds: 120, on: 'profile-import' });
    expect((await owner.client.call(endpoints.events.replay, { params: { eventId: checkoutEvent } })).status).toBe(202);
    await scheduled(checkoutEvent);
    // The order would end a pending abandonment timer of this checkout; the replay is none.
    const order = await sendShopify(owner.flows.post_purchase.webhookPath, 'orders/create', { ...checkout, id: 8_000_000_000 + Math.floor(Math.random() * 1e6), checkout_token: checkout.token });
    await waitForEvent(db(), order);
    expect(await row(checkoutEvent)).toMatchObject({ status: 'waiting' });
    expect((await settleOnTheAppClock(scenario, [checkoutEvent], { stepMs: 30_000 })).get(checkoutEvent)).toMatchObject({ status: 'delivered' });
  });
});

async function sendShopify(path: string, topic: string, payload: unknown): Promise<string> {
  scenario.testApp.clock.advance(1_000);
  const sent = await sendShopifyWebhook(`${scenario.testApp.baseUrl}${path}`, topic, payload, shopifySecret);
  expect(sent.status, sent.text).toBe(202);
  return JSON.parse(sent.text).eventId as string;
}
