import { beforeEach, describe, expect, it } from 'vitest';
import { klaviyoAccountLimits } from '../../src/server/engine/delivery/klaviyo-rate-limiter.ts';
import { sendShopifyWebhook, trailShoeOrder } from '../fakes/fake-shopify.ts';
import { defaultOpenAIText } from '../fakes/fake-openai.ts';
import { credentialsInput, ownerWithFlows, settleOnTheAppClock, settleWithClockRunning, postEvent, sampleEvent, shopifySecret, shopifyToken, useEngineScenario, validKlaviyoKey, waitForEvent, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { STORE_RECHECK_MINUTES } from '../../src/shared/service-conditions/service-condition-messages.ts';
import type { ServiceCondition } from '../../src/shared/service-conditions/service-condition-schemas.ts';
import { eventOutcomeMessages } from '../../src/shared/events/event-messages.ts';
import { shopifyScopes } from '../../src/shared/shopify-connect/shopify-scopes.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * Conditions of an owner's services that every later event meets, told once on the pages
 * instead of only in the server log (docs/decisions/0047-service-conditions.md). Here the
 * account may make 2 single profile writes a minute, so from the third event in a row
 * deliveries queue for a bulk job.
 */
const scenario = useEngineScenario({
  standIns: allStandIns,
  engine: { klaviyoLimits: { ...klaviyoAccountLimits, 'profile-import': [{ limit: 2, windowMs: 60_000 }] } },
});
beforeEach(() => {
  scenario.openai.clearFailures();
  scenario.shopify.clearFailures();
  // Past the single-write window of the test before.
  scenario.testApp.clock.advance(120_000);
});

const db = () => scenario.testApp.database.pool;
const oneAssistant = [{ name: 'Subject Line', klaviyo_property: 'subject_line1', prompt_template: 'Write a subject line for {first_name} about {name}' }];

async function conditionsOf(owner: Owner): Promise<ServiceCondition[]> {
  const answer = await owner.client.call(endpoints.serviceConditions.list);
  expect(answer.status, answer.text).toBe(200);
  return answer.json.conditions as ServiceCondition[];
}

async function sendOrders(owner: Owner, count: number, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const posted = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: uniqueEmail(`${prefix}-${index}`) }));
    expect(posted.status, posted.text).toBe(202);
    ids.push(posted.json.eventId as string);
  }
  return ids;
}

describe('a Klaviyo key without the Lists permission', () => {
  it('is told once while bulk jobs are refused, and is over with the next job Klaviyo accepts', async () => {
    const owner = await ownerWithFlows(scenario, { post_purchase: { assistants: oneAssistant } });
    const stranger = await ownerWithFlows(scenario, {});
    scenario.klaviyo.setScopes(validKlaviyoKey, ['accounts:read', 'lists:read', 'profiles:read', 'profiles:write', 'events:write']);
    try {
      const ids = await sendOrders(owner, 6, 'no-lists');
      const settled = await settleWithClockRunning(scenario, ids, { timeoutMs: 45_000 });
      expect([...settled.values()].map((row) => row.status)).toEqual(ids.map(() => 'delivered'));
      const told = await conditionsOf(owner);
      expect(told).toEqual([expect.objectContaining({ kind: 'klaviyo_bulk_refused', subject: '', detail: expect.stringContaining('lists:write') })]);
      // Another owner is told nothing of it.
      expect(await conditionsOf(stranger)).toEqual([]);
    } finally {
      scenario.klaviyo.setScopes(validKlaviyoKey, null);
    }
    scenario.testApp.clock.advance(120_000);
    const ids = await sendOrders(owner, 6, 'lists-back');
    const settled = await settleWithClockRunning(scenario, ids, { timeoutMs: 45_000 });
    expect([...settled.values()].map((row) => row.status)).toEqual(ids.map(() => 'delivered'));
    await expect.poll(async () => (await conditionsOf(owner)).length, { timeout: 15_000 }).toBe(0);
  }, 120_000);
});

