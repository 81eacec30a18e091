import { defaultTextRules } from '../../src/shared/flows/text-rules-schemas.ts';
import { defaultRecommendationSettings } from '../../src/shared/flows/flow-schemas.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { HttpClient } from '../support/http-client.ts';
import { insertSignedInOwner } from '../support/owner-builder.ts';
import { flowTypes, type FlowType } from '../../src/shared/flows/flow-types.ts';
import { defaultAssistant } from '../../src/shared/flows/flow-schemas.ts';
import { flowMessages, flowValidationMessages as v } from '../../src/shared/flows/flow-messages.ts';
import { createMissingFlows, findFlowById, listFlowsForUser } from '../../src/server/flows/flow-queries.ts';
import { authMessages, requestMessages } from '../../src/shared/messages.ts';
import type { Queryable } from '../../src/server/database/database.ts';
import { userRateLimits } from '../../src/server/platform/user-rate-limit.ts';
import { fillRateLimitWindow } from '../support/rate-limit-uses.ts';
import { flowPlaceholderTokens, promptPlaceholderTokens } from '../../src/shared/flows/prompt-placeholders.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(async () => {
  await testApp?.close();
});
// Each test starts with a fresh per-user rate-limit window (30 writes per 60 s).
beforeEach(() => testApp.clock.advance(61_000));

const assistant = (overrides: Record<string, unknown> = {}) => ({
  name: 'Subject Line',
  klaviyo_property: 'subject_line1',
  prompt_template: 'Write a subject line for {description}',
  ...overrides,
});

const configuration = (overrides: Record<string, unknown> = {}) => ({
  isActive: true,
  assistants: [assistant()],
  ...overrides,
});

async function owner() {
  const { client, email } = await insertSignedInOwner(testApp);
  const session = await client.call(endpoints.account.session);
  return { client, email, userId: session.json.user.id as string };
}

async function initializedOwner() {
  const signedIn = await owner();
  const response = await signedIn.client.call(endpoints.flows.initialize);
  expect(response.status).toBe(200);
  return { ...signedIn, flows: response.json.flows as any[] };
}

const flowOf = (flows: any[], flowType: FlowType) => flows.find((flow) => flow.flowType === flowType);
const canonicalUrl = (flowType: FlowType, id: string) => `${testApp.baseUrl}/api/webhooks/${flowType}/${id}`;

async function storeWebhookUrl(flowId: string, url: string | null) {
  await testApp.database.pool.query('UPDATE flows SET webhook_url = $2 WHERE id = $1', [flowId, url]);
}

