import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { inTransaction, type Queryable } from '../../src/server/database/database.ts';
import { insertEventOnce, newEvent } from '../../src/server/events/event-queries.ts';
import { generationsOnDay, reserveGenerationCaps } from '../../src/server/engine/limits/generation-cap-queries.ts';
import { recordFlowSpend } from '../../src/server/generations/flow-spend-queries.ts';
import { eventOutcomeMessages as outcome } from '../../src/shared/events/event-messages.ts';
import type { FlowType } from '../../src/shared/flows/flow-types.ts';
import { ownerWithFlows, postEvent, sampleEvent, settleOnTheAppClock, useEngineScenario, waitForEvent, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * The flow's cost and abuse caps: one generation per shopper per flow per cooldown, and a
 * number of generating events per flow per UTC day, both checked before any OpenAI call
 * on the app's clock. The owner's settings page sets them; here they are set in the table.
 */
const scenario = useEngineScenario({ standIns: allStandIns }, { clearFailures: true });

const db = () => scenario.testApp.database.pool;
const clock = () => scenario.testApp.clock;
const openaiCalls = () => scenario.openai.responsesRequests().length;

async function setCaps(owner: Owner, flowType: FlowType, caps: { cooldownHours?: number; dailyCap?: number }) {
  await db().query('UPDATE flows SET shopper_cooldown_hours = coalesce($2, shopper_cooldown_hours), daily_generation_cap = coalesce($3, daily_generation_cap) WHERE id = $1', [
    owner.flows[flowType].id,
    caps.cooldownHours ?? null,
    caps.dailyCap ?? null,
  ]);
  // The webhook intake keeps active flows for a second; the engine reads the flow afresh.
  clock().advance(61_000);
}

async function send(owner: Owner, flowType: FlowType, email: string): Promise<string> {
  const response = await postEvent(scenario.testApp.baseUrl, owner.flows[flowType].webhookPath, sampleEvent(flowType, { email }));
  expect(response.status, response.text).toBe(202);
  return response.json.eventId as string;
}

/** The next UTC midnight after the app's clock, plus a minute. */
function moveToNextUtcDay(): void {
  const now = clock().now();
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1, 0, 1);
  clock().advance(midnight - now.getTime());
}

describe('one generation per shopper per flow per cooldown', () => {
  it('skips a second event of the same shopper within the cooldown before any OpenAI call, and generates again after it', async () => {
    const owner = await ownerWithFlows(scenario, { abandoned_cart: {}, post_purchase: {} });
    await setCaps(owner, 'abandoned_cart', { cooldownHours: 24 });
    const email = uniqueEmail('cooldown');
    expect((await waitForEvent(db(), await send(owner, 'abandoned_cart', email))).status).toBe('delivered');

    const before = openaiCalls();
    clock().advance(23 * 60 * 60_000);
    // Another case of the address is the same shopper.
    const second = await waitForEvent(db(), await send(owner, 'abandoned_cart', email.toUpperCase()));
    expect(second).toMatchObject({ status: 'skipped', error: outcome.shopperCooldown(24) });
    expect(openaiCalls()).toBe(before);

    // Another flow of the owner is another budget.
    expect((await waitForEvent(db(), await send(owner, 'post_purchase', email))).status).toBe('delivered');

    clock().advance(60 * 60_000 + 1_000);
    expect((await waitForEvent(db(), await send(owner, 'abandoned_cart', email))).status).toBe('delivered');
  });

  it('is off at 0 hours, and never applies to replays or console test sends', async () => {
    const owner = await ownerWithFlows(scenario, { abandoned_cart: {}, post_purchase: {} });
    await setCaps(owner, 'post_purchase', { cooldownHours: 0 });
    const repeat = uniqueEmail('no-cooldown');
    expect((await waitForEvent(db(), await send(owner, 'post_purchase', repeat))).status).toBe('delivered');
    expect((await waitForEvent(db(), await send(owner, 'post_purchase', repeat))).status).toBe('delivered');

    await setCaps(owner, 'abandoned_cart', { cooldownHours: 24 });
    const email = uniqueEmail('replayed');
    const first = await send(owner, 'abandoned_cart', email);
    expect((await waitForEvent(db(), first)).status).toBe('delivered');
    const replay = await owner.client.call(endpoints.events.replay, { params: { eventId: first } });
    expect(replay.status).toBe(202);
    expect(await waitForEvent(db(), first)).toMatchObject({ status: 'delivered', error: null });

    const tested = await owner.client.call(endpoints.webhooks.testSend, { params: { flowType: 'abandoned_cart' }, body: { payload: JSON.stringify(sampleEvent('abandoned_cart', { email })) } });
    expect(tested.status, tested.text).toBe(202);
    expect(await waitForEvent(db(), tested.json.eventId)).toMatchObject({ status: 'delivered', error: null });
  });
});

