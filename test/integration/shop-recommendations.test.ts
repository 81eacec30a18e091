import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ownerWithFlows, postEvent, sampleEvent, settleOnTheAppClock, useEngineScenario, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { defaultOpenAIText } from '../fakes/fake-openai.ts';
import type { TextChecksRecord } from '../../src/shared/text-checks/text-check-schemas.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * Recommendations from the owner's shop (docs/decisions/0050-recommendations-from-the-shop.md):
 * a returning shopper's checkout text is written from a prompt that names their orders,
 * their last purchase and what the shop pairs with the product; the pairs go to the
 * profile as a list; a text naming an invented product is still refused; a storefront
 * that fails leaves the text written without them.
 */
const scenario = useEngineScenario({ standIns: allStandIns }, { clearFailures: true });

const jacket = { id: 7001, title: 'Summit Down Jacket', price: 22900 };
const beanie = { id: 7002, title: 'Alpine Merino Beanie', price: 3400, image: '//cdn.shopify.com/s/files/beanie.jpg' };
const mug = { id: 7003, title: 'Basecamp Camping Mug', price: 1400 };
const soldOut = { id: 7004, title: 'Ridge Gaiters', price: 2900, available: false };
/** Bought by the shopper before (the sample order's product): never recommended to them. */
const alreadyBought = { id: 7005, title: 'Trail Shoe', price: 8950 };
const thirdPair = { id: 7006, title: 'Trailhead Insulated Bottle', price: 2950 };

const reminder = {
  name: 'Reminder',
  klaviyo_property: 'reminder_text',
  prompt_template: 'Remind a {shopper_status} ({order_count} orders, last: {last_purchase}) about {name}; suggest {recommendations}.',
};
const clean = 'Sam, your Summit Down Jacket is waiting. It pairs well with the Alpine Merino Beanie at $34.00.';

function stockTheShop(): void {
  for (const product of [jacket, beanie, mug, soldOut, alreadyBought, thirdPair]) scenario.shopify.setStorefrontProduct(product);
  scenario.shopify.setRecommendations(jacket.id, 'complementary', [soldOut, alreadyBought, beanie, mug, thirdPair]);
}

async function ownerWithRecommendations(): Promise<Owner> {
  const owner = await ownerWithFlows(scenario, { post_purchase: {}, abandoned_checkout: { waitMinutes: 0, assistants: [reminder] } });
  scenario.testApp.clock.advance(61_000);
  const saved = await owner.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_checkout' }, body: {
    isActive: true,
    klaviyoEventName: null,
    assistants: [reminder],
    recommendations: { intent: 'complementary', count: 2, profileProperty: 'recommended_products' },
  } });
  expect(saved.status, saved.text).toBe(200);
  expect(saved.json.flow.recommendations).toEqual({ intent: 'complementary', count: 2, profileProperty: 'recommended_products' });
  return owner;
}

async function send(owner: Owner, flowType: 'post_purchase' | 'abandoned_checkout', email: string, options: { dayLater?: boolean } = {}): Promise<string> {
  // A day on, past the flow's cooldown for a shopper who had a text already.
  if (options.dayLater ?? true) scenario.testApp.clock.advance(25 * 60 * 60_000);
  const event = sampleEvent(flowType, { email });
  const payload =
    flowType === 'abandoned_checkout' ? { ...event, properties: { ...event.properties, products: [{ id: String(jacket.id), name: jacket.title, price: 229, quantity: 1 }], total: 229 } } : event;
  const posted = await postEvent(scenario.testApp.baseUrl, owner.flows[flowType].webhookPath, payload);
  expect(posted.status, posted.text).toBe(202);
  const eventId = posted.json.eventId as string;
  await settleOnTheAppClock(scenario, [eventId]);
  return eventId;
}

function reminderPrompts(): string[] {
  return scenario.openai.responsesRequests().map((request) => JSON.stringify(request.body)).filter((body) => body.includes('Remind a'));
}