describe('a store that refuses the token', () => {
  const productAssistants = [{ name: 'Body', klaviyo_property: 'body_copy', prompt_template: 'About {name}: {description}' }];

  async function sendOrder(owner: Owner, productId: number) {
    const email = uniqueEmail('store');
    const sent = await sendShopifyWebhook(`${scenario.testApp.baseUrl}${owner.flows.post_purchase.webhookPath}`, 'orders/create', trailShoeOrder(email, productId), shopifySecret);
    expect(sent.status, sent.text).toBe(202);
    return waitForEvent(db(), JSON.parse(sent.text).eventId as string);
  }
  const productRequests = () => scenario.shopify.operationCounts.product ?? 0;

  it('is not asked again for every event, and is noticed by the periodic re-check once it answers', async () => {
    const owner = await ownerWithFlows(scenario, { post_purchase: { assistants: productAssistants } });
    scenario.shopify.accessTokens.delete(shopifyToken);
    try {
      const before = productRequests();
      // The first event meets the refusal: it goes on without the product's details, and the owner is told.
      expect((await sendOrder(owner, 9101)).status).toBe('delivered');
      expect(productRequests() - before).toBe(0);
      const told = await conditionsOf(owner);
      expect(told).toEqual([expect.objectContaining({ kind: 'shopify_refused', detail: expect.stringContaining('HTTP 401') })]);
      const refusedRequests = scenario.shopify.requests.filter((request) => request.status === 401).length;
      expect(refusedRequests).toBeGreaterThanOrEqual(1);

      // Later events do not ask the store.
      expect((await sendOrder(owner, 9102)).status).toBe('delivered');
      expect((await sendOrder(owner, 9103)).status).toBe('delivered');
      expect(scenario.shopify.requests.filter((request) => request.status === 401).length).toBe(refusedRequests);

      // Not yet due: the re-check asks nothing; due and still refused: the condition stays.
      expect(await scenario.testApp.app.recheckRefusedStores()).toBe(0);
      expect(scenario.shopify.requests.filter((request) => request.status === 401).length).toBe(refusedRequests);
      scenario.testApp.clock.advance(STORE_RECHECK_MINUTES * 60_000 + 1_000);
      expect(await scenario.testApp.app.recheckRefusedStores()).toBe(0);
      expect(scenario.shopify.requests.filter((request) => request.status === 401).length).toBe(refusedRequests + 1);
      expect((await conditionsOf(owner)).map((condition) => condition.kind)).toEqual(['shopify_refused']);
    } finally {
      scenario.shopify.accessTokens.add(shopifyToken);
    }
    // The store answers again: the next check notices it without the owner's help, and events ask the store again.
    scenario.testApp.clock.advance(STORE_RECHECK_MINUTES * 60_000 + 1_000);
    expect(await scenario.testApp.app.recheckRefusedStores()).toBe(1);
    expect(await conditionsOf(owner)).toEqual([]);
    scenario.shopify.setProduct('9104', { title: 'Trail Shoe', description: 'A light shoe for rocky trails', onlineStoreUrl: null, featuredImage: null });
    const asked = productRequests();
    expect((await sendOrder(owner, 9104)).status).toBe('delivered');
    expect(productRequests() - asked).toBe(1);
  });

  it('is not over while the app lacks a scope the look-ups need, though the store answers its name', async () => {
    const owner = await ownerWithFlows(scenario, { post_purchase: { assistants: productAssistants } });
    const everyScope = [...shopifyScopes];
    scenario.shopify.setTokenScopes(shopifyToken, everyScope.filter((scope) => scope !== 'read_products'));
    try {
      expect((await sendOrder(owner, 9201)).status).toBe('delivered');
      expect(await conditionsOf(owner)).toEqual([expect.objectContaining({ kind: 'shopify_refused' })]);
      scenario.testApp.clock.advance(STORE_RECHECK_MINUTES * 60_000 + 1_000);
      expect(await scenario.testApp.app.recheckRefusedStores()).toBe(0);
      expect(await conditionsOf(owner)).toEqual([expect.objectContaining({ kind: 'shopify_refused', detail: expect.stringContaining('read_products') })]);
    } finally {
      scenario.shopify.setTokenScopes(shopifyToken, everyScope);
      // The product look-up without read_products was refused on purpose.
      expect(scenario.shopify.takeViolations().flatMap((violation) => violation.problems).every((problem) => problem.includes('read_products'))).toBe(true);
    }
    scenario.testApp.clock.advance(STORE_RECHECK_MINUTES * 60_000 + 1_000);
    expect(await scenario.testApp.app.recheckRefusedStores()).toBe(1);
    expect(await conditionsOf(owner)).toEqual([]);
  });

  it('makes an event whose checks need the catalogue wait with the cause, and is over once the owner saves working credentials; the event then goes out', async () => {
    const namesAProduct = [{ name: 'Body', klaviyo_property: 'body_copy', prompt_template: 'Mention the Summit Down Parka to {first_name}' }];
    let eventId = '';
    const owner = await ownerWithFlows(scenario, { post_purchase: { assistants: namesAProduct } });
    scenario.openai.setResponder(() => 'Thank you, Sam. Your Trail Shoe pairs well with our Summit Down Parka for cold mornings.');
    scenario.shopify.accessTokens.delete(shopifyToken);
    try {
      const posted = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: uniqueEmail('catalogue') }));
      expect(posted.status, posted.text).toBe(202);
      eventId = posted.json.eventId as string;
      const waiting = await waitForEvent(db(), eventId, { statuses: ['waiting'] });
      expect(waiting.error).toContain(eventOutcomeMessages.storeRefused('', STORE_RECHECK_MINUTES).split('()')[0]!);
      expect((await conditionsOf(owner)).map((condition) => condition.kind)).toEqual(['shopify_refused']);
    } finally {
      scenario.shopify.accessTokens.add(shopifyToken);
      scenario.openai.setResponder(defaultOpenAIText);
    }
    // Saving the credentials again is the owner's fix: the condition no longer stands, and the store is asked again.
    scenario.testApp.clock.advance(1_000);
    const saved = await owner.client.call(endpoints.credentials.save, { body: credentialsInput() });
    expect(saved.status, saved.text).toBe(200);
    expect(await conditionsOf(owner)).toEqual([]);
    // Nothing was lost: at its next try the store is asked, and the event ends.
    const settled = await settleOnTheAppClock(scenario, [eventId], { stepMs: 5_000 });
    expect(settled.get(eventId)?.status).toMatch(/^(delivered|skipped)$/);
  });
});