describe('generating events per flow per UTC day', () => {
  it('skips events over the daily cap with the reason, counts replays, and starts again the next UTC day', async () => {
    const owner = await ownerWithFlows(scenario, { abandoned_checkout: {} });
    moveToNextUtcDay();
    await setCaps(owner, 'abandoned_checkout', { dailyCap: 3 });
    const delivered = [];
    for (let index = 0; index < 2; index += 1) delivered.push(await waitForEvent(db(), await send(owner, 'abandoned_checkout', uniqueEmail('daily'))));
    expect(delivered.map((row) => row.status)).toEqual(['delivered', 'delivered']);
    // A replay is a generation of the day too: the third.
    expect((await owner.client.call(endpoints.events.replay, { params: { eventId: delivered[0]!.id } })).status).toBe(202);
    expect((await waitForEvent(db(), delivered[0]!.id)).status).toBe('delivered');

    const before = openaiCalls();
    const over = await waitForEvent(db(), await send(owner, 'abandoned_checkout', uniqueEmail('daily-over')));
    expect(over).toMatchObject({ status: 'skipped', error: outcome.dailyCapReached(3) });
    expect(openaiCalls()).toBe(before);
    expect(await generationsOnDay(db(), owner.flows.abandoned_checkout.id, clock().now())).toBe(3);

    moveToNextUtcDay();
    expect((await waitForEvent(db(), await send(owner, 'abandoned_checkout', uniqueEmail('next-day')))).status).toBe('delivered');
  });

  it('does not count a retried event twice, nor refuse it for its own earlier place', async () => {
    const owner = await ownerWithFlows(scenario, { abandoned_cart: {} });
    moveToNextUtcDay();
    await setCaps(owner, 'abandoned_cart', { dailyCap: 1, cooldownHours: 24 });
    scenario.klaviyo.failNext({ kind: 'status', status: 503, on: 'profile-import' }, { kind: 'status', status: 503, on: 'profile-import' });
    const eventId = await send(owner, 'abandoned_cart', uniqueEmail('retried-under-cap'));
    expect((await settleOnTheAppClock(scenario, [eventId], { stepMs: 2_000 })).get(eventId)).toMatchObject({ status: 'delivered', error: null });
    expect(await generationsOnDay(db(), owner.flows.abandoned_cart.id, clock().now())).toBe(1);
  });
});

