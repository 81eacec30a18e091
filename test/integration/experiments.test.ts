import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ownerWithFlows, postEvent, sampleEvent, useEngineScenario, waitForEvent, waitForEvents, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { seededRandom } from '../../src/server/experiments/experiment-statistics.ts';
import { promoteWinners } from '../../src/server/experiments/experiment-changes.ts';
import { experimentGroupFor } from '../../src/server/experiments/experiment-assignment.ts';
import { experimentMessages } from '../../src/shared/experiments/experiment-messages.ts';
import type { Experiment, ExperimentsResponse } from '../../src/shared/experiments/experiment-schemas.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * Prompt variants tried on real shoppers, a holdout that measures what the AI text adds,
 * and winners promoted by the evidence (docs/decisions/0043-experiments.md), through the
 * webhook, the engine, the stand-in OpenAI and Klaviyo, and the orders' attribution.
 */
const scenario = useEngineScenario({ standIns: allStandIns }, { clearFailures: true, advanceClockMs: 61_000 });
const db = () => scenario.testApp.database.pool;

const cartAssistant = { name: 'Subject', klaviyo_property: 'cart_subject', prompt_template: 'Write a subject line about {products}' };
const promptA = 'Write a subject line about {products}';
const promptB = 'Write a playful subject line about {products} for {first_name}';

async function ownerWithCartExperiment(setup: Record<string, unknown>, assistants = [cartAssistant]): Promise<Owner> {
  const owner = await ownerWithFlows(scenario, { abandoned_cart: { assistants, klaviyoEventName: 'Cart content ready' }, post_purchase: {} });
  const started = await owner.client.call(endpoints.experiments.setUp, { params: { flowType: 'abandoned_cart' }, body: setup });
  expect(started.status, started.text).toBe(200);
  expect(started.json.message).toBe(experimentMessages.started);
  return owner;
}

async function sendCart(owner: Owner, email: string): Promise<string> {
  scenario.testApp.clock.advance(10);
  const sent = await postEvent(scenario.testApp.baseUrl, owner.flows.abandoned_cart.webhookPath, { ...sampleEvent('abandoned_cart', { email }), timestamp: scenario.testApp.clock.now().toISOString() });
  expect(sent.status, sent.text).toBe(202);
  return sent.json.eventId as string;
}

/** A generic order (order_completed) to the owner's post-purchase flow, placed now by the app's clock. */
async function sendOrder(owner: Owner, email: string, total: number, currency = 'USD'): Promise<string> {
  scenario.testApp.clock.advance(1_000);
  const order = sampleEvent('post_purchase', { email });
  const body = { ...order, properties: { ...order.properties, order_id: `ord_${randomUUID()}`, total, currency, purchased_at: scenario.testApp.clock.now().toISOString() } };
  const sent = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, body);
  expect(sent.status, sent.text).toBe(202);
  return sent.json.eventId as string;
}

async function groupsOf(eventIds: string[]): Promise<Map<string, string>> {
  const { rows } = await db().query<{ event_id: string; group_key: string }>('SELECT event_id, group_key FROM experiment_event_groups WHERE event_id = ANY($1)', [eventIds]);
  return new Map(rows.map((row) => [row.event_id, row.group_key]));
}

async function experiments(owner: Owner): Promise<ExperimentsResponse> {
  const answer = await owner.client.call(endpoints.experiments.list, { params: { flowType: 'abandoned_cart' } });
  expect(answer.status, answer.text).toBe(200);
  return answer.json as ExperimentsResponse;
}

const groupOf = (experiment: Experiment, key: string) => experiment.groups.find((group) => group.key === key)!;