describe('OpenAI', () => {
  it('tells an exhausted quota once, and it is over with the next text OpenAI writes', async () => {
    const owner = await ownerWithFlows(scenario, { post_purchase: { assistants: oneAssistant } });
    scenario.openai.failNext({ kind: 'insufficient_quota' });
    const [failed] = await sendOrders(owner, 1, 'quota');
    expect((await waitForEvent(db(), failed!)).status).toBe('failed');
    expect(await conditionsOf(owner)).toEqual([expect.objectContaining({ kind: 'openai_quota', detail: expect.stringContaining('quota') })]);
    const [delivered] = await sendOrders(owner, 1, 'quota-back');
    expect((await waitForEvent(db(), delivered!)).status).toBe('delivered');
    expect(await conditionsOf(owner)).toEqual([]);
  });

  it('tells a model OpenAI no longer serves, by name, until no assistant names it', async () => {
    const retired = [{ ...oneAssistant[0]!, model: 'gpt-4.1-mini' }];
    const owner = await ownerWithFlows(scenario, { post_purchase: { assistants: retired } });
    scenario.openai.models.delete('gpt-4.1-mini');
    try {
      const [failed] = await sendOrders(owner, 1, 'retired');
      expect((await waitForEvent(db(), failed!)).status).toBe('failed');
      expect(await conditionsOf(owner)).toEqual([expect.objectContaining({ kind: 'openai_model_unavailable', subject: 'gpt-4.1-mini' })]);
      const changed = await owner.client.call(endpoints.flows.update, { params: { flowType: 'post_purchase' }, body: { isActive: true, assistants: oneAssistant, klaviyoEventName: null } });
      expect(changed.status, changed.text).toBe(200);
      expect(await conditionsOf(owner)).toEqual([]);
    } finally {
      scenario.openai.models.add('gpt-4.1-mini');
    }
  });
});