describe('the caps under concurrency', () => {
  /** Stored events of the flow with no job, for taking places under the caps directly. */
  async function storedEvents(owner: Owner, count: number): Promise<string[]> {
    const ids = Array.from({ length: count }, () => randomUUID());
    await inTransaction(db(), async (client) => {
      for (const id of ids) {
        await insertEventOnce(client, newEvent({
          id,
          flowId: owner.flows.post_purchase.id,
          userId: owner.userId,
          flowType: 'post_purchase',
          source: 'generic',
          topic: 'order_completed',
          status: 'received',
          contentType: 'application/json',
          rawBody: '{}',
          receivedAt: clock().now(),
        }));
      }
    });
    return ids;
  }

  it('lets exactly as many events through as the cap allows, and one per shopper, however many workers ask at once', async () => {
    const owner = await ownerWithFlows(scenario, {});
    const flowId = owner.flows.post_purchase.id;
    const now = new Date(Date.UTC(2031, 0, 1, 12));
    const ids = await storedEvents(owner, 24);
    const place = (eventId: string, shopperEmail: string | null) =>
      reserveGenerationCaps(db(), { eventId, attempt: 1, flowId, shopperEmail, shopperCooldownHours: 24, dailyGenerationCap: 5, now });

    const daily = await Promise.all(ids.slice(0, 12).map((id, index) => place(id, `racer-${index}@example.com`)));
    expect(daily.filter((refusal) => refusal === null)).toHaveLength(5);
    expect(daily.filter((refusal) => refusal?.rule === 'daily')).toHaveLength(7);
    expect(await generationsOnDay(db(), flowId, now)).toBe(5);

    const nextDay = new Date(now.getTime() + 24 * 60 * 60_000);
    const sameShopper = await Promise.all(
      ids.slice(12).map((id) => reserveGenerationCaps(db(), { eventId: id, attempt: 1, flowId, shopperEmail: 'same@example.com', shopperCooldownHours: 24, dailyGenerationCap: 100, now: nextDay })),
    );
    expect(sameShopper.filter((refusal) => refusal === null)).toHaveLength(1);
    expect(sameShopper.filter((refusal) => refusal?.rule === 'shopper')).toHaveLength(11);
    expect(await generationsOnDay(db(), flowId, nextDay)).toBe(1);

    // Events that passed pass again (a retried job) without counting, even with the day full.
    const passed = ids.slice(0, 12).filter((_, index) => daily[index] === null);
    expect(await Promise.all(passed.map((id, index) => place(id, `racer-${index}@example.com`)))).toEqual(Array(5).fill(null));
    expect(await generationsOnDay(db(), flowId, now)).toBe(5);
  });

  it("commits without waiting for its flush, and leaves the pooled connection's setting as it was", async () => {
    // The day's row is locked until the commit; waiting for the flush queued a busy flow's
    // workers behind each other (docs/decisions/0033). The setting is the transaction's only.
    const owner = await ownerWithFlows(scenario, {});
    const flowId = owner.flows.post_purchase.id;
    const now = new Date(Date.UTC(2031, 0, 3, 12));
    const [eventId] = await storedEvents(owner, 1);
    const client = await db().connect();
    try {
      const setting = async () => (await client.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!.synchronous_commit;
      const before = await setting();
      expect(await reserveGenerationCaps(client, { eventId: eventId!, attempt: 1, flowId, shopperEmail: null, shopperCooldownHours: 24, dailyGenerationCap: 5, now })).toBeNull();
      await recordFlowSpend(client, { flowId, at: now, costUsd: 0.001, estimated: false, inputTokens: 10, cachedInputTokens: 0, outputTokens: 5 });
      expect(before).toBe('on');
      expect(await setting()).toBe('on');
      expect(await generationsOnDay(db(), flowId, now)).toBe(1);
      const spend = await db().query<{ calls: number }>('SELECT calls FROM flow_daily_spend WHERE flow_id = $1 AND day = $2::date', [flowId, '2031-01-03']);
      expect(spend.rows[0]!.calls).toBe(1);
    } finally {
      client.release();
    }
  });

  it("takes a place in one statement, so the day's count is never locked across a round trip to a busy worker, and a refusal leaves nothing taken", async () => {
    const owner = await ownerWithFlows(scenario, {});
    const flowId = owner.flows.post_purchase.id;
    const now = new Date(Date.UTC(2031, 0, 2, 12));
    const [first, second, third] = await storedEvents(owner, 3);
    const statements: string[] = [];
    // Only `query`: a reservation that opened a transaction of its own would fail here.
    const recording = { query: (text: string, values?: unknown[]) => (statements.push(text), db().query(text, values)) } as Queryable;
    const place = (eventId: string, shopperEmail: string) =>
      reserveGenerationCaps(recording, { eventId, attempt: 1, flowId, shopperEmail, shopperCooldownHours: 24, dailyGenerationCap: 1, now });

    expect(await place(first!, 'one@example.com')).toBeNull();
    expect(statements).toHaveLength(1);
    expect(await place(second!, 'one@example.com')).toEqual({ rule: 'shopper', hours: 24 });
    expect(await place(third!, 'two@example.com')).toEqual({ rule: 'daily', cap: 1 });
    expect(statements).toHaveLength(3);
    // The refused reservations took no pass, and the second shopper's cooldown did not start.
    const { rows } = await db().query('SELECT event_id FROM event_cap_passes WHERE event_id = ANY($1)', [[first, second, third]]);
    expect(rows.map((row) => row.event_id)).toEqual([first]);
    const cooldowns = await db().query('SELECT count(*)::int AS count FROM shopper_generation_cooldowns WHERE flow_id = $1', [flowId]);
    expect(cooldowns.rows[0].count).toBe(1);
  });
});
