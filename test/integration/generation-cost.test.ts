import { beforeEach, describe, expect, it } from 'vitest';
import { ownerWithFlows, postEvent, sampleEvent, settleOnTheAppClock, useEngineScenario, allStandIns } from '../support/engine-scenario.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { findFlowSpend } from '../../src/server/generations/flow-spend-queries.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

// What a text costs: one OpenAI call per model for all of a flow's assistants, the fixed
// part of the prompt served from OpenAI's cache, the flex tier where the flow can wait,
// and a text reused when an identical request that names no shopper was answered lately
// (docs/decisions/0021-one-call-per-model.md).
const scenario = useEngineScenario({ standIns: allStandIns });
beforeEach(() => {
  scenario.openai.clearFailures();
  scenario.openai.setRefuseFlex(false);
  scenario.testApp.clock.advance(61_000);
});

const db = () => scenario.testApp.database.pool;
const responses = () => scenario.openai.responsesRequests();

/** A brand voice of about 1,500 tokens: long enough (over 1,024) for OpenAI to cache it. */
const brandVoice = Array.from({ length: 40 }, (_, index) => `Rule ${index + 1}: write as a small outdoor shop would, plainly and warmly, about the walk rather than the gear, and never with exclamation marks.`).join('\n');

const threeAssistants = [
  { name: 'Subject Line', klaviyo_property: 'subject_line1', prompt_template: 'Write a subject line for {first_name} about {name}', instructions: brandVoice },
  { name: 'Preview', klaviyo_property: 'preview_text', prompt_template: 'Write preview text about {description}', instructions: brandVoice },
  { name: 'Body', klaviyo_property: 'body_copy', prompt_template: 'Write an email for {first_name} about {products}', instructions: brandVoice },
];

interface GenerationRow {
  klaviyo_property: string;
  prompt: string;
  text: string | null;
  status: string;
  input_tokens: number;
  cached_input_tokens: number;
  service_tier: string | null;
  cost_usd: string;
  openai_call_id: string | null;
  reused: boolean;
  reused_from: string | null;
}

async function generationsOf(eventId: string): Promise<GenerationRow[]> {
  return (
    await db().query<GenerationRow>(
      `SELECT klaviyo_property, prompt, text, status, input_tokens, cached_input_tokens, service_tier, cost_usd, openai_call_id, reused, reused_from
         FROM event_generations WHERE event_id = $1 ORDER BY klaviyo_property`,
      [eventId],
    )
  ).rows;
}

async function deliver(path: string, body: unknown, stepMs = 5_000): Promise<string> {
  const posted = await postEvent(scenario.testApp.baseUrl, path, body);
  expect(posted.status, posted.text).toBe(202);
  const eventId = posted.json.eventId as string;
  expect((await settleOnTheAppClock(scenario, [eventId], { stepMs })).get(eventId)).toMatchObject({ status: 'delivered' });
  return eventId;
}

describe('one call per model', () => {
  it('writes three assistants on one model with one call, each text its own row with its prompt, and records the cost', async () => {
    const owner = await ownerWithFlows(scenario, { post_purchase: { assistants: threeAssistants } });
    const before = responses().length;
    const email = uniqueEmail('three');
    const eventId = await deliver(owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email }));
    expect(responses().length - before).toBe(1);
    const call = responses().at(-1)!.body as { text: { format: { schema: { required: string[] } } }; service_tier?: string };
    expect(call.text.format.schema.required).toEqual(['text_1', 'text_2', 'text_3']);
    // Post purchase has no wait: the standard tier.
    expect(call.service_tier).toBeUndefined();

    const rows = await generationsOf(eventId);
    expect(rows.map((row) => row.klaviyo_property)).toEqual(['body_copy', 'preview_text', 'subject_line1']);
    expect(new Set(rows.map((row) => row.openai_call_id)).size).toBe(1);
    for (const row of rows) expect(row).toMatchObject({ status: 'succeeded', service_tier: 'default', reused: false });
    expect(rows.find((row) => row.klaviyo_property === 'preview_text')!.prompt).toContain('Write preview text about {description}');
    expect(rows.find((row) => row.klaviyo_property === 'preview_text')!.text).toContain('Write preview text about {description}');
    expect(scenario.klaviyo.profiles.get(email)?.properties).toMatchObject({
      subject_line1: expect.stringContaining('Write a subject line for {first_name} about {name}'),
      preview_text: expect.stringContaining('Write preview text about {description}'),
      body_copy: expect.stringContaining('Write an email for {first_name} about {products}'),
    });
    const cost = rows.reduce((sum, row) => sum + Number(row.cost_usd), 0);
    expect(cost).toBeGreaterThan(0);
    const spend = await findFlowSpend(db(), owner.flows.post_purchase.id, scenario.testApp.clock.now());
    expect(spend.calls).toBe(1);
    expect(spend.costUsd).toBeCloseTo(cost, 6);
    expect(spend.inputTokens).toBe(rows.reduce((sum, row) => sum + row.input_tokens, 0));
  });

  it('serves the fixed part of the prompt from the cache from the second event on', async () => {
    const owner = await ownerWithFlows(scenario, { post_purchase: { assistants: threeAssistants } });
    await deliver(owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: uniqueEmail('first'), first_name: 'Ada' }));
    const second = await deliver(owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: uniqueEmail('second'), first_name: 'Grace' }));
    const rows = await generationsOf(second);
    const input = rows.reduce((sum, row) => sum + row.input_tokens, 0);
    const cached = rows.reduce((sum, row) => sum + row.cached_input_tokens, 0);
    expect(cached / input).toBeGreaterThanOrEqual(0.8);
  });

  it('makes one call per model when assistants use different models', async () => {
    const assistants = [threeAssistants[0]!, { ...threeAssistants[1]!, model: 'gpt-4.1-mini' }, threeAssistants[2]!];
    const owner = await ownerWithFlows(scenario, { post_purchase: { assistants } });
    const before = responses().length;
    const eventId = await deliver(owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: uniqueEmail('models') }));
    const calls = responses().slice(before).map((request) => (request.body as { model: string }).model);
    expect(calls.sort()).toEqual(['gpt-4.1-mini', 'gpt-5-mini']);
    const rows = await generationsOf(eventId);
    expect(new Set(rows.map((row) => row.openai_call_id)).size).toBe(2);
  });
});