describe('an experiment on real shoppers', () => {
  it('writes each arm with its prompt, holds shoppers out with the flow’s properties cleared, and keeps every shopper in one group', async () => {
    const owner = await ownerWithCartExperiment({ arms: [{ prompts: { cart_subject: promptA } }, { prompts: { cart_subject: promptB } }], holdoutPercent: 30 });
    const shoppers = Array.from({ length: 24 }, (_, index) => `exp-${index}-${randomUUID().slice(0, 8)}@shop.example`);
    const eventIds = await Promise.all(shoppers.map((email) => sendCart(owner, email)));
    // Generous bounds: on a busy CI machine (three test runs on two cores) this took 24 s.
    const settled = await waitForEvents(db(), eventIds, { timeoutMs: 60_000 });
    for (const row of settled.values()) expect(row.status, row.error ?? '').toBe('delivered');
    const groups = await groupsOf(eventIds);
    const seen = new Set(groups.values());
    expect([...seen].sort()).toEqual(['A', 'B', 'holdout']);

    for (const [index, email] of shoppers.entries()) {
      const group = groups.get(eventIds[index]!)!;
      const profile = scenario.klaviyo.profiles.get(email.toLowerCase())!;
      expect(profile.properties.abandoned_cart_variant).toBe(group);
      const klaviyoEvent = scenario.klaviyo.events.find((event) => event.email === email.toLowerCase());
      expect(klaviyoEvent?.properties).toMatchObject({ abandoned_cart_variant: group });
      if (group === 'holdout') {
        // No text written, the flow's property not on the profile, the event still sent.
        expect(profile.properties.cart_subject).toBeUndefined();
        expect(klaviyoEvent?.properties.cart_subject).toBeUndefined();
      } else {
        expect(typeof profile.properties.cart_subject).toBe('string');
      }
      const detail = (await owner.client.call(endpoints.events.detail, { params: { eventId: eventIds[index] } })).json.event;
      expect(detail.experimentGroup.group).toBe(group);
      if (group === 'holdout') {
        expect(detail.generations).toEqual([]);
        expect(detail.deliveries[0].holdout).toBe(true);
      } else {
        expect(detail.generations[0].prompt.split('\n')[0]).toBe(group === 'A' ? promptA : promptB);
      }
    }
    // The holdout's profile write asked Klaviyo to remove the flow's property.
    const holdoutEmail = shoppers.find((_, index) => groups.get(eventIds[index]!) === 'holdout')!;
    const holdoutWrite = scenario.klaviyo.requests.find(
      (request) => request.path === '/api/profile-import' && (request.body as { data: { attributes: { email: string } } }).data.attributes.email === holdoutEmail.toLowerCase(),
    );
    expect((holdoutWrite?.body as { data: { meta?: unknown } }).data.meta).toEqual({ patch_properties: { unset: ['cart_subject'] } });

    // The same shopper again (the flow's one-text-a-day rule off): the same group.
    await db().query('UPDATE flows SET shopper_cooldown_hours = 0 WHERE id = $1', [owner.flows.abandoned_cart.id]);
    const again = await sendCart(owner, shoppers[0]!);
    expect(await waitForEvent(db(), again)).toMatchObject({ status: 'delivered' });
    expect((await groupsOf([again])).get(again)).toBe(groups.get(eventIds[0]!));

    const current = (await experiments(owner)).current!;
    expect(current.groups.map((group) => group.key)).toEqual(['A', 'B', 'holdout']);
    expect(current.groups.reduce((sum, group) => sum + group.exposures, 0)).toBe(24);
  }, 90_000);

  it('moves traffic to the arm that earns more, promotes it, and measures the lift over the holdout', async () => {
    const arms = [{ prompts: { cart_subject: promptA } }, { prompts: { cart_subject: promptB } }];
    const setup = { arms, holdoutPercent: 15, split: 'adaptive', minExposures: 30, autoPromote: false };
    const owner = await ownerWithCartExperiment(setup);
    const started = (await experiments(owner)).current!;
    // An even split until every arm has its minimum.
    expect(groupOf(started, 'A').trafficShare).toBeCloseTo(0.425, 10);
    expect(groupOf(started, 'B').trafficShare).toBeCloseTo(0.425, 10);
    // The simulated shop: B converts at twice A's rate, the holdout at half A's. Rates and
    // sizes were tried on 2,000 simulated experiments (random ids, as here): about one in a
    // thousand needs a batch more before B's probability reaches 95 %, which the rounds below give.
    const rates: Record<string, number> = { A: 0.3, B: 0.6, holdout: 0.15 };
    const random = seededRandom('a shop where B earns twice what A does');
    const batches: string[][] = [];
    let batch = 0;
    async function shoppersOfOneBatch(): Promise<void> {
      const shoppers = Array.from({ length: 50 }, (_, index) => `sim-${batch}-${index}-${randomUUID().slice(0, 8)}@shop.example`);
      batch += 1;
      const eventIds = await Promise.all(shoppers.map((email) => sendCart(owner, email)));
      await waitForEvents(db(), eventIds, { timeoutMs: 60_000 });
      const groups = await groupsOf(eventIds);
      batches.push([...groups.values()]);
      const orders: string[] = [];
      for (const [index, email] of shoppers.entries()) {
        const group = groups.get(eventIds[index]!);
        if (group && random() < rates[group]!) orders.push(await sendOrder(owner, email, 50 + Math.round(random() * 100)));
      }
      await waitForEvents(db(), orders, { timeoutMs: 60_000 });
      // The adaptive split's shares are worked out again after 30 s by the app's clock.
      scenario.testApp.clock.advance(31_000);
    }
    for (let round = 0; round < 8; round += 1) await shoppersOfOneBatch();

    // Traffic moved: most of the last batches' (non-holdout) shoppers went to B.
    const lastShoppers = batches.slice(-3).flat();
    expect(lastShoppers.filter((group) => group === 'B').length / lastShoppers.filter((group) => group !== 'holdout').length).toBeGreaterThan(0.7);
    const running = (await experiments(owner)).current!;
    expect(groupOf(running, 'B').trafficShare).toBeGreaterThan(groupOf(running, 'A').trafficShare);
    expect(groupOf(running, 'holdout').trafficShare).toBeCloseTo(0.15, 10);

    // Letting Flowsmith promote the winner changes no one's group: the same experiment goes
    // on until the evidence is enough (the check runs every minute), then ends with B.
    const allowed = await owner.client.call(endpoints.experiments.setUp, { params: { flowType: 'abandoned_cart' }, body: { ...setup, autoPromote: true } });
    expect(allowed.json.message).toBe(experimentMessages.updated);
    for (let round = 0; round < 4 && (await promoteWinners(db(), scenario.testApp.clock.now())) === 0; round += 1) await shoppersOfOneBatch();
    const promoted = (await experiments(owner)).past.find((experiment) => experiment.id === running.id)!;
    expect(promoted).toMatchObject({ endReason: 'auto_promoted', winner: 'B', status: 'ended' });
    expect(groupOf(promoted, 'B').probabilityBest).toBeGreaterThanOrEqual(0.95);
    expect(groupOf(promoted, 'A').exposures).toBeGreaterThanOrEqual(30);
    // The lift of the AI text over the ordinary email is positive, with an interval that excludes zero.
    const lift = groupOf(promoted, 'B').liftOverHoldout!;
    expect(lift.value).toBeGreaterThan(0);
    expect(lift.low).toBeGreaterThan(0);
    expect(promoted.summary.some((sentence) => sentence.startsWith('AI text adds'))).toBe(true);
    expect(promoted.summary[0]).toMatch(/^B converts better than A with \d+(\.\d)? % probability\.$/);
    // Orders counted once each, in their currency: the orders the simulation placed.
    const { rows } = await db().query<{ orders: number }>('SELECT count(*)::int AS orders FROM experiment_orders WHERE experiment_id = $1', [running.id]);
    expect(promoted.groups.reduce((sum, group) => sum + group.orders, 0)).toBe(rows[0]!.orders);
    expect(groupOf(promoted, 'B').revenue.map((row) => row.currency)).toEqual(['USD']);
    // The winner's prompt is now the flow's, and no experiment runs.
    const flows = (await owner.client.call(endpoints.flows.list)).json.flows as Array<{ flowType: string; assistants: Array<{ prompt_template: string }> }>;
    expect(flows.find((flow) => flow.flowType === 'abandoned_cart')!.assistants[0]!.prompt_template).toBe(promptB);
    expect((await experiments(owner)).current).toBeNull();
  }, 240_000);
});