describe('defaults', () => {
  it('has no flows before they are first needed, then initialises the four with the specified defaults', async () => {
    const { client } = await owner();
    const before = await client.call(endpoints.flows.list);
    expect(before.status).toBe(200);
    expect(before.json.flows).toEqual([]);

    const initialized = await client.call(endpoints.flows.initialize);
    expect(initialized.status).toBe(200);
    expect(initialized.json.created).toBe(4);
    expect(initialized.json.flows.map((flow: any) => flow.flowType)).toEqual([...flowTypes]);
    for (const flow of initialized.json.flows) {
      expect(flow).toMatchObject({
        isActive: false,
        webhookUrl: null,
        webhookUrlOutdated: false,
        generatedWebhookUrl: canonicalUrl(flow.flowType, flow.id),
        assistants: [defaultAssistant],
        klaviyoEventName: null,
        shopperCooldownHours: 24,
        dailyGenerationCap: 2000,
        previousWebhookUrlValidUntil: null,
      });
      expect(flow.waitMinutes).toBe(flow.flowType === 'post_purchase' ? null : 30);
    }
    expect(defaultAssistant).toEqual({
      name: 'Subject Line',
      klaviyo_property: 'subject_line1',
      prompt_template: 'Write a subject line for {description}',
      model: null,
      instructions: null,
      fallback_text: null,
      max_length: null,
    });

    const after = await client.call(endpoints.flows.list);
    expect(after.json.flows).toEqual(initialized.json.flows);
  });

  it('initialises only once, and skips a flow type another request created meanwhile', async () => {
    const { client, userId } = await owner();
    const pool = testApp.database.pool;
    let racingId: string | null = null;
    // Plays a concurrent request: just before our first insert, another one creates the
    // same flow type for the same owner.
    const racingDb = {
      async query(text: string, params?: unknown[]) {
        if (racingId === null && text.includes('INSERT INTO flows')) {
          racingId = `racing-${Date.now()}`;
          await pool.query('INSERT INTO flows (id, user_id, flow_type) VALUES ($1, $2, $3)', [racingId, userId, params![2]]);
        }
        return pool.query(text, params);
      },
    } as unknown as Queryable;
    expect(await createMissingFlows(racingDb, userId)).toBe(3);

    const again = await client.call(endpoints.flows.initialize);
    expect(again.json.created).toBe(0);
    expect(again.json.flows).toHaveLength(4);
    expect(again.json.flows.map((flow: any) => flow.id)).toContain(racingId);
    expect((await listFlowsForUser(pool, userId)).map((flow) => flow.id).sort()).toEqual(again.json.flows.map((flow: any) => flow.id).sort());
  });

  it('creates only the flow types an owner is missing', async () => {
    const { client, userId } = await owner();
    await testApp.database.pool.query("INSERT INTO flows (id, user_id, flow_type, is_active) VALUES ($1, $2, 'post_purchase', true)", [`kept-${Date.now()}`, userId]);
    const initialized = await client.call(endpoints.flows.initialize);
    expect(initialized.json.created).toBe(3);
    expect(flowOf(initialized.json.flows, 'post_purchase').isActive).toBe(true);
  });

  it('initialises the defaults when an owner saves a flow before loading them', async () => {
    const { client } = await owner();
    const saved = await client.call(endpoints.flows.update, { params: { flowType: 'post_purchase' }, body: configuration() });
    expect(saved.status).toBe(200);
    const listed = await client.call(endpoints.flows.list);
    expect(listed.json.flows).toHaveLength(4);
    expect(flowOf(listed.json.flows, 'abandoned_cart')).toMatchObject({ webhookUrl: null, isActive: false });
  });
});

