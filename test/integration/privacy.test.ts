import { createHmac, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ownerWithFlows, postEvent, sampleEvent, shopifySecret, useEngineScenario, waitForEvents, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { sendShopifyWebhook } from '../fakes/fake-shopify.ts';
import { shopperKey } from '../../src/server/platform/shopper-key.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

// Shoppers' privacy (docs/decisions/0028-shopper-privacy.md): Shopify's compliance
// webhooks, the audit list, Find a shopper. Whether an erasure left anything is asked of
// the database itself, column by column, so a table added later without a registry entry
// makes these tests fail.

const scenario = useEngineScenario({ standIns: allStandIns });

const db = () => scenario.testApp.database.pool;

/**
 * Every table and column of the app's schema whose text holds `needle`, with how many rows.
 * The audit list included: once a shopper is erased it keeps only a masked address.
 */
async function rowsHolding(needle: string): Promise<Record<string, number>> {
  const { rows: columns } = await db().query<{ table_name: string; column_name: string }>(
    `SELECT c.table_name, c.column_name FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
      WHERE c.table_schema = current_schema() AND c.data_type IN ('text', 'character varying', 'jsonb', 'json')`,
  );
  const found: Record<string, number> = {};
  for (const { table_name, column_name } of columns) {
    const { rows } = await db().query<{ n: string }>(`SELECT count(*) AS n FROM "${table_name}" WHERE "${column_name}"::text ILIKE '%' || $1 || '%'`, [needle]);
    if (Number(rows[0]!.n) > 0) found[`${table_name}.${column_name}`] = Number(rows[0]!.n);
  }
  return found;
}

/** The audit list's form of an erased shopper's address: its first letter and its domain. */
const masked = (email: string) => `${email[0]}***@${email.split('@')[1]}`;

async function endpointOf(owner: Owner): Promise<string> {
  const response = await owner.client.call(endpoints.privacy.endpoint);
  expect(response.status, response.text).toBe(200);
  expect(response.json.url).toMatch(/\/api\/privacy-webhooks\/[0-9a-f]{64}$/);
  return response.json.url as string;
}

async function sendComplianceWebhook(url: string, topic: string, body: unknown, options: { secret?: string | null; webhookId?: string } = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-shopify-topic': topic,
    'x-shopify-shop-domain': 'test-shop.myshopify.com',
    'x-shopify-webhook-id': options.webhookId ?? randomUUID(),
  };
  const secret = options.secret === undefined ? shopifySecret : options.secret;
  if (secret !== null) headers['x-shopify-hmac-sha256'] = createHmac('sha256', secret).update(text).digest('base64');
  const response = await fetch(url, { method: 'POST', headers, body: text });
  return { status: response.status, text: await response.text() };
}

const redactBody = (email: string) => ({ shop_id: 1, shop_domain: 'test-shop.myshopify.com', customer: { id: 42, email, phone: null }, orders_to_redact: [] });
const dataRequestBody = (email: string) => ({ ...redactBody(email), orders_requested: [], data_request: { id: 7 } });

/** Events for the shopper, each delivered: texts written, the profile written, the cooldown taken. */
async function shopperActivity(owner: Owner, email: string): Promise<string[]> {
  const ids: string[] = [];
  for (const flowType of ['abandoned_cart', 'abandoned_checkout', 'post_purchase'] as const) {
    const response = await postEvent(scenario.testApp.baseUrl, owner.flows[flowType].webhookPath, sampleEvent(flowType, { email }));
    expect(response.status, response.text).toBe(202);
    ids.push(response.json.eventId as string);
  }
  await waitForEvents(db(), ids);
  return ids;
}