describe('an experiment judged by revenue per exposure', () => {
  it('moves traffic to and promotes the arm that brings more revenue per shopper, though it converts less', async () => {
    const arms = [{ prompts: { cart_subject: promptA } }, { prompts: { cart_subject: promptB } }];
    const setup = { arms, holdoutPercent: 10, split: 'adaptive', minExposures: 10, autoPromote: false, objective: 'revenue_per_exposure', objectiveCurrency: 'USD' };
    const owner = await ownerWithCartExperiment(setup);
    const started = (await experiments(owner)).current!;
    expect(started).toMatchObject({ objective: 'revenue_per_exposure', objectiveCurrency: 'USD' });

    // A's shoppers mostly order, a little each; B's order half as often, fifteen times as much.
    // (A EUR order from B's shoppers too, which the objective in USD leaves out.)
    const shoppers = Array.from({ length: 60 }, (_, index) => `rev-${index}-${randomUUID().slice(0, 8)}@shop.example`);
    const eventIds = await Promise.all(shoppers.map((email) => sendCart(owner, email)));
    await waitForEvents(db(), eventIds, { timeoutMs: 60_000 });
    const groups = await groupsOf(eventIds);
    const seen: Record<string, number> = { A: 0, B: 0, holdout: 0 };
    const orders: string[] = [];
    for (const [index, email] of shoppers.entries()) {
      const group = groups.get(eventIds[index]!)!;
      const nth = seen[group]!;
      seen[group] = nth + 1;
      if (group === 'A' && nth % 5 < 4) orders.push(await sendOrder(owner, email, 10));
      if (group === 'B' && nth % 5 < 2) orders.push(await sendOrder(owner, email, 150));
      if (group === 'B' && nth % 5 === 2) orders.push(await sendOrder(owner, email, 5_000, 'EUR'));
    }
    await waitForEvents(db(), orders, { timeoutMs: 60_000 });
    expect(seen.A).toBeGreaterThanOrEqual(10);
    expect(seen.B).toBeGreaterThanOrEqual(10);
    scenario.testApp.clock.advance(31_000);

    const running = (await experiments(owner)).current!;
    const [a, b] = [groupOf(running, 'A'), groupOf(running, 'B')];
    expect(a.conversion!.value).toBeGreaterThan(b.conversion!.value);
    expect(b.probabilityBest).toBeGreaterThan(0.95);
    expect(b.trafficShare).toBeGreaterThan(a.trafficShare);
    // The lift over the holdout per currency: B's USD revenue per shopper less the holdout's.
    const usd = b.revenue.find((row) => row.currency === 'USD')!;
    const holdoutUsd = groupOf(running, 'holdout').revenue.find((row) => row.currency === 'USD');
    expect(usd.liftOverHoldout!.value).toBeCloseTo(usd.perExposure.value - (holdoutUsd?.perExposure.value ?? 0), 9);
    expect(usd.liftOverHoldout!.low).toBeLessThan(usd.liftOverHoldout!.value);
    expect(b.revenue.map((row) => row.currency)).toEqual(['EUR', 'USD']);
    expect(running.summary[0]).toMatch(/^B brings more revenue per shopper \(USD\) than A with \d+(\.\d)? % probability\.$/);
    expect(running.summary).toContain(experimentMessages.summary.otherCurrencies('USD'));

    // Allowed to promote, the check promotes B, though A converts better.
    const allowed = await owner.client.call(endpoints.experiments.setUp, { params: { flowType: 'abandoned_cart' }, body: { ...setup, autoPromote: true } });
    expect(allowed.json.message).toBe(experimentMessages.updated);
    expect(await promoteWinners(db(), scenario.testApp.clock.now())).toBeGreaterThanOrEqual(1);
    const promoted = (await experiments(owner)).past.find((experiment) => experiment.id === running.id)!;
    expect(promoted).toMatchObject({ endReason: 'auto_promoted', winner: 'B', objective: 'revenue_per_exposure', objectiveCurrency: 'USD' });
  }, 180_000);
});