describe('webhook URLs', () => {
  it('generates {PUBLIC_URL}/api/webhooks/{flowType}/{flowId} with an unguessable id on first save', async () => {
    const { client, flows } = await initializedOwner();
    const flow = flowOf(flows, 'abandoned_checkout');
    // 24 base64url characters = 144 random bits.
    expect(flow.id).toMatch(/^[A-Za-z0-9_-]{24}$/);

    const first = await client.call(endpoints.flows.update, { params: { flowType: 'abandoned_checkout' }, body: configuration() });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ firstSave: true, webhookUrlRewritten: false });
    expect(first.json.flow.webhookUrl).toBe(canonicalUrl('abandoned_checkout', flow.id));

    const second = await client.call(endpoints.flows.update, { params: { flowType: 'abandoned_checkout' }, body: configuration({ isActive: false }) });
    expect(second.json).toMatchObject({ firstSave: false, webhookUrlRewritten: false });
    expect(second.json.flow.webhookUrl).toBe(first.json.flow.webhookUrl);
  });

  it('never takes a webhook URL from the owner', async () => {
    const { client, flows } = await initializedOwner();
    const saved = await client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: configuration({ webhookUrl: 'https://attacker.example/hook' }) });
    expect(saved.status).toBe(200);
    expect(saved.json.flow.webhookUrl).toBe(canonicalUrl('abandoned_cart', flowOf(flows, 'abandoned_cart').id));
  });

  it('gives every flow of every owner its own id', async () => {
    const owners = [await initializedOwner(), await initializedOwner(), await initializedOwner()];
    const ids = owners.flatMap((o) => o.flows.map((flow) => flow.id));
    expect(ids).toHaveLength(12);
    expect(new Set(ids).size).toBe(12);
  });

  it('retries with a fresh id when a new id collides with an existing flow', async () => {
    const { flows } = await initializedOwner();
    const { userId } = await owner();
    const taken = flows[0].id as string;
    let calls = 0;
    const created = await createMissingFlows(testApp.database.pool, userId, () => {
      calls += 1;
      return calls === 1 ? taken : `fresh-id-${calls}-${Date.now()}`;
    });
    expect(created).toBe(4);
    const mine = await listFlowsForUser(testApp.database.pool, userId);
    expect(mine).toHaveLength(4);
    expect(mine.map((flow) => flow.id)).not.toContain(taken);
    expect((await findFlowById(testApp.database.pool, taken))?.flowType).toBe(flows[0].flowType);
  });

  it('flags stored URLs of an old format or another origin, and the fix-up rewrites them and counts them', async () => {
    const { client, flows } = await initializedOwner();
    for (const flowType of flowTypes) expect((await client.call(endpoints.flows.update, { params: { flowType }, body: configuration() })).status).toBe(200);
    const [browse, cart, checkout, purchase] = flowTypes.map((flowType) => flowOf(flows, flowType));
    await storeWebhookUrl(browse.id, `${testApp.baseUrl}/api/api/webhooks/browser_abandonment/${browse.id}`);
    await storeWebhookUrl(cart.id, `${testApp.baseUrl}/webhooks/abandoned_cart/${cart.id}`);
    await storeWebhookUrl(checkout.id, `https://old-host.example/api/webhooks/abandoned_checkout/${checkout.id}`);

    const listed = await client.call(endpoints.flows.list);
    expect(listed.json.flows.map((flow: any) => flow.webhookUrlOutdated)).toEqual([true, true, true, false]);

    const fixed = await client.call(endpoints.flows.fixWebhookUrls);
    expect(fixed.status).toBe(200);
    expect(fixed.json.updated).toBe(3);
    for (const flow of fixed.json.flows) {
      expect(flow.webhookUrl).toBe(canonicalUrl(flow.flowType, flow.id));
      expect(flow.webhookUrlOutdated).toBe(false);
    }
    expect(flowOf(fixed.json.flows, 'post_purchase').webhookUrl).toBe(canonicalUrl('post_purchase', purchase.id));
    expect((await client.call(endpoints.flows.fixWebhookUrls)).json.updated).toBe(0);
  });

  it('leaves flows without a URL alone in the fix-up', async () => {
    const { client } = await initializedOwner();
    const fixed = await client.call(endpoints.flows.fixWebhookUrls);
    expect(fixed.json.updated).toBe(0);
    expect(fixed.json.flows.every((flow: any) => flow.webhookUrl === null)).toBe(true);
  });

  it('rewrites an old-format URL on save and says so', async () => {
    const { client, flows } = await initializedOwner();
    await client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: configuration() });
    const cart = flowOf(flows, 'abandoned_cart');
    await storeWebhookUrl(cart.id, `${testApp.baseUrl}/webhooks/abandoned_cart/${cart.id}`);
    const saved = await client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: configuration() });
    expect(saved.json).toMatchObject({ firstSave: false, webhookUrlRewritten: true });
    expect(saved.json.flow.webhookUrl).toBe(canonicalUrl('abandoned_cart', cart.id));
  });
});