describe('spend never undercounted', () => {
  // OpenAI bills the tokens a failed answer reports, as it bills an incomplete one: the
  // flow's spend counts them whatever the answer's status, so a budget stops where the bill does.
  it("counts a failed answer's tokens, then the retry's", async () => {
    const owner = await ownerWithFlows(scenario, { post_purchase: { assistants: [threeAssistants[0]!] } });
    const before = await findFlowSpend(db(), owner.flows.post_purchase.id, scenario.testApp.clock.now());
    const calls = responses().length;
    scenario.openai.failNext({ kind: 'failed', code: 'server_error', message: 'The model failed to generate a response.' });
    await deliver(owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: uniqueEmail('failed-first') }));
    expect(responses().length - calls).toBe(2);
    const spend = await findFlowSpend(db(), owner.flows.post_purchase.id, scenario.testApp.clock.now());
    expect(spend.calls - before.calls).toBe(2);
    const generations = await db().query<{ input_tokens: number }>(
      `SELECT generation.input_tokens FROM event_generations AS generation JOIN events ON events.id = generation.event_id
        WHERE events.flow_id = $1 AND generation.status = 'succeeded'`,
      [owner.flows.post_purchase.id],
    );
    const succeededInput = generations.rows.reduce((sum, row) => sum + row.input_tokens, 0);
    // The failed call read the same prompt: its input tokens are counted on top of the retry's.
    expect(spend.inputTokens - before.inputTokens).toBeGreaterThan(succeededInput);
    expect(spend.costUsd).toBeGreaterThan(before.costUsd);
  });

  it('counts the tokens of a failed answer that is not tried again', async () => {
    const owner = await ownerWithFlows(scenario, { post_purchase: { assistants: [threeAssistants[0]!] } });
    scenario.openai.failNext({ kind: 'failed', code: 'invalid_prompt', message: 'Invalid prompt: the prompt was flagged.' });
    const posted = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: uniqueEmail('failed-only') }));
    expect(posted.status, posted.text).toBe(202);
    const eventId = posted.json.eventId as string;
    await settleOnTheAppClock(scenario, [eventId], { stepMs: 5_000 });
    const spend = await findFlowSpend(db(), owner.flows.post_purchase.id, scenario.testApp.clock.now());
    expect(spend.calls).toBe(1);
    expect(spend.inputTokens).toBeGreaterThan(0);
    expect(spend.costUsd).toBeGreaterThan(0);
  });
});