/** The owner tried the sandbox with the shopper's address. */
async function sandboxActivity(owner: Owner, email: string) {
  await db().query(`INSERT INTO sandbox_accounts (user_id, access_token, shop_signing_secret) VALUES ($1, $2, 'secret') ON CONFLICT DO NOTHING`, [owner.userId, randomUUID()]);
  await db().query(`INSERT INTO sandbox_profiles (id, user_id, email, properties) VALUES ($1, $2, $3, '{"body_copy": "hello"}')`, [randomUUID(), owner.userId, email]);
  await db().query(`INSERT INTO sandbox_klaviyo_events (user_id, unique_id, metric, email, properties) VALUES ($1, $2, 'Flowsmith', $3, '{}')`, [owner.userId, randomUUID(), email]);
}

async function requestsOf(owner: Owner) {
  const response = await owner.client.call(endpoints.privacy.requests);
  expect(response.status, response.text).toBe(200);
  return response.json.requests as Array<Record<string, any>>;
}

async function waitForDone(owner: Owner, count: number) {
  await expect.poll(async () => (await requestsOf(owner)).filter((request) => request.status === 'done').length, { timeout: 15_000, interval: 100 }).toBe(count);
  return requestsOf(owner);
}

const flowSetups = { abandoned_cart: {}, post_purchase: {}, abandoned_checkout: {} };