describe('configuration', () => {
  it('stores assistants with their optional model and instructions, the wait and the Klaviyo event name', async () => {
    const { client, userId, flows } = await initializedOwner();
    const assistants = [
      assistant(),
      assistant({
        name: 'Body',
        klaviyo_property: 'ai body.text',
        prompt_template: 'Hi {first_name}, about {name} at {price} {currency}: {product_url}',
        model: ' gpt-5-mini ',
        instructions: 'Warm, at most 60 words.',
      }),
    ];
    const saved = await client.call(endpoints.flows.update, {
      params: { flowType: 'browser_abandonment' },
      body: {
        isActive: true,
        assistants,
        waitMinutes: 120,
        klaviyoEventName: ' AI content ready ',
      },
    });
    expect(saved.status).toBe(200);
    expect(saved.json.flow).toMatchObject({
      isActive: true,
      waitMinutes: 120,
      klaviyoEventName: 'AI content ready',
      assistants: [
        { ...defaultAssistant },
        { ...assistants[1], model: 'gpt-5-mini', instructions: 'Warm, at most 60 words.' },
      ],
    });

    const record = await findFlowById(testApp.database.pool, flowOf(flows, 'browser_abandonment').id);
    expect(record).toEqual({
      id: flowOf(flows, 'browser_abandonment').id,
      userId,
      flowType: 'browser_abandonment',
      isActive: true,
      webhookUrl: saved.json.flow.webhookUrl,
      assistants: saved.json.flow.assistants,
      waitMinutes: 120,
      klaviyoEventName: 'AI content ready',
      webhookKey: flowOf(flows, 'browser_abandonment').id,
      previousWebhookKey: null,
      previousWebhookKeyExpiresAt: null,
      pixelKey: expect.stringMatching(/^[0-9a-f]{64}$/),
      shopperCooldownHours: 24,
      dailyGenerationCap: 2000,
      useFlexTier: true,
      reuseWindowHours: 24,
      dailyBudgetUsd: null,
      overBudget: 'wait',
      textRules: defaultTextRules,
      recommendations: defaultRecommendationSettings,
      updatedAt: expect.any(Date),
    });
    expect(await findFlowById(testApp.database.pool, 'no-such-flow')).toBeNull();
  });

  it('keeps the wait when a save leaves it out, and clears blank optional fields', async () => {
    const { client } = await initializedOwner();
    await client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: configuration({ waitMinutes: 45, klaviyoEventName: 'Ready' }) });
    const saved = await client.call(endpoints.flows.update, {
      params: { flowType: 'abandoned_cart' },
      body: configuration({ klaviyoEventName: '  ', assistants: [assistant({ model: '', instructions: ' ' })] }),
    });
    expect(saved.json.flow).toMatchObject({ waitMinutes: 45, klaviyoEventName: null, assistants: [{ model: null, instructions: null }] });
  });

  it('toggles a flow on and off', async () => {
    const { client } = await initializedOwner();
    expect((await client.call(endpoints.flows.update, { params: { flowType: 'post_purchase' }, body: configuration({ isActive: true }) })).json.flow.isActive).toBe(true);
    expect((await client.call(endpoints.flows.update, { params: { flowType: 'post_purchase' }, body: configuration({ isActive: false }) })).json.flow.isActive).toBe(false);
    expect(flowOf((await client.call(endpoints.flows.list)).json.flows, 'post_purchase').isActive).toBe(false);
  });

  it('stores the limits on cost: hours between texts per shopper (0 = off) and events a day', async () => {
    const { client, flows } = await initializedOwner();
    const saved = await client.call(endpoints.flows.update, { params: { flowType: 'post_purchase' }, body: configuration({ shopperCooldownHours: 0, dailyGenerationCap: 1_000_000 }) });
    expect(saved.status).toBe(200);
    expect(saved.json.flow).toMatchObject({ shopperCooldownHours: 0, dailyGenerationCap: 1_000_000 });
    expect(await findFlowById(testApp.database.pool, flowOf(flows, 'post_purchase').id)).toMatchObject({ shopperCooldownHours: 0, dailyGenerationCap: 1_000_000 });

    const other = await client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: configuration({ shopperCooldownHours: 720, dailyGenerationCap: 1 }) });
    expect(other.json.flow).toMatchObject({ shopperCooldownHours: 720, dailyGenerationCap: 1 });
  });

  it('keeps the limits when a save leaves them out', async () => {
    const { client } = await initializedOwner();
    await client.call(endpoints.flows.update, { params: { flowType: 'abandoned_checkout' }, body: configuration({ shopperCooldownHours: 6, dailyGenerationCap: 50 }) });
    const saved = await client.call(endpoints.flows.update, { params: { flowType: 'abandoned_checkout' }, body: configuration({ isActive: false }) });
    expect(saved.status).toBe(200);
    expect(saved.json.flow).toMatchObject({ isActive: false, shopperCooldownHours: 6, dailyGenerationCap: 50 });
    const partly = await client.call(endpoints.flows.update, { params: { flowType: 'abandoned_checkout' }, body: configuration({ dailyGenerationCap: 75 }) });
    expect(partly.json.flow).toMatchObject({ shopperCooldownHours: 6, dailyGenerationCap: 75 });
  });

  it.each([0, 10_080])('accepts a wait of %i minutes', async (waitMinutes) => {
    const { client } = await initializedOwner();
    const saved = await client.call(endpoints.flows.update, { params: { flowType: 'abandoned_checkout' }, body: configuration({ waitMinutes }) });
    expect(saved.status).toBe(200);
    expect(saved.json.flow.waitMinutes).toBe(waitMinutes);
  });
});