describe('an owner changing an experiment', () => {
  it('keeps the objective and each arm’s shopper context, changes the objective in place, and restarts when a shopper context changes', async () => {
    const arms = [{ prompts: { cart_subject: promptA } }, { prompts: { cart_subject: promptA }, shopperContext: false }];
    const owner = await ownerWithCartExperiment({ arms, holdoutPercent: 0 });
    const first = (await experiments(owner)).current!;
    expect(first).toMatchObject({ objective: 'conversion', objectiveCurrency: null });
    expect(first.arms.map((arm) => arm.shopperContext)).toEqual([true, false]);

    const refused = await owner.client.call(endpoints.experiments.setUp, { params: { flowType: 'abandoned_cart' }, body: { arms, holdoutPercent: 0, objective: 'revenue_per_exposure' } });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json.message).toBe(experimentMessages.currencyRequired);
    expect(refused.json.fieldErrors).toMatchObject({ objectiveCurrency: experimentMessages.currencyRequired });

    const byRevenue = await owner.client.call(endpoints.experiments.setUp, {
      params: { flowType: 'abandoned_cart' },
      body: { arms, holdoutPercent: 0, objective: 'revenue_per_exposure', objectiveCurrency: 'EUR' },
    });
    expect(byRevenue.status, byRevenue.text).toBe(200);
    expect(byRevenue.json.message).toBe(experimentMessages.updated);
    expect(byRevenue.json.current).toMatchObject({ id: first.id, objective: 'revenue_per_exposure', objectiveCurrency: 'EUR' });
    // Back to conversion: a currency sent along is not kept.
    const back = await owner.client.call(endpoints.experiments.setUp, { params: { flowType: 'abandoned_cart' }, body: { arms, holdoutPercent: 0, objective: 'conversion', objectiveCurrency: 'EUR' } });
    expect(back.json.current).toMatchObject({ id: first.id, objective: 'conversion', objectiveCurrency: null });

    // Each event's group says whether its texts may use the shopper's context.
    const shoppers = Array.from({ length: 8 }, (_, index) => `ctx-${index}-${randomUUID().slice(0, 8)}@shop.example`);
    const eventIds = await Promise.all(shoppers.map((email) => sendCart(owner, email)));
    await waitForEvents(db(), eventIds, { timeoutMs: 60_000 });
    const flow = owner.flows.abandoned_cart;
    for (const [index, email] of shoppers.entries()) {
      const group = await experimentGroupFor(db(), { id: eventIds[index]!, flowId: flow.id, flowType: 'abandoned_cart', source: 'webhook' }, email, scenario.testApp.clock.now());
      expect(group?.experimentId).toBe(first.id);
      expect(group?.shopperContext, `shopper context of ${group?.group}`).toBe(group?.group === 'A');
    }
    // An arm stored before arms could leave the context out reads as using it.
    await db().query(`UPDATE flow_experiments SET arms = (SELECT jsonb_agg(arm - 'shopperContext') FROM jsonb_array_elements(arms) arm) WHERE id = $1`, [first.id]);
    const stored = (await owner.client.call(endpoints.experiments.list, { params: { flowType: 'abandoned_cart' } })).json as ExperimentsResponse;
    expect(stored.current!.arms.map((arm) => arm.shopperContext)).toEqual([true, true]);

    const changed = await owner.client.call(endpoints.experiments.setUp, { params: { flowType: 'abandoned_cart' }, body: { arms, holdoutPercent: 0 } });
    expect(changed.json.message).toBe(experimentMessages.restarted);
    expect(changed.json.current.arms.map((arm: { shopperContext: boolean }) => arm.shopperContext)).toEqual([true, false]);
    expect(changed.json.past[0]).toMatchObject({ id: first.id, endReason: 'changed' });
  }, 90_000);

  it('starts a new experiment when a prompt changes, keeps the old one readable, and refuses what does not fit the flow', async () => {
    // Two assistants whose properties the database keeps in another order than the flow's.
    const body = { name: 'Body', klaviyo_property: 'body', prompt_template: 'Write a short email about {products}' };
    const bothArms = [{ prompts: { cart_subject: promptA, body: body.prompt_template } }, { prompts: { cart_subject: promptB, body: body.prompt_template } }];
    const owner = await ownerWithCartExperiment({ arms: bothArms }, [cartAssistant, body]);
    const first = (await experiments(owner)).current!;
    expect(first.holdoutPercent).toBe(10);
    expect(first.groups.every((group) => group.conversion === null)).toBe(true);
    expect(first.summary).toEqual([experimentMessages.summary.waiting]);

    const settingsOnly = await owner.client.call(endpoints.experiments.setUp, { params: { flowType: 'abandoned_cart' }, body: { arms: bothArms, split: 'adaptive' } });
    expect(settingsOnly.json.message).toBe(experimentMessages.updated);
    expect(settingsOnly.json.current.id).toBe(first.id);

    const changed = await owner.client.call(endpoints.experiments.setUp, {
      params: { flowType: 'abandoned_cart' },
      body: {
        arms: [bothArms[0], { prompts: { ...bothArms[1]!.prompts, cart_subject: 'Write a short subject line about {products}' } }],
      },
    });
    expect(changed.json.message).toBe(experimentMessages.restarted);
    expect(changed.json.current.id).not.toBe(first.id);
    expect(changed.json.past[0]).toMatchObject({ id: first.id, endReason: 'changed', status: 'ended' });

    for (const [body, message] of [
      [{ arms: [{ prompts: { other_property: promptA } }, { prompts: { cart_subject: promptB } }] }, experimentMessages.unknownProperty('other_property')],
      [{ arms: [{ prompts: { cart_subject: 'About {shipping_address}' } }, { prompts: { cart_subject: promptB } }] }, null],
      [{ arms: [{ prompts: { cart_subject: promptA } }], holdoutPercent: 0 }, experimentMessages.nothingToCompare],
      [{ arms: [{ prompts: { cart_subject: promptA } }, { prompts: { cart_subject: promptB } }], holdoutPercent: 51 }, experimentMessages.holdoutRange],
      [{ arms: Array.from({ length: 5 }, () => ({ prompts: { cart_subject: promptA } })) }, experimentMessages.armCount],
    ] as const) {
      const refused = await owner.client.call(endpoints.experiments.setUp, { params: { flowType: 'abandoned_cart' }, body });
      expect(refused.status, refused.text).toBe(400);
      if (message) expect(refused.json.message).toBe(message);
    }
    expect((await owner.client.call(endpoints.experiments.promote, { params: { flowType: 'abandoned_cart' }, body: { arm: 'D' } })).status).toBe(400);

    // Another owner can neither read nor change it.
    const stranger = await ownerWithFlows(scenario, {});
    expect((await stranger.client.call(endpoints.experiments.list, { params: { flowType: 'abandoned_cart' } })).json.current).toBeNull();
    expect((await stranger.client.call(endpoints.experiments.stop, { params: { flowType: 'abandoned_cart' } })).status).toBe(404);
    expect((await experiments(owner)).current?.status).toBe('running');

    const stopped = await owner.client.call(endpoints.experiments.stop, { params: { flowType: 'abandoned_cart' } });
    expect(stopped.json.message).toBe(experimentMessages.stopped);
    expect(stopped.json.current).toBeNull();
    expect((await owner.client.call(endpoints.experiments.promote, { params: { flowType: 'abandoned_cart' }, body: { arm: 'A' } })).status).toBe(404);
  });

  it('forgets an erased shopper but keeps the counts', async () => {
    const owner = await ownerWithCartExperiment({ arms: [{ prompts: { cart_subject: promptA } }, { prompts: { cart_subject: promptB } }] });
    const email = `erase-${randomUUID().slice(0, 8)}@shop.example`;
    expect(await waitForEvent(db(), await sendCart(owner, email))).toMatchObject({ status: 'delivered' });
    const erased = await owner.client.call(endpoints.privacy.eraseShopper, { body: { email } });
    expect([200, 202]).toContain(erased.status);
    await expect
      .poll(async () => (await db().query('SELECT count(*)::int AS n FROM experiment_assignments a JOIN flow_experiments x ON x.id = a.experiment_id WHERE x.user_id = $1 AND a.shopper_key IS NOT NULL', [owner.userId])).rows[0].n, { timeout: 15_000 })
      .toBe(0);
    const current = (await experiments(owner)).current!;
    expect(current.groups.reduce((sum, group) => sum + group.exposures, 0)).toBe(1);
  });
});
