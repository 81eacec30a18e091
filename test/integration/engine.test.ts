import { describe, expect, it } from 'vitest';
import { flowTypes } from '../../src/shared/flows/flow-types.ts';
import { eventOutcomeMessages } from '../../src/shared/events/event-messages.ts';
import { untrustedDataInstruction } from '../../src/server/engine/writing/prompt-rendering.ts';
import { ownerWithFlows, postEvent, sampleEvent, useEngineScenario, waitForEvent, waitForEvents, allStandIns } from '../support/engine-scenario.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

const scenario = useEngineScenario({ standIns: allStandIns }, { clearFailures: true, advanceClockMs: 61_000 });

const db = () => scenario.testApp.database.pool;

describe('generic events end on the shopper profile', () => {
  it('writes every assistant text of each flow type to the right profile in one write', async () => {
    const owner = await ownerWithFlows(scenario, {
      browser_abandonment: {},
      abandoned_cart: {},
      abandoned_checkout: {},
      post_purchase: {},
    });
    const emails = Object.fromEntries(flowTypes.map((flowType) => [flowType, uniqueEmail(flowType.replace('_', '-'))]));
    const accepted = [];
    for (const flowType of flowTypes) {
      const response = await postEvent(scenario.testApp.baseUrl, owner.flows[flowType].webhookPath, sampleEvent(flowType, { email: emails[flowType]! }));
      expect(response.status, response.text).toBe(202);
      expect(response.json).toMatchObject({ status: 'received', duplicate: false });
      accepted.push(response.json.eventId as string);
    }
    const settled = await waitForEvents(db(), accepted);
    for (const row of settled.values()) expect(row).toMatchObject({ status: 'delivered', error: null });

    for (const flowType of flowTypes) {
      const profile = scenario.klaviyo.profiles.get(emails[flowType]!);
      expect(profile, flowType).toBeDefined();
      expect(profile!.first_name).toBe('Sam');
      expect(profile!.last_name).toBe('Shopper');
      expect(Object.keys(profile!.properties).sort()).toEqual(['body_copy', 'subject_line1']);
      // The owner's template is the task; the event's values follow it as delimited data.
      expect(profile!.properties.subject_line1).toBe(
        'AI(gpt-5-mini): Write a subject line for {description}\n\n<shop_data>\n{\n  "description": "A light trail running shoe"\n}\n</shop_data>',
      );
      expect(profile!.properties.body_copy).toContain('Write an email for {first_name} about {name} at {price}');
      expect(profile!.properties.body_copy).toContain('"first_name": "Sam"');
      const writes = scenario.klaviyo.requests.filter((request) => request.path === '/api/profile-import' && (request.body as any).data.attributes.email === emails[flowType]);
      expect(writes).toHaveLength(1);
      expect(writes[0]!.headers.revision).toBe('2026-07-15');
      expect(writes[0]!.headers['content-type']).toBe('application/vnd.api+json');
    }

    // One call per event for both assistants (one model): the fixed part in `instructions`
    // (the same for every event of the flow, so OpenAI's prompt cache serves it), each
    // task with its shop data in `input`, one answer field per assistant.
    const calls = scenario.openai.requests.filter((request) => request.path === '/v1/responses');
    expect(calls).toHaveLength(flowTypes.length);
    const call = calls[0]!.body as any;
    expect(call).toMatchObject({ model: 'gpt-5-mini', store: false, prompt_cache_key: expect.stringMatching(/^flow-[0-9a-f]{24}$/) });
    expect(call.instructions.startsWith(untrustedDataInstruction.slice(0, 60))).toBe(true);
    expect(call.instructions).not.toContain('Sam');
    expect(call.text.format).toMatchObject({ type: 'json_schema', strict: true, schema: { required: ['text_1', 'text_2'], additionalProperties: false } });
    expect(call.input).toContain('Task for field "text_1":\nWrite a subject line for {description}');
    expect(typeof call.max_output_tokens).toBe('number');
  });

  it('shows the event with its prompts, texts, tokens and Klaviyo result in the event log', async () => {
    const owner = await ownerWithFlows(scenario, { abandoned_cart: { klaviyoEventName: 'AI content ready' } });
    const email = uniqueEmail('log');
    const response = await postEvent(scenario.testApp.baseUrl, owner.flows.abandoned_cart.webhookPath, sampleEvent('abandoned_cart', { email }));
    const eventId = response.json.eventId as string;
    await waitForEvent(db(), eventId);

    const detail = await owner.client.call(endpoints.events.detail, { params: { eventId } });
    expect(detail.status).toBe(200);
    const event = detail.json.event;
    expect(event).toMatchObject({ id: eventId, status: 'delivered', source: 'generic', flowType: 'abandoned_cart', shopperEmail: email, shopperName: 'Sam Shopper' });
    expect(event.normalized).toMatchObject({ eventType: 'cart_abandoned', total: '113.5', currency: 'USD', shopper: { email } });
    expect(event.generations).toHaveLength(2);
    for (const generation of event.generations) {
      expect(generation.status).toBe('succeeded');
      expect(generation.prompt).not.toBe('');
      expect(generation.text).toContain('AI(gpt-5-mini)');
      expect(generation.totalTokens).toBeGreaterThan(0);
    }
    expect(event.deliveries).toEqual([
      expect.objectContaining({ id: eventId, status: 'delivered', profileCreated: true, klaviyoEventName: 'AI content ready', error: null }),
    ]);
    const sent = scenario.klaviyo.events.filter((klaviyoEvent) => klaviyoEvent.email === email);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ metric: 'AI content ready', uniqueId: eventId });
    expect(Object.keys(sent[0]!.properties).sort()).toEqual(['body_copy', 'subject_line1']);

    const list = await owner.client.call(endpoints.events.list, { query: { flowType: 'abandoned_cart' } });
    expect(list.json.events.map((item: any) => item.id)).toEqual([eventId]);
    const activity = await owner.client.call(endpoints.events.activity);
    expect(activity.json.flows.find((flow: any) => flow.flowType === 'abandoned_cart')).toMatchObject({ events: 1, deliveries: 1, failed: 0 });
    expect(activity.json.flows.find((flow: any) => flow.flowType === 'abandoned_cart').tokens).toBeGreaterThan(0);
  });

  it('skips an event without a shopper email, saying why', async () => {
    const owner = await ownerWithFlows(scenario, { abandoned_cart: {} });
    const response = await postEvent(scenario.testApp.baseUrl, owner.flows.abandoned_cart.webhookPath, sampleEvent('abandoned_cart', { email: null }));
    expect(response.status).toBe(202);
    const row = await waitForEvent(db(), response.json.eventId);
    expect(row).toMatchObject({ status: 'skipped', error: eventOutcomeMessages.noEmail });
  });

  it('keeps an event of an inactive flow as skipped without generating anything', async () => {
    const owner = await ownerWithFlows(scenario, { post_purchase: { isActive: false } });
    const before = scenario.openai.responsesServed;
    const response = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase'));
    expect(response.status).toBe(202);
    expect(response.json.status).toBe('skipped');
    const row = await waitForEvent(db(), response.json.eventId);
    expect(row).toMatchObject({ status: 'skipped', error: eventOutcomeMessages.flowInactive });
    expect(scenario.openai.responsesServed).toBe(before);
  });
});
