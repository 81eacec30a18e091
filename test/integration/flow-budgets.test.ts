import { beforeEach, describe, expect, it } from 'vitest';
import { defaultAssistants, ownerWithFlows, postEvent, sampleEvent, settleOnTheAppClock, useEngineScenario, waitForEvent, allStandIns } from '../support/engine-scenario.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { recordFlowSpend } from '../../src/server/generations/flow-spend-queries.ts';
import { openAiPrices, priceOf } from '../../src/server/integrations/openai/openai-prices.ts';
import { eventOutcomeMessages } from '../../src/shared/events/event-messages.ts';
import { flowValidationMessages as v } from '../../src/shared/flows/flow-messages.ts';
import { MAX_DAILY_BUDGET_USD, MAX_REUSE_WINDOW_HOURS } from '../../src/shared/flows/flow-limits.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';
import { endpointAddress } from '../../src/shared/api/endpoint.ts';

// A flow's daily OpenAI budget and its cost settings (docs/decisions/0022-budgets.md).
const scenario = useEngineScenario({ standIns: allStandIns });
beforeEach(() => {
  scenario.testApp.clock.advance(61_000);
});

const db = () => scenario.testApp.database.pool;
const configuration = (extra: Record<string, unknown>) => ({ isActive: true, assistants: defaultAssistants, klaviyoEventName: null, ...extra });

async function spend(flowId: string, costUsd: number) {
  await recordFlowSpend(db(), { flowId, at: scenario.testApp.clock.now(), costUsd, estimated: false, inputTokens: 1_000, cachedInputTokens: 800, outputTokens: 100 });
}

describe('cost settings', () => {
  it('saves and returns the budget, what happens past it, the reuse window and the flex tier; a field left out keeps its value', async () => {
    const owner = await ownerWithFlows(scenario, {});
    const saved = await owner.client.call(endpoints.flows.update, {
      params: { flowType: 'abandoned_cart' },
      body: configuration({ dailyBudgetUsd: 12.5, overBudget: 'skip', reuseWindowHours: 6, useFlexTier: false }),
    });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.json.flow).toMatchObject({ dailyBudgetUsd: 12.5, overBudget: 'skip', reuseWindowHours: 6, useFlexTier: false });

    const kept = await owner.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: configuration({}) });
    expect(kept.json.flow).toMatchObject({ dailyBudgetUsd: 12.5, overBudget: 'skip', reuseWindowHours: 6, useFlexTier: false });

    const cleared = await owner.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: configuration({ dailyBudgetUsd: null }) });
    expect(cleared.json.flow).toMatchObject({ dailyBudgetUsd: null, overBudget: 'skip' });
    const listed = (await owner.client.call(endpoints.flows.list)).json.flows.find((flow: { flowType: string }) => flow.flowType === 'post_purchase');
    expect(listed).toMatchObject({ dailyBudgetUsd: null, overBudget: 'wait', reuseWindowHours: 24, useFlexTier: true });
  });

  it.each([
    [{ dailyBudgetUsd: 0 }, 'dailyBudgetUsd', v.dailyBudgetRange(MAX_DAILY_BUDGET_USD)],
    [{ dailyBudgetUsd: -5 }, 'dailyBudgetUsd', v.dailyBudgetRange(MAX_DAILY_BUDGET_USD)],
    [{ dailyBudgetUsd: 1.234 }, 'dailyBudgetUsd', v.dailyBudgetNumber],
    [{ dailyBudgetUsd: 'ten' }, 'dailyBudgetUsd', v.dailyBudgetNumber],
    [{ reuseWindowHours: MAX_REUSE_WINDOW_HOURS + 1 }, 'reuseWindowHours', v.reuseWindowRange(MAX_REUSE_WINDOW_HOURS)],
    [{ reuseWindowHours: 1.5 }, 'reuseWindowHours', v.reuseWindowWholeNumber],
    [{ overBudget: 'later' }, 'overBudget', v.overBudgetChoice],
  ])('refuses %j with a 400 that says what is wrong', async (extra, field, message) => {
    const owner = await ownerWithFlows(scenario, {});
    const refused = await owner.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: configuration(extra) });
    expect(refused.status).toBe(400);
    expect(refused.json.fieldErrors[field]).toBe(message);
  });
});