describe("Shopify's compliance webhooks", () => {
  it('customers/redact erases the shopper from every table, and no one else', async () => {
    const owner = await ownerWithFlows(scenario, flowSetups);
    const otherOwner = await ownerWithFlows(scenario, flowSetups);
    const shopper = uniqueEmail('redact-me');
    const neighbour = uniqueEmail('keep-me');
    // The same address at another owner: what the database holds of it before our owner
    // ever saw the shopper is what it must hold after the erasure.
    const otherOwnersEvents = await shopperActivity(otherOwner, shopper);
    const before = await rowsHolding(shopper);
    expect(Object.keys(before)).toContain('events.shopper_email');
    await shopperActivity(owner, shopper);
    await sandboxActivity(owner, shopper);
    const neighbourEvents = await shopperActivity(owner, neighbour);
    const cooldowns = (userId: string, email: string) =>
      db().query('SELECT 1 FROM shopper_generation_cooldowns WHERE shopper_key = $1 AND flow_id IN (SELECT id FROM flows WHERE user_id = $2)', [shopperKey(email), userId]);

    // The scan sees the shopper before: it would see whatever an erasure left.
    expect(Object.keys(await rowsHolding(shopper))).toEqual(
      expect.arrayContaining(['events.normalized', 'events.raw_body', 'events.shopper_email', 'sandbox_klaviyo_events.email', 'sandbox_profiles.email']),
    );
    expect((await cooldowns(owner.userId, shopper)).rowCount).toBeGreaterThan(0);

    const url = await endpointOf(owner);
    const webhookId = randomUUID();
    const answer = await sendComplianceWebhook(url, 'customers/redact', redactBody(shopper.toUpperCase()), { webhookId });
    expect(answer.status, answer.text).toBe(200);
    // Shopify delivers again when unsure; the request is recorded once.
    expect((await sendComplianceWebhook(url, 'customers/redact', redactBody(shopper), { webhookId })).status).toBe(200);

    const [request] = await waitForDone(owner, 1);
    expect(await requestsOf(owner)).toHaveLength(1);
    expect(request).toMatchObject({ topic: 'customers/redact', shopDomain: 'test-shop.myshopify.com', shopperEmail: masked(shopper), customerId: '42', status: 'done' });
    expect(request!.recordsAffected).toBeGreaterThanOrEqual(5);
    expect(await rowsHolding(shopper)).toEqual(before);
    expect((await cooldowns(owner.userId, shopper)).rowCount).toBe(0);

    // The same owner's other shopper and the same address at another owner are untouched.
    expect((await db().query('SELECT 1 FROM events WHERE id = ANY($1)', [neighbourEvents])).rowCount).toBe(3);
    expect((await db().query('SELECT 1 FROM events WHERE id = ANY($1)', [otherOwnersEvents])).rowCount).toBe(3);
    expect((await cooldowns(otherOwner.userId, shopper)).rowCount).toBeGreaterThan(0);
    expect(await requestsOf(otherOwner)).toEqual([]);
  });

  it('refuses unsigned, wrongly signed and malformed requests, and does nothing', async () => {
    const owner = await ownerWithFlows(scenario, flowSetups);
    const shopper = uniqueEmail('kept');
    const events = await shopperActivity(owner, shopper);
    const url = await endpointOf(owner);
    expect((await sendComplianceWebhook(url, 'customers/redact', redactBody(shopper), { secret: null })).status).toBe(401);
    const wronglySigned = await sendComplianceWebhook(url, 'customers/redact', redactBody(shopper), { secret: 'shpss_someone_else' });
    expect(wronglySigned.status).toBe(401);
    // The same code as a flow's webhook with a Shopify signature that does not match: one failure, one name.
    expect(JSON.parse(wronglySigned.text)).toMatchObject({ error: 'bad_signature' });
    expect((await sendComplianceWebhook(url, 'customers/redact', '{"shop_domain": ', {})).status).toBe(400);
    expect((await sendComplianceWebhook(url, 'customers/redact', { shop_domain: 'test-shop.myshopify.com' })).status).toBe(400);
    expect((await sendComplianceWebhook(url, 'customers/delete_everything', redactBody(shopper))).status).toBe(400);
    expect((await sendComplianceWebhook(url, 'customers/redact', 'x'.repeat(100_000))).status).toBe(413);
    expect((await sendComplianceWebhook(`${url.slice(0, -4)}0000`, 'customers/redact', redactBody(shopper))).status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await requestsOf(owner)).toEqual([]);
    expect((await db().query('SELECT 1 FROM events WHERE id = ANY($1)', [events])).rowCount).toBe(3);
  });

  it('an unknown shopper is recorded and answered, with nothing erased', async () => {
    const owner = await ownerWithFlows(scenario, flowSetups);
    const answer = await sendComplianceWebhook(await endpointOf(owner), 'customers/redact', redactBody(uniqueEmail('never-seen')));
    expect(answer.status).toBe(200);
    const [request] = await waitForDone(owner, 1);
    expect(request).toMatchObject({ status: 'done', recordsAffected: 0 });
  });

  it('customers/data_request prepares an export of the shopper the owner can download', async () => {
    const owner = await ownerWithFlows(scenario, flowSetups);
    const shopper = uniqueEmail('asks');
    const events = await shopperActivity(owner, shopper);
    await shopperActivity(owner, uniqueEmail('other'));
    expect((await sendComplianceWebhook(await endpointOf(owner), 'customers/data_request', dataRequestBody(shopper))).status).toBe(200);
    const [request] = await waitForDone(owner, 1);
    expect(request!.exportLocation).toMatch(/^\/api\/privacy\/requests\/.+\/export$/);
    const download = await owner.client.get(request!.exportLocation as string);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename=".+\.json"$/);
    expect(download.json.shopper).toBe(shopper);
    expect(download.json.events.map((event: { id: string }) => event.id).sort()).toEqual([...events].sort());
    const texts = download.json.events.flatMap((event: { texts: Array<{ text: string }> }) => event.texts.map((text) => text.text));
    expect(texts.length).toBeGreaterThanOrEqual(6);
    expect(texts.every((text: string) => text.startsWith('AI('))).toBe(true);
    expect(request!.recordsAffected).toBeGreaterThanOrEqual(3);
    // Nothing is erased by a data request; another owner cannot download the export.
    expect((await db().query('SELECT 1 FROM events WHERE id = ANY($1)', [events])).rowCount).toBe(3);
    const stranger = await ownerWithFlows(scenario, {});
    expect((await stranger.client.get(request!.exportLocation as string)).status).toBe(404);
  });

  /**
   * A shopper's order and checkout as Shopify's webhooks carry them, with 64-bit ids written
   * as digits: JSON.stringify of a JavaScript number would have rounded them.
   */
  async function shopifyOrderActivity(owner: Owner, email: string, ids: { customerId: string; orderId: string }): Promise<string[]> {
    const checkoutToken = `chk${randomUUID().replaceAll('-', '')}`;
    const customer = `{"id":${ids.customerId},"email":${JSON.stringify(email)},"first_name":"Kim","last_name":"Buyer"}`;
    const checkout = `{"id":${ids.orderId}1,"token":"${checkoutToken}","email":${JSON.stringify(email)},"customer":${customer},"line_items":[{"title":"Trail Shoe","price":"89.50","quantity":1,"product_id":42}],"total_price":"89.50","currency":"USD","completed_at":null}`;
    const order = `{"id":${ids.orderId},"checkout_token":"${checkoutToken}","email":${JSON.stringify(email)},"customer":${customer},"line_items":[{"title":"Trail Shoe","price":"89.50","quantity":1,"product_id":42}],"total_price":"89.50","currency":"USD"}`;
    const eventIds: string[] = [];
    for (const [path, topic, body] of [
      [owner.flows.abandoned_checkout.webhookPath, 'checkouts/create', checkout],
      [owner.flows.post_purchase.webhookPath, 'orders/create', order],
    ] as const) {
      const sent = await sendShopifyWebhook(`${scenario.testApp.baseUrl}${path}`, topic, body, shopifySecret);
      expect(sent.status, sent.text).toBe(202);
      eventIds.push(JSON.parse(sent.text).eventId as string);
    }
    await waitForEvents(db(), eventIds, { statuses: ['waiting', 'delivered', 'skipped', 'failed'] });
    return eventIds;
  }

  it('customers/redact finds the shopper by 64-bit customer id and orders when the email is empty, and erases every event under their email', async () => {
    const owner = await ownerWithFlows(scenario, flowSetups);
    const shopper = uniqueEmail('no-email-given');
    const neighbour = uniqueEmail('next-id');
    // Beyond JavaScript's safe integers: as numbers these two ids would be equal.
    expect(Number('788032119674292922')).toBe(Number('788032119674292923'));
    const shopify = await shopifyOrderActivity(owner, shopper, { customerId: '788032119674292922', orderId: '450789469123456789' });
    const generic = await shopperActivity(owner, shopper);
    const neighbours = await shopifyOrderActivity(owner, neighbour, { customerId: '788032119674292923', orderId: '450789469123456788' });

    const url = await endpointOf(owner);
    const body = `{"shop_id":954889,"shop_domain":"test-shop.myshopify.com","customer":{"id":788032119674292922,"email":"","phone":""},"orders_to_redact":[]}`;
    expect((await sendComplianceWebhook(url, 'customers/redact', body)).status).toBe(200);
    const [request] = await waitForDone(owner, 1);
    expect(request).toMatchObject({ topic: 'customers/redact', customerId: '788032119674292922', shopperEmail: null, status: 'done' });
    expect((await db().query('SELECT 1 FROM events WHERE id = ANY($1)', [[...shopify, ...generic]])).rowCount).toBe(0);
    expect(await rowsHolding(shopper)).toEqual({});
    expect((await db().query('SELECT 1 FROM events WHERE id = ANY($1)', [neighbours])).rowCount).toBe(2);

    // Orders alone, with no customer part at all, find the neighbour's order and the checkout that became it.
    const byOrders = `{"shop_id":954889,"shop_domain":"test-shop.myshopify.com","customer":{"id":null,"phone":null},"orders_to_redact":[450789469123456788]}`;
    expect((await sendComplianceWebhook(url, 'customers/redact', byOrders)).status).toBe(200);
    await waitForDone(owner, 2);
    expect((await db().query('SELECT 1 FROM events WHERE id = ANY($1)', [neighbours])).rowCount).toBe(0);
  });

  it('customers/data_request without an email exports what the customer id and orders_requested find', async () => {
    const owner = await ownerWithFlows(scenario, flowSetups);
    const shopper = uniqueEmail('export-by-id');
    const shopify = await shopifyOrderActivity(owner, shopper, { customerId: '788032119674292924', orderId: '450789469123456787' });
    await shopifyOrderActivity(owner, uniqueEmail('not-asked'), { customerId: '788032119674292925', orderId: '450789469123456786' });
    const body = `{"shop_id":954889,"shop_domain":"test-shop.myshopify.com","customer":{"id":788032119674292924,"phone":"+16135551111"},"orders_requested":[450789469123456787],"data_request":{"id":9999}}`;
    expect((await sendComplianceWebhook(await endpointOf(owner), 'customers/data_request', body)).status).toBe(200);
    const [request] = await waitForDone(owner, 1);
    const download = await owner.client.get(request!.exportLocation as string);
    expect(download.status).toBe(200);
    expect(download.json).toMatchObject({ shopper, shoppers: [shopper], customerId: '788032119674292924', orders: ['450789469123456787'] });
    expect(download.json.events.map((event: { id: string }) => event.id).sort()).toEqual([...shopify].sort());
    // The phone served to find the shopper; it is not kept once the request is done.
    expect(await rowsHolding('6135551111')).toEqual({});
  });

  it('shop/redact erases everything kept for the shop, and nothing of other owners', async () => {
    const owner = await ownerWithFlows(scenario, flowSetups);
    const otherOwner = await ownerWithFlows(scenario, flowSetups);
    const shoppers = [uniqueEmail('shop-a'), uniqueEmail('shop-b')];
    for (const shopper of shoppers) await shopperActivity(owner, shopper);
    const kept = await shopperActivity(otherOwner, shoppers[0]!);
    expect((await sendComplianceWebhook(await endpointOf(owner), 'shop/redact', { shop_id: 1, shop_domain: 'test-shop.myshopify.com' })).status).toBe(200);
    const [request] = await waitForDone(owner, 1);
    expect(request).toMatchObject({ topic: 'shop/redact', shopperEmail: null });
    expect((await db().query('SELECT count(*)::int AS n FROM events WHERE user_id = $1', [owner.userId])).rows[0].n).toBe(0);
    expect((await db().query('SELECT 1 FROM shopper_generation_cooldowns WHERE flow_id IN (SELECT id FROM flows WHERE user_id = $1)', [owner.userId])).rowCount).toBe(0);
    expect((await db().query('SELECT 1 FROM events WHERE id = ANY($1)', [kept])).rowCount).toBe(3);
  });

  it('an erasure cut short finishes when it is taken up again', async () => {
    const owner = await ownerWithFlows(scenario, flowSetups);
    const shopper = uniqueEmail('crash');
    const events = await shopperActivity(owner, shopper);
    await sandboxActivity(owner, shopper);
    // The sandbox's rows are erased after the events: failing there is failing midway.
    await db().query(`CREATE FUNCTION privacy_test_crash() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'worker died'; END; $$`);
    await db().query(`CREATE TRIGGER privacy_test_crash BEFORE DELETE ON sandbox_profiles FOR EACH ROW EXECUTE FUNCTION privacy_test_crash()`);
    try {
      expect((await sendComplianceWebhook(await endpointOf(owner), 'customers/redact', redactBody(shopper))).status).toBe(200);
      await expect.poll(async () => (await requestsOf(owner))[0]?.status, { timeout: 10_000 }).toBe('processing');
      await expect.poll(() => scenario.testApp.logLines.some((line) => line.includes('privacy: could not carry out requests')), { timeout: 10_000 }).toBe(true);
      // Nothing half-done stays: the events are all still there.
      expect((await db().query('SELECT 1 FROM events WHERE id = ANY($1)', [events])).rowCount).toBe(3);
    } finally {
      await db().query('DROP TRIGGER privacy_test_crash ON sandbox_profiles');
      await db().query('DROP FUNCTION privacy_test_crash()');
    }
    // Once the crashed worker's lease is over, the request is taken up again and finished.
    scenario.testApp.clock.advance(6 * 60_000);
    const [request] = await waitForDone(owner, 1);
    expect(request!.recordsAffected).toBeGreaterThan(0);
    expect(await rowsHolding(shopper)).toEqual({});
  });
});