describe('the flex tier', () => {
  it('is used for a flow that waits 30 minutes, and the standard tier takes over when flex is refused', async () => {
    const owner = await ownerWithFlows(scenario, { abandoned_cart: { assistants: threeAssistants, waitMinutes: 30, useFlexTier: true } });
    let before = responses().length;
    const flexed = await deliver(owner.flows.abandoned_cart.webhookPath, sampleEvent('abandoned_cart', { email: uniqueEmail('flex') }), 31 * 60_000);
    expect(responses().slice(before).map((request) => (request.body as { service_tier?: string }).service_tier)).toEqual(['flex']);
    expect((await generationsOf(flexed))[0]!.service_tier).toBe('flex');

    scenario.openai.setRefuseFlex(true);
    before = responses().length;
    const fallback = await deliver(owner.flows.abandoned_cart.webhookPath, sampleEvent('abandoned_cart', { email: uniqueEmail('refused') }), 31 * 60_000);
    expect(responses().slice(before).map((request) => (request.body as { service_tier?: string }).service_tier)).toEqual(['flex', undefined]);
    expect((await generationsOf(fallback))[0]!.service_tier).toBe('default');
  });

  it('is not used when the owner turns it off', async () => {
    const owner = await ownerWithFlows(scenario, { abandoned_checkout: { assistants: threeAssistants, waitMinutes: 30, useFlexTier: false } });
    const before = responses().length;
    await deliver(owner.flows.abandoned_checkout.webhookPath, sampleEvent('abandoned_checkout', { email: uniqueEmail('noflex') }), 31 * 60_000);
    expect(responses().slice(before).map((request) => (request.body as { service_tier?: string }).service_tier)).toEqual([undefined]);
  });
});

describe('the generation cache', () => {
  const teaser = [{ name: 'Teaser', klaviyo_property: 'product_teaser', prompt_template: 'Write a one-line teaser for {name}: {description}', instructions: brandVoice }];

  it('reuses the text of an identical request that names no shopper, for another shopper, within the window', async () => {
    const owner = await ownerWithFlows(scenario, { browser_abandonment: { assistants: teaser, waitMinutes: 0, reuseWindowHours: 24 } });
    const before = responses().length;
    const first = await deliver(owner.flows.browser_abandonment.webhookPath, sampleEvent('browser_abandonment', { email: uniqueEmail('viewer-a') }));
    const secondEmail = uniqueEmail('viewer-b');
    const second = await deliver(owner.flows.browser_abandonment.webhookPath, sampleEvent('browser_abandonment', { email: secondEmail }));
    expect(responses().length - before).toBe(1);
    const [reused] = await generationsOf(second);
    expect(reused).toMatchObject({ reused: true, reused_from: 'identical_request', text: (await generationsOf(first))[0]!.text, input_tokens: 0 });
    expect(scenario.klaviyo.profiles.get(secondEmail)?.properties.product_teaser).toBe(reused!.text);
    const detail = await owner.client.call(endpoints.events.detail, { params: { eventId: second } });
    expect(detail.json.event.generations[0]).toMatchObject({ reused: true, reusedFrom: 'identical_request' });

    // Past the window, the request is written anew.
    scenario.testApp.clock.advance(25 * 3_600_000);
    await deliver(owner.flows.browser_abandonment.webhookPath, sampleEvent('browser_abandonment', { email: uniqueEmail('viewer-c') }));
    expect(responses().length - before).toBe(2);
  });

  it('never reuses a text whose prompt names the shopper, nor when the owner turned reuse off', async () => {
    const personal = [{ ...teaser[0]!, prompt_template: 'Write a one-line teaser for {first_name} about {name}' }];
    const owner = await ownerWithFlows(scenario, {
      browser_abandonment: { assistants: personal, waitMinutes: 0, reuseWindowHours: 24 },
      post_purchase: { assistants: teaser, reuseWindowHours: 0 },
    });
    const before = responses().length;
    await deliver(owner.flows.browser_abandonment.webhookPath, sampleEvent('browser_abandonment', { email: uniqueEmail('p1') }));
    await deliver(owner.flows.browser_abandonment.webhookPath, sampleEvent('browser_abandonment', { email: uniqueEmail('p2') }));
    await deliver(owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: uniqueEmail('p3') }));
    await deliver(owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: uniqueEmail('p4') }));
    expect(responses().length - before).toBe(4);
  });

  it('lets identical requests in flight share one call', async () => {
    const owner = await ownerWithFlows(scenario, { post_purchase: { assistants: teaser, reuseWindowHours: 24 } });
    scenario.openai.setLatency(300);
    try {
      const before = responses().length;
      const posted = await Promise.all(
        Array.from({ length: 12 }, (_, index) => postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: uniqueEmail(`crowd-${index}`) }))),
      );
      const ids = posted.map((response) => response.json.eventId as string);
      const settled = await settleOnTheAppClock(scenario, ids);
      expect([...settled.values()].every((row) => row.status === 'delivered')).toBe(true);
      expect(responses().length - before).toBe(1);
    } finally {
      scenario.openai.setLatency(0);
    }
  });
});