describe('validation (same messages as the form)', () => {
  let client: HttpClient;
  let flowsBefore: any[];
  beforeAll(async () => {
    ({ client } = await initializedOwner());
    await client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: configuration() });
    flowsBefore = (await client.call(endpoints.flows.list)).json.flows;
  });

  it.each([
    ['a missing name', { assistants: [assistant({ name: '  ' })] }, 'assistants.0.name', v.nameRequired],
    ['a missing Klaviyo property', { assistants: [assistant({ klaviyo_property: '' })] }, 'assistants.0.klaviyo_property', v.klaviyoPropertyRequired],
    ['a missing prompt template', { assistants: [assistant({ prompt_template: '' })] }, 'assistants.0.prompt_template', v.promptTemplateRequired],
    ['no assistant at all', { assistants: [] }, 'assistants', v.atLeastOneAssistant],
    [
      'two assistants writing one property',
      { assistants: [assistant(), assistant({ name: 'Other', klaviyo_property: ' Subject_Line1 ' })] },
      'assistants.1.klaviyo_property',
      v.klaviyoPropertyDuplicate('Subject_Line1'),
    ],
    [
      'an unknown placeholder',
      { assistants: [assistant({ prompt_template: 'Offer {coupon_code} on {name}' })] },
      'assistants.0.prompt_template',
      // Every placeholder the engine fills is offered (the full list is pinned in test/unit/flows-placeholders.test.ts).
      v.unknownPlaceholders(['{coupon_code}'], promptPlaceholderTokens),
    ],
    ['a property Klaviyo reserves', { assistants: [assistant({ klaviyo_property: '$email' })] }, 'assistants.0.klaviyo_property', v.klaviyoPropertyDollar],
    [
      'a property where an experiment writes the shopper’s group',
      { assistants: [assistant({ klaviyo_property: 'abandoned_checkout_variant' })] },
      'assistants.0.klaviyo_property',
      v.klaviyoPropertyReserved('abandoned_checkout_variant'),
    ],
    ['a property with a slash', { assistants: [assistant({ klaviyo_property: 'subject/line' })] }, 'assistants.0.klaviyo_property', v.klaviyoPropertyCharacters],
    ['a property over 100 characters', { assistants: [assistant({ klaviyo_property: 'p'.repeat(101) })] }, 'assistants.0.klaviyo_property', v.klaviyoPropertyTooLong(100)],
    ['a malformed model', { assistants: [assistant({ model: 'gpt 5; drop' })] }, 'assistants.0.model', v.modelInvalid],
    ['a negative wait', { waitMinutes: -1 }, 'waitMinutes', v.waitRange],
    ['a wait over 7 days', { waitMinutes: 10_081 }, 'waitMinutes', v.waitRange],
    ['a fractional wait', { waitMinutes: 1.5 }, 'waitMinutes', v.waitWholeNumber],
    ['an event name with a line break', { klaviyoEventName: 'AI\ncontent' }, 'klaviyoEventName', v.klaviyoEventNameCharacters],
    ['negative hours between texts', { shopperCooldownHours: -1 }, 'shopperCooldownHours', v.shopperCooldownRange(720)],
    ['hours between texts over 30 days', { shopperCooldownHours: 721 }, 'shopperCooldownHours', v.shopperCooldownRange(720)],
    ['fractional hours between texts', { shopperCooldownHours: 1.5 }, 'shopperCooldownHours', v.shopperCooldownWholeNumber],
    ['hours between texts as text', { shopperCooldownHours: '24' }, 'shopperCooldownHours', v.shopperCooldownWholeNumber],
    ['hours between texts as null', { shopperCooldownHours: null }, 'shopperCooldownHours', v.shopperCooldownWholeNumber],
    ['no events a day', { dailyGenerationCap: 0 }, 'dailyGenerationCap', v.dailyGenerationCapRange(1_000_000)],
    ['over a million events a day', { dailyGenerationCap: 1_000_001 }, 'dailyGenerationCap', v.dailyGenerationCapRange(1_000_000)],
    ['fractional events a day', { dailyGenerationCap: 2.5 }, 'dailyGenerationCap', v.dailyGenerationCapWholeNumber],
  ])('refuses %s', async (_case, overrides, field, message) => {
    const response = await client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: configuration(overrides) });
    expect(response.status).toBe(400);
    expect(response.json.fieldErrors[field]).toBe(message);
    expect((await client.call(endpoints.flows.list)).json.flows).toEqual(flowsBefore);
  });

  it('names the unknown placeholder in the message', async () => {
    const response = await client.call(endpoints.flows.update, {
      params: { flowType: 'abandoned_cart' },
      body: configuration({ assistants: [assistant({ prompt_template: 'Use {Name} and {discount}' })] }),
    });
    expect(response.json.message).toContain('{Name}, {discount}');
  });

  it("refuses a placeholder the flow's events never fill, naming it and what the flow offers", async () => {
    const response = await client.call(endpoints.flows.update, {
      params: { flowType: 'abandoned_cart' },
      body: configuration({ assistants: [assistant(), assistant({ klaviyo_property: 'cta', prompt_template: 'Send them to {checkout_url} for {name}' })] }),
    });
    expect(response.status).toBe(400);
    const message = v.placeholdersNotFilled(['{checkout_url}'], 'Abandoned Cart', flowPlaceholderTokens.abandoned_cart);
    expect(response.json).toMatchObject({ error: 'validation', message, fieldErrors: { 'assistants.1.prompt_template': message } });
    expect((await client.call(endpoints.flows.list)).json.flows).toEqual(flowsBefore);
    const browse = await client.call(endpoints.flows.update, {
      params: { flowType: 'browser_abandonment' },
      body: configuration({ assistants: [assistant({ prompt_template: 'Remind them of {products}, {total} in all' })] }),
    });
    expect(browse.json.fieldErrors['assistants.0.prompt_template']).toBe(v.placeholdersNotFilled(['{products}', '{total}'], 'Browser Abandonment', flowPlaceholderTokens.browser_abandonment));
    // The order's status link is a post-purchase placeholder.
    const other = await initializedOwner();
    const tracked = await other.client.call(endpoints.flows.update, {
      params: { flowType: 'post_purchase' },
      body: configuration({ assistants: [assistant({ prompt_template: 'Track it at {checkout_url}' })] }),
    });
    expect(tracked.status).toBe(200);
  });

  it('refuses a wait on the post purchase flow, which has none', async () => {
    const response = await client.call(endpoints.flows.update, { params: { flowType: 'post_purchase' }, body: configuration({ waitMinutes: 30 }) });
    expect(response.status).toBe(400);
    expect(response.json.fieldErrors.waitMinutes).toBe(v.waitNotApplicable);
  });

  it('refuses an unknown flow type', async () => {
    const response = await client.call(endpoints.flows.update, { params: { flowType: 'newsletter' }, body: configuration() });
    expect(response.status).toBe(400);
  });
});