describe('Find a shopper', () => {
  it('finds, exports and erases one shopper of the signed-in owner only, and can clear the Klaviyo profile', async () => {
    const owner = await ownerWithFlows(scenario, flowSetups);
    const otherOwner = await ownerWithFlows(scenario, flowSetups);
    const shopper = uniqueEmail('find-me');
    await shopperActivity(owner, shopper);
    const othersEvents = await shopperActivity(otherOwner, shopper);
    const onlyOthers = uniqueEmail('only-other');
    await shopperActivity(otherOwner, onlyOthers);

    const found = await owner.client.call(endpoints.privacy.shopper, { query: { email: shopper.toUpperCase() } });
    expect(found.status, found.text).toBe(200);
    expect(found.json).toMatchObject({ email: shopper, found: true, events: 3, timers: 0 });
    expect(found.json.texts).toBeGreaterThanOrEqual(4);
    const notMine = await owner.client.call(endpoints.privacy.shopper, { query: { email: onlyOthers } });
    expect(notMine.json).toMatchObject({ found: false, events: 0 });
    expect((await owner.client.call(endpoints.privacy.shopper, { query: { email: 'not-an-email' } })).status).toBe(400);

    const exported = await owner.client.call(endpoints.privacy.shopperExport, { query: { email: shopper } });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-disposition')).toMatch(/^attachment/);
    expect(exported.json.events).toHaveLength(3);

    expect(Object.keys(scenario.klaviyo.profiles.get(shopper)!.properties).sort()).toEqual(['body_copy', 'subject_line1']);
    const erased = await owner.client.call(endpoints.privacy.eraseShopper, { body: { email: shopper, unsetKlaviyo: true } });
    expect(erased.status, erased.text).toBe(200);
    expect(erased.json).toMatchObject({ klaviyo: 'removed' });
    expect(erased.json.recordsAffected).toBeGreaterThanOrEqual(3);
    const unset = scenario.klaviyo.requests.filter((request) => request.path === '/api/profile-import' && (request.body as any).data.meta?.patch_properties?.unset);
    expect(unset.at(-1)!.body).toMatchObject({ data: { attributes: { email: shopper }, meta: { patch_properties: { unset: ['subject_line1', 'body_copy'] } } } });
    expect(scenario.klaviyo.profiles.get(shopper)!.properties).toEqual({});

    expect((await owner.client.call(endpoints.privacy.shopper, { query: { email: shopper } })).json).toMatchObject({ found: false, events: 0 });
    expect((await db().query('SELECT 1 FROM events WHERE user_id = $1 AND shopper_email = $2', [owner.userId, shopper])).rowCount).toBe(0);
    expect((await db().query('SELECT 1 FROM events WHERE id = ANY($1)', [othersEvents])).rowCount).toBe(3);
    const [audit] = await requestsOf(owner);
    expect(audit).toMatchObject({ topic: 'owner/erase', shopperEmail: masked(shopper), status: 'done', recordsAffected: erased.json.recordsAffected });

    // Without the box ticked, Klaviyo is not asked.
    const before = scenario.klaviyo.requests.length;
    const quiet = await otherOwner.client.call(endpoints.privacy.eraseShopper, { body: { email: onlyOthers } });
    expect(quiet.json).toMatchObject({ klaviyo: 'not_asked' });
    expect(scenario.klaviyo.requests.length).toBe(before);
  });
});
