import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ownerWithFlows, useEngineScenario, sampleEvent, postEvent, settleOnTheAppClock, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * The shopper in the prompt (docs/decisions/0049-the-shopper-in-the-prompt.md): a checkout
 * text written from a prompt that names the shopper's orders and last purchase, read from
 * the owner's own stored events only, forgotten with an erasure, never another owner's.
 */
const scenario = useEngineScenario({ standIns: allStandIns }, { clearFailures: true });

const reminder = {
  name: 'Reminder',
  klaviyo_property: 'reminder_text',
  prompt_template: 'Remind a {shopper_status} ({order_count} orders, the last on {last_order_date}: {last_purchase}) about {name}. Lately seen: {viewed_products}.',
};

async function ownerAskingForTheShopper(): Promise<Owner> {
  return ownerWithFlows(scenario, { post_purchase: {}, abandoned_checkout: { waitMinutes: 0, assistants: [reminder] }, browser_abandonment: { waitMinutes: 0 } });
}

async function send(owner: Owner, flowType: 'post_purchase' | 'abandoned_checkout' | 'browser_abandonment', email: string): Promise<string> {
  // A day on: past the flow's cooldown for the shopper, so each checkout is written for.
  scenario.testApp.clock.advance(25 * 60 * 60_000);
  const posted = await postEvent(scenario.testApp.baseUrl, owner.flows[flowType].webhookPath, sampleEvent(flowType, { email }));
  expect(posted.status, posted.text).toBe(202);
  const eventId = posted.json.eventId as string;
  await settleOnTheAppClock(scenario, [eventId]);
  return eventId;
}

/** What OpenAI was last asked for a reminder (each test sends one checkout at a time). */
function reminderPrompt(): string {
  const prompt = scenario.openai.responsesRequests().map((request) => JSON.stringify(request.body)).filter((body) => body.includes('Remind a')).at(-1);
  expect(prompt, 'the reminder was asked of OpenAI').toBeDefined();
  return prompt!;
}

describe('the shopper in the prompt', () => {
  it("writes to a returning shopper with their order count and last purchase, and to an unknown one as new", async () => {
    const owner = await ownerAskingForTheShopper();
    const returning = `returning-${randomUUID().slice(0, 8)}@example.com`;
    await send(owner, 'post_purchase', returning);
    await send(owner, 'browser_abandonment', returning);
    await send(owner, 'abandoned_checkout', returning);
    const prompt = reminderPrompt();
    expect(prompt).toContain('returning customer (1 earlier order)');
    expect(prompt).toMatch(/last_purchase\\":\s*\\"Trail Shoe; Wool Socks/);
    expect(prompt).toMatch(/order_count\\":\s*\\"1/);

    const unknown = `first-${randomUUID().slice(0, 8)}@example.com`;
    await send(owner, 'abandoned_checkout', unknown);
    const first = reminderPrompt();
    expect(first).toContain('new customer');
    expect(first).not.toContain('last_purchase');
  });

  it("never reads another owner's shoppers, and forgets a shopper the owner erased", async () => {
    const email = `shared-${randomUUID().slice(0, 8)}@example.com`;
    const other = await ownerAskingForTheShopper();
    await send(other, 'post_purchase', email);
    const owner = await ownerAskingForTheShopper();
    await send(owner, 'abandoned_checkout', email);
    expect(reminderPrompt()).toContain('new customer');

    await send(owner, 'post_purchase', email);
    await send(owner, 'abandoned_checkout', email);
    expect(reminderPrompt()).toContain('returning customer (1 earlier order)');
    const erased = await owner.client.call(endpoints.privacy.eraseShopper, { body: { email } });
    expect(erased.status, erased.text).toBe(200);
    await send(owner, 'abandoned_checkout', email);
    expect(reminderPrompt()).toContain('new customer');
  });
});

describe("Klaviyo's predictive figures in the prompt", () => {
  const forecaster = {
    name: 'Forecast',
    klaviyo_property: 'forecast_text',
    prompt_template: 'Remind a shopper with churn risk {churn_risk}, worth {predicted_clv} (so far {historic_clv}), next order due {expected_next_order}, about {name}.',
  };

  it('names them where the account has them, leaves them empty where it has none, and writes anyway when Klaviyo fails', async () => {
    const owner = await ownerWithFlows(scenario, { abandoned_checkout: { waitMinutes: 0, assistants: [forecaster] } });
    const forecastPrompt = () => scenario.openai.responsesRequests().map((request) => JSON.stringify(request.body)).filter((body) => body.includes('churn risk')).at(-1)!;
    const email = `forecast-${randomUUID().slice(0, 8)}@example.com`;
    scenario.klaviyo.setPredictiveAnalytics(email, { churn_probability: 0.12, predicted_clv: 240, historic_clv: 180.5, expected_date_of_next_order: '2026-12-12T00:00:00+00:00' });
    await send(owner, 'abandoned_checkout', email);
    const named = forecastPrompt();
    expect(named).toContain('low (12 %)');
    expect(named).toContain('240.00');
    expect(named).toContain('180.50');
    expect(named).toContain('2026-12-12');

    // The account has no figures for this profile: the placeholders are empty, the text still written.
    const without = `no-forecast-${randomUUID().slice(0, 8)}@example.com`;
    scenario.klaviyo.setPredictiveAnalytics(without, null);
    const written = await send(owner, 'abandoned_checkout', without);
    expect(forecastPrompt()).not.toContain('churn_risk\\"');
    const status = await scenario.testApp.database.pool.query<{ status: string }>('SELECT status FROM events WHERE id = $1', [written]);
    expect(status.rows[0]!.status).toBe('delivered');

    // Klaviyo failing to answer leaves them empty too, never a failed event.
    scenario.klaviyo.failNext({ on: 'profiles', kind: 'status', status: 503 });
    const failedLookup = await send(owner, 'abandoned_checkout', email);
    const after = await scenario.testApp.database.pool.query<{ status: string }>('SELECT status FROM events WHERE id = $1', [failedLookup]);
    expect(after.rows[0]!.status).toBe('delivered');
    expect(forecastPrompt()).not.toContain('low (12 %)');
  });
});