describe('isolation between owners', () => {
  it('refuses every route without a session', async () => {
    const anonymous = new HttpClient(testApp.baseUrl);
    const answers = [
      await anonymous.call(endpoints.flows.list),
      await anonymous.call(endpoints.flows.initialize),
      await anonymous.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: configuration() }),
      await anonymous.call(endpoints.flows.fixWebhookUrls),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(401);
      expect(answer.json.message).toBe(authMessages.notSignedIn);
    }
  });

  it("lets each owner reach only their own flows through every route", async () => {
    const ada = await initializedOwner();
    await ada.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: configuration({ assistants: [assistant({ name: 'Ada only' })] }) });
    const adaCart = flowOf(ada.flows, 'abandoned_cart');
    await storeWebhookUrl(adaCart.id, `${testApp.baseUrl}/webhooks/abandoned_cart/${adaCart.id}`);
    const adaIds = ada.flows.map((flow) => flow.id);

    const bob = await owner();
    expect((await bob.client.call(endpoints.flows.list)).json.flows).toEqual([]);
    const bobInitialized = await bob.client.call(endpoints.flows.initialize);
    expect(bobInitialized.json.created).toBe(4);
    expect(bobInitialized.json.flows.map((flow: any) => flow.id)).not.toEqual(expect.arrayContaining([adaIds[0]]));
    for (const flow of bobInitialized.json.flows) expect(adaIds).not.toContain(flow.id);

    const bobSaved = await bob.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: configuration({ isActive: false, assistants: [assistant({ name: 'Bob only' })] }) });
    expect(bobSaved.json.flow.id).not.toBe(adaCart.id);
    const bobFix = await bob.client.call(endpoints.flows.fixWebhookUrls);
    expect(bobFix.json.updated).toBe(0);
    for (const flow of (await bob.client.call(endpoints.flows.list)).json.flows) expect(adaIds).not.toContain(flow.id);

    const adaCartNow = await findFlowById(testApp.database.pool, adaCart.id);
    expect(adaCartNow).toMatchObject({ userId: ada.userId, isActive: true, assistants: [{ name: 'Ada only' }] });
    expect(adaCartNow?.webhookUrl).toBe(`${testApp.baseUrl}/webhooks/abandoned_cart/${adaCart.id}`);
    expect((await ada.client.call(endpoints.flows.fixWebhookUrls)).json.updated).toBe(1);
  });
});

