import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventOutcomeMessages } from '../../src/shared/events/event-messages.ts';
import { parseJsonText } from '../../src/server/platform/json-text.ts';
import { sendShopifyWebhook } from '../fakes/fake-shopify.ts';
import { ownerWithFlows, settleOnTheAppClock, shopifySecret, useEngineScenario, waitForEvent, type Owner, allStandIns } from '../support/engine-scenario.ts';

/**
 * Shopify writes `"email": ""` on checkouts and orders whose contact field was left empty
 * while `customer.email` is set. Its own sample payloads (test/fixtures/shopify), changed
 * only by emptying the top-level `email`, sent as signed webhooks, reach the customer's
 * Klaviyo profile; a payload whose every email is empty is skipped for having none.
 */
const SHOPPER = 'jon.buyer@example.com';

const scenario = useEngineScenario({ standIns: allStandIns });
let owner: Owner;
beforeAll(async () => {
  owner = await ownerWithFlows(scenario, { abandoned_checkout: { waitMinutes: 30 }, post_purchase: {} });
  // Shopify's sample shopper is German (customer_locale "de") and the stand-in OpenAI writes English.
  await englishTexts(owner);
});

const db = () => scenario.testApp.database.pool;

async function englishTexts(of: Owner) {
  await db().query(`UPDATE flows SET text_rules = '{"language": "en"}' WHERE user_id = $1`, [of.userId]);
}

/** A fixture as Shopify sends it, its top-level `email` emptied and its times moved to now. */
function withEmptyEmail(name: string): string {
  const now = scenario.testApp.clock.now().toISOString();
  const text = readFileSync(new URL(`../fixtures/shopify/${name}`, import.meta.url), 'utf8')
    .replace(`"email": "${SHOPPER}"`, '"email": ""')
    .replace(/"(created_at|updated_at|processed_at)": "[^"]+"/g, (_match, key: string) => `"${key}": "${now}"`);
  const payload = parseJsonText(text) as { email: unknown; customer: { email: unknown } };
  expect([payload.email, payload.customer.email]).toEqual(['', SHOPPER]);
  return text;
}

async function send(path: string, topic: string, text: string): Promise<string> {
  const sent = await sendShopifyWebhook(`${scenario.testApp.baseUrl}${path}`, topic, text, shopifySecret);
  expect(sent.status, sent.text).toBe(202);
  return JSON.parse(sent.text).eventId as string;
}

function profileWrites(): number {
  return scenario.klaviyo.requests.filter((request) => request.path === '/api/profile-import' && (request.body as any)?.data?.attributes?.email === SHOPPER).length;
}

describe('Shopify payloads whose email is empty', () => {
  it("deliver a checkout to the customer's profile, keyed by the customer's email from intake on", async () => {
    const id = await send(owner.flows.abandoned_checkout.webhookPath, 'checkouts/update', withEmptyEmail('checkouts-update.json'));
    const { rows } = await db().query('SELECT status, shopper_email FROM events WHERE id = $1', [id]);
    expect(rows[0]).toEqual({ status: 'waiting', shopper_email: SHOPPER });

    const settled = (await settleOnTheAppClock(scenario, [id], { stepMs: 60_000 })).get(id)!;
    expect(settled.status, settled.error ?? '').toBe('delivered');
    expect(profileWrites()).toBe(1);
    expect(Object.keys(scenario.klaviyo.profiles.get(SHOPPER)?.properties ?? {}).sort()).toEqual(['body_copy', 'subject_line1']);
  });

  it("deliver an order to the customer's profile, and an order whose every email is empty is skipped for having none", async () => {
    scenario.klaviyo.profiles.delete(SHOPPER);
    const id = await send(owner.flows.post_purchase.webhookPath, 'orders/create', withEmptyEmail('orders-create.json'));
    const order = await waitForEvent(db(), id);
    expect(order.status, order.error ?? '').toBe('delivered');
    const { rows } = await db().query('SELECT shopper_email FROM events WHERE id = $1', [id]);
    expect(rows[0]).toEqual({ shopper_email: SHOPPER });
    expect(profileWrites()).toBe(2);
    expect(Object.keys(scenario.klaviyo.profiles.get(SHOPPER)?.properties ?? {}).sort()).toEqual(['body_copy', 'subject_line1']);

    // Another owner's flow, so the same order is not taken for one already followed up.
    const other = await ownerWithFlows(scenario, { post_purchase: {} });
    await englishTexts(other);
    const noEmail = withEmptyEmail('orders-create.json').replace(`"email": "${SHOPPER}"`, '"email": ""');
    expect(noEmail).not.toContain(SHOPPER);
    const skipped = await waitForEvent(db(), await send(other.flows.post_purchase.webhookPath, 'orders/create', noEmail));
    expect(skipped).toMatchObject({ status: 'skipped', error: eventOutcomeMessages.noEmail });
    expect(profileWrites()).toBe(2);
  });
});