describe('the daily budget', () => {
  it('makes an event wait for the next UTC day once the day’s spend reaches it, then writes it', async () => {
    const owner = await ownerWithFlows(scenario, { post_purchase: {} });
    expect((await owner.client.call(endpoints.flows.update, { params: { flowType: 'post_purchase' }, body: configuration({ dailyBudgetUsd: 0.5 }) })).status).toBe(200);
    await spend(owner.flows.post_purchase.id, 0.5);
    const before = scenario.openai.responsesRequests().length;
    const posted = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: uniqueEmail('budget') }));
    const eventId = posted.json.eventId as string;
    const waiting = await waitForEvent(db(), eventId, { statuses: ['waiting'] });
    const now = scenario.testApp.clock.now();
    const nextDay = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
    expect(waiting.error).toBe(eventOutcomeMessages.budgetWait(0.5, nextDay));
    const { rows } = await db().query<{ process_after: Date }>('SELECT process_after FROM events WHERE id = $1', [eventId]);
    expect(rows[0]!.process_after.toISOString()).toBe(nextDay.toISOString());
    expect(scenario.openai.responsesRequests().length).toBe(before);

    // The next day the budget is fresh: the event is written and delivered.
    scenario.testApp.clock.advance(nextDay.getTime() + 1_000 - scenario.testApp.clock.now().getTime());
    expect((await settleOnTheAppClock(scenario, [eventId])).get(eventId)).toMatchObject({ status: 'delivered' });
    expect(scenario.openai.responsesRequests().length).toBe(before + 1);
  });

  it('skips the event with the reason when the owner chose to skip', async () => {
    const owner = await ownerWithFlows(scenario, { post_purchase: {} });
    expect((await owner.client.call(endpoints.flows.update, { params: { flowType: 'post_purchase' }, body: configuration({ dailyBudgetUsd: 1, overBudget: 'skip' }) })).status).toBe(200);
    await spend(owner.flows.post_purchase.id, 1.2);
    const posted = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: uniqueEmail('skip') }));
    expect(await waitForEvent(db(), posted.json.eventId)).toMatchObject({ status: 'skipped', error: eventOutcomeMessages.budgetSkipped(1) });
  });

  it('lets events through while the day’s spend is under the budget', async () => {
    const owner = await ownerWithFlows(scenario, { post_purchase: {} });
    expect((await owner.client.call(endpoints.flows.update, { params: { flowType: 'post_purchase' }, body: configuration({ dailyBudgetUsd: 1 }) })).status).toBe(200);
    await spend(owner.flows.post_purchase.id, 0.99);
    const posted = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: uniqueEmail('under') }));
    expect(await waitForEvent(db(), posted.json.eventId)).toMatchObject({ status: 'delivered' });
  });
});

describe('GET /api/flows/costs', () => {
  it('gives each flow of the owner its cost today and over the last 7 days, and no other owner’s', async () => {
    const owner = await ownerWithFlows(scenario, {});
    const other = await ownerWithFlows(scenario, {});
    await spend(owner.flows.abandoned_cart.id, 0.25);
    await spend(owner.flows.abandoned_cart.id, 0.5);
    scenario.testApp.clock.advance(-2 * 86_400_000);
    await spend(owner.flows.abandoned_cart.id, 1);
    scenario.testApp.clock.advance(-10 * 86_400_000);
    await spend(owner.flows.abandoned_cart.id, 100);
    scenario.testApp.clock.advance(12 * 86_400_000);

    const costs = await owner.client.call(endpoints.flows.costs);
    expect(costs.status).toBe(200);
    const cart = costs.json.flows.find((flow: { flowType: string }) => flow.flowType === 'abandoned_cart');
    expect(cart.today).toMatchObject({ costUsd: 0.75, calls: 2, inputTokens: 2_000, cachedInputTokens: 1_600 });
    expect(cart.last7Days).toMatchObject({ costUsd: 1.75, calls: 3 });
    expect(cart.days).toHaveLength(2);
    expect(costs.json.flows.find((flow: { flowType: string }) => flow.flowType === 'post_purchase').last7Days.calls).toBe(0);

    const theirs = await other.client.call(endpoints.flows.costs);
    expect(theirs.json.flows.every((flow: { last7Days: { calls: number } }) => flow.last7Days.calls === 0)).toBe(true);
    expect((await fetch(`${scenario.testApp.baseUrl}${endpointAddress(endpoints.flows.costs)}`)).status).toBe(401);
  });
});

describe('a model without a known price', () => {
  it('is budgeted at the dearest known price of each kind of token, and its cost is marked as an estimate', async () => {
    scenario.openai.models.add('gpt-9-preview');
    const owner = await ownerWithFlows(scenario, {
      post_purchase: { assistants: defaultAssistants.map((assistant) => ({ ...assistant, model: 'gpt-9-preview' })) },
    });
    const posted = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: uniqueEmail('unpriced') }));
    expect(await waitForEvent(db(), posted.json.eventId)).toMatchObject({ status: 'delivered' });

    const { generations } = (await owner.client.call(endpoints.events.detail, { params: { eventId: posted.json.eventId } })).json.event;
    const sum = (field: string) => generations.reduce((total: number, generation: Record<string, number>) => total + generation[field]!, 0);
    const dearest = (field: 'inputPerMillion' | 'cachedInputPerMillion' | 'outputPerMillion') => Math.max(...Object.values(openAiPrices).map((price) => price[field]));
    const atDearest = ((sum('inputTokens') - sum('cachedInputTokens')) * dearest('inputPerMillion') + sum('cachedInputTokens') * dearest('cachedInputPerMillion') + sum('outputTokens') * dearest('outputPerMillion')) / 1_000_000;
    expect(priceOf('gpt-9-preview').known).toBe(false);
    expect(generations.every((generation: { costEstimated: boolean }) => generation.costEstimated)).toBe(true);
    expect(sum('costUsd')).toBeCloseTo(atDearest, 10);

    const costs = (await owner.client.call(endpoints.flows.costs)).json;
    const flow = costs.flows.find((entry: { flowType: string }) => entry.flowType === 'post_purchase');
    expect(flow.today).toMatchObject({ calls: 1, estimatedCalls: 1 });
    expect(flow.today.costUsd).toBeCloseTo(atDearest, 10);
  });
});