describe('per-owner rate limits (docs/decisions/0025-per-owner-rate-limits.md)', () => {
  it('counts loads as reads and the other routes as writes', async () => {
    const { client, userId } = await initializedOwner();
    testApp.clock.advance(61_000);
    await fillRateLimitWindow(testApp.database.pool, userId, 'read', userRateLimits.read - 1, testApp.clock.now());
    expect((await client.call(endpoints.flows.list)).status).toBe(200);
    const read = await client.call(endpoints.flows.list);
    expect(read.status).toBe(429);
    expect(read.json.message).toBe(requestMessages.rateLimited);

    const writes = [
      () => client.call(endpoints.flows.initialize),
      () => client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: configuration() }),
      () => client.call(endpoints.flows.fixWebhookUrls),
    ];
    await fillRateLimitWindow(testApp.database.pool, userId, 'write', userRateLimits.write - 3, testApp.clock.now());
    for (const write of writes) expect((await write()).status).toBe(200);
    for (const write of writes) expect((await write()).status).toBe(429);
  });
});

describe('messages', () => {
  it('words the toasts as docs/product/specification.md §8 does', () => {
    expect(flowMessages.webhookUrlsUpdated(3)).toBe('Updated 3 webhook URLs to the correct format');
    expect(flowMessages.saveError('boom')).toBe('Error saving flow configuration: boom');
  });
});
