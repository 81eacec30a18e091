import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventOutcomeMessages as outcome } from '../../src/shared/events/event-messages.ts';
import { ownerWithFlows, postEvent, sampleEvent, settleOnTheAppClock, startEngineScenario, type EngineScenario, type Owner } from '../fakes/engine-scenario.ts';
import { uniqueEmail } from '../support/accounts.ts';

/**
 * Patient retries: a failing service is tried again later, on the app's clock, by the
 * timer sweep, while no worker slot waits. The test engine tries 3 times, 1 s and then
 * 2 s apart (test-app.ts); nothing here waits for those seconds, the clock is moved.
 */
let scenario: EngineScenario;
let owner: Owner;
beforeAll(async () => {
  scenario = await startEngineScenario();
  owner = await ownerWithFlows(scenario, {
    abandoned_cart: { assistants: [{ name: 'Subject Line', klaviyo_property: 'subject_line1', prompt_template: 'Write a subject line for {description}' }] },
  });
});
afterAll(async () => {
  await scenario?.close();
});
beforeEach(() => {
  scenario.openai.clearFailures();
  scenario.klaviyo.clearFailures();
  scenario.testApp.clock.advance(61_000);
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
    const listed = (await owner.client.get('/api/events?flowType=abandoned_cart')).json.events.find((event: { id: string }) => event.id === eventId);
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
      .poll(async () => (await db().query(`SELECT count(*)::int AS done FROM pgboss.job WHERE name = 'process-event' AND data->>'eventId' = $1 AND state = 'completed'`, [eventId])).rows[0].done, {
        timeout: 10_000,
        interval: 50,
      })
      .toBe(2);
    expect((await row(eventId)).status).toBe('waiting');
    expect(profileWrites(email)).toHaveLength(1);
  });
});