describe("the shop's recommendations", () => {
  afterEach(() => scenario.openai.setResponder((body) => defaultOpenAIText(body)));

  it("write a returning shopper's checkout text with their orders and two pairings, deliver the pairings as a list, and still refuse an invented product", async () => {
    stockTheShop();
    const owner = await ownerWithRecommendations();
    const email = `returning-${randomUUID().slice(0, 8)}@example.com`;
    await send(owner, 'post_purchase', email);
    // First the text names a product the shop does not sell; asked again, a clean one.
    scenario.openai.setResponder((body) => (JSON.stringify(body.input).includes('was refused before it reached the shopper') ? clean : `${clean} Add the Glacier Ice Axe too.`));
    const eventId = await send(owner, 'abandoned_checkout', email);

    const prompt = reminderPrompts()[0]!;
    expect(prompt).toContain('returning customer (1 earlier order)');
    expect(prompt).toMatch(/order_count\\":\s*\\"1/);
    expect(prompt).toMatch(/last_purchase\\":\s*\\"Trail Shoe; Wool Socks/);
    // Out of stock and already bought are left out; two, as the flow asks.
    expect(prompt).toMatch(/recommendations\\":\s*\\"Alpine Merino Beanie \(34\.00 USD\); Basecamp Camping Mug \(14\.00 USD\)\\"/);

    const profile = scenario.klaviyo.profiles.get(email)!;
    expect(profile.properties.reminder_text).toBe(clean);
    const list = profile.properties.recommended_products as Array<Record<string, unknown>>;
    expect(list).toHaveLength(2);
    expect(list[0]).toEqual({ title: beanie.title, url: expect.stringMatching(/\/products\/alpine-merino-beanie/), image: 'https://cdn.shopify.com/s/files/beanie.jpg', price: '34.00', currency: 'USD' });
    expect(list[1]).toMatchObject({ title: mug.title, price: '14.00', currency: 'USD', image: null });

    const detail = await owner.client.call(endpoints.events.detail, { params: { eventId } });
    expect(detail.json.event.status).toBe('delivered');
    const checks = detail.json.event.generations[0].checks as TextChecksRecord;
    // The recommended beanie and its price passed; the invented axe did not.
    expect(checks.rejected).toHaveLength(1);
    expect(checks.rejected[0]!.failures).toEqual([expect.objectContaining({ check: 'products', found: 'Glacier Ice Axe' })]);
    expect(detail.json.event.deliveries.at(-1).properties.recommended_products).toHaveLength(2);

    // Asked once for the product: the next shopper's pairings come from the cache.
    const asked = scenario.shopify.recommendationRequests().length;
    await send(owner, 'abandoned_checkout', `second-${randomUUID().slice(0, 8)}@example.com`, { dayLater: false });
    expect(scenario.shopify.recommendationRequests().length).toBe(asked);
  });

  it('leaves the text written without recommendations when the storefront fails, and writes an empty list', async () => {
    stockTheShop();
    const owner = await ownerWithRecommendations();
    scenario.shopify.failNext({ on: 'recommendations', kind: 'status', status: 500 });
    const email = `failing-${randomUUID().slice(0, 8)}@example.com`;
    const eventId = await send(owner, 'abandoned_checkout', email);
    const detail = await owner.client.call(endpoints.events.detail, { params: { eventId } });
    expect(detail.json.event.status, detail.json.event.error).toBe('delivered');
    expect(reminderPrompts().at(-1)).not.toContain('recommendations\\"');
    expect(scenario.klaviyo.profiles.get(email)!.properties.recommended_products).toEqual([]);
  });

  it("refuses a profile property an assistant already writes, naming the field", async () => {
    const owner = await ownerWithRecommendations();
    const refused = await owner.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_checkout' }, body: {
      isActive: true,
      klaviyoEventName: null,
      assistants: [reminder],
      recommendations: { intent: 'related', count: 2, profileProperty: reminder.klaviyo_property },
    } });
    expect(refused.status).toBe(400);
    expect(refused.json.fieldErrors['recommendations.profileProperty']).toMatch(/already writes the Klaviyo property "reminder_text"/);
    const kept = await owner.client.call(endpoints.flows.list);
    const flow = (kept.json.flows as Array<{ flowType: string; recommendations: unknown }>).find((candidate) => candidate.flowType === 'abandoned_checkout');
    expect(flow?.recommendations).toEqual({ intent: 'complementary', count: 2, profileProperty: 'recommended_products' });
  });

  it('writes an experiment arm without the shopper context when the arm says so, and the other arm with it', async () => {
    stockTheShop();
    const owner = await ownerWithRecommendations();
    const started = await owner.client.call(endpoints.experiments.setUp, { params: { flowType: 'abandoned_checkout' }, body: {
      arms: [{ prompts: { reminder_text: reminder.prompt_template } }, { prompts: { reminder_text: reminder.prompt_template }, shopperContext: false }],
      holdoutPercent: 0,
    } });
    expect(started.status, started.text).toBe(200);
    expect(started.json.current.arms.map((arm: { shopperContext: boolean }) => arm.shopperContext)).toEqual([true, false]);
    const seen = new Map<string, string>();
    for (let index = 0; index < 12 && seen.size < 2; index += 1) {
      const eventId = await send(owner, 'abandoned_checkout', `arm-${index}-${randomUUID().slice(0, 8)}@example.com`, { dayLater: false });
      const detail = await owner.client.call(endpoints.events.detail, { params: { eventId } });
      seen.set(detail.json.event.experimentGroup.group as string, detail.json.event.generations[0].prompt as string);
    }
    expect([...seen.keys()].sort()).toEqual(['A', 'B']);
    expect(seen.get('A')).toContain('"shopper_status": "new customer"');
    // A new shopper has bought nothing: the shoe a returning one bought is offered to them.
    expect(seen.get('A')).toContain('"recommendations": "Trail Shoe (89.50 USD); Alpine Merino Beanie (34.00 USD)"');
    // Arm B: the same template, its context placeholders empty and dropped.
    expect(seen.get('B')).not.toContain('shopper_status');
    expect(seen.get('B')).not.toContain('recommendations');
  });

  it('asks the shop nothing when no prompt names recommendations and no property is set', async () => {
    stockTheShop();
    const owner = await ownerWithFlows(scenario, { abandoned_checkout: { waitMinutes: 0 } });
    const before = scenario.shopify.recommendationRequests().length;
    await send(owner, 'abandoned_checkout', `plain-${randomUUID().slice(0, 8)}@example.com`);
    expect(scenario.shopify.recommendationRequests().length).toBe(before);
  });
});
