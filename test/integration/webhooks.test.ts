import { randomUUID } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { eventOutcomeMessages, rejectionReasons, webhookMessages } from '../../src/shared/events/event-messages.ts';
import { requestMessages } from '../../src/shared/messages.ts';
import { sendShopifyWebhook, shopifyCheckoutPayload, signShopifyWebhook } from '../fakes/fake-shopify.ts';
import { credentialsInput, ownerWithFlows, postEvent, sampleEvent, shopifySecret, useEngineScenario, waitForEvents, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

let owner: Owner;
const scenario = useEngineScenario({ standIns: allStandIns });
beforeAll(async () => {
  owner = await ownerWithFlows(scenario, { abandoned_cart: {}, abandoned_checkout: { waitMinutes: 0 }, post_purchase: {}, browser_abandonment: {} });
});
beforeEach(() => scenario.testApp.clock.advance(61_000));

const db = () => scenario.testApp.database.pool;
const url = (path: string) => `${scenario.testApp.baseUrl}${path}`;

async function eventsOfFlow(flowId: string) {
  return (await db().query<{ id: string; status: string; error: string | null; source: string; raw_body: string | null }>(
    'SELECT id, status, error, source, raw_body FROM events WHERE flow_id = $1 ORDER BY received_at, id',
    [flowId],
  )).rows;
}

async function rejectionsOfFlow(flowId: string) {
  return (await eventsOfFlow(flowId)).filter((event) => event.status === 'rejected');
}

function shopifyCheckout(email: string) {
  return shopifyCheckoutPayload(email, { abandoned_checkout_url: 'https://shop.example/checkouts/abc/recover' });
}

describe('receiving', () => {
  it('answers 404 for an unknown flow id and for a flow id under the wrong flow type, revealing nothing', async () => {
    const unknown = await postEvent(scenario.testApp.baseUrl, `/api/webhooks/abandoned_cart/${randomUUID()}`, sampleEvent('abandoned_cart'));
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ error: 'not_found', message: requestMessages.notFound });

    const wrongType = await postEvent(scenario.testApp.baseUrl, `/api/webhooks/post_purchase/${owner.flows.abandoned_cart.id}`, sampleEvent('abandoned_cart'));
    expect(wrongType.status).toBe(404);
    expect(wrongType.json).toEqual(unknown.json);
    const nonsenseType = await postEvent(scenario.testApp.baseUrl, `/api/webhooks/nonsense/${owner.flows.abandoned_cart.id}`, sampleEvent('abandoned_cart'));
    expect(nonsenseType.status).toBe(404);

    // The owner can see why: the event went to the wrong address of their flow.
    const rejections = await rejectionsOfFlow(owner.flows.abandoned_cart.id);
    expect(rejections.map((event) => event.error)).toContain(rejectionReasons.wrongFlowType('Post Purchase', 'Abandoned Cart'));
  });

  it('answers 400 with a clear message for malformed JSON, and records why', async () => {
    const response = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, '{"event_id": "x", ');
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ error: 'malformed_json', message: webhookMessages.malformedJson });
    const notObject = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, '[1, 2]');
    expect(notObject.status).toBe(400);
    expect(notObject.json.message).toBe(webhookMessages.notAnObject);
    const rejections = await rejectionsOfFlow(owner.flows.post_purchase.id);
    expect(rejections.some((event) => event.error?.startsWith('The body is not valid JSON') && event.raw_body === '{"event_id": "x", ')).toBe(true);
    expect(rejections.some((event) => event.error === rejectionReasons.notAnObject)).toBe(true);
  });

  it('answers 413 above 1 MB and accepts a body just under it', async () => {
    const padding = 'x'.repeat(1_048_576);
    const tooLarge = await postEvent(scenario.testApp.baseUrl, owner.flows.browser_abandonment.webhookPath, { ...sampleEvent('browser_abandonment'), padding });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.json).toEqual({ error: 'body_too_large', message: webhookMessages.bodyTooLarge });
    const rejections = await rejectionsOfFlow(owner.flows.browser_abandonment.id);
    expect(rejections.map((event) => event.error)).toContain(rejectionReasons.bodyTooLarge);

    const event = sampleEvent('browser_abandonment');
    const room = 1_048_576 - JSON.stringify({ ...event, padding: '' }).length - 10;
    const justUnder = await postEvent(scenario.testApp.baseUrl, owner.flows.browser_abandonment.webhookPath, { ...event, padding: 'y'.repeat(room) });
    expect(justUnder.status, justUnder.text).toBe(202);
  });

  it('answers 415 for a content type other than JSON or text', async () => {
    const response = await fetch(url(owner.flows.post_purchase.webhookPath), { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<event/>' });
    expect(response.status).toBe(415);
    expect((await response.json()).message).toBe(webhookMessages.unsupportedMediaType);
  });

  it('accepts text/plain bodies holding JSON (senders that avoid a CORS preflight)', async () => {
    const event = sampleEvent('post_purchase');
    const response = await fetch(url(owner.flows.post_purchase.webhookPath), {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: JSON.stringify(event),
    });
    expect(response.status).toBe(202);
    const { eventId } = await response.json();
    await waitForEvents(db(), [eventId]);
    const detail = await owner.client.call(endpoints.events.detail, { params: { eventId } });
    expect(detail.json.event).toMatchObject({ source: 'generic', status: 'delivered', contentType: 'text/plain;charset=UTF-8' });
  });

  it('answers 503, never 2xx, when the database cannot take the event', async () => {
    await db().query('ALTER TABLE events ADD CONSTRAINT refuse_everything CHECK (false) NOT VALID');
    try {
      const response = await postEvent(scenario.testApp.baseUrl, owner.flows.abandoned_cart.webhookPath, sampleEvent('abandoned_cart'));
      expect(response.status).toBe(503);
      expect(response.json.message).toBe(webhookMessages.unavailable);
    } finally {
      await db().query('ALTER TABLE events DROP CONSTRAINT refuse_everything');
    }
  });
});

describe('Shopify signatures', () => {
  it('accepts a correctly signed Shopify checkout and delivers it', async () => {
    const email = uniqueEmail('checkout');
    const sent = await sendShopifyWebhook(url(owner.flows.abandoned_checkout.webhookPath), 'checkouts/update', shopifyCheckout(email), shopifySecret);
    expect(sent.status, sent.text).toBe(202);
    const { eventId } = JSON.parse(sent.text);
    const settled = await waitForEvents(db(), [eventId]);
    expect(settled.get(eventId)).toMatchObject({ status: 'delivered' });
    expect(scenario.klaviyo.profiles.get(email)).toMatchObject({ first_name: 'Kim', last_name: 'Buyer' });
    const detail = await owner.client.call(endpoints.events.detail, { params: { eventId } });
    expect(detail.json.event).toMatchObject({ source: 'shopify', topic: 'checkouts/update' });
    expect(detail.json.event.headers['x-shopify-hmac-sha256']).toBeUndefined();
    expect(detail.json.event.normalized).toMatchObject({
      eventType: 'checkouts/update',
      total: '89.50',
      checkoutUrl: 'https://shop.example/checkouts/abc/recover',
      products: [{ id: '42', name: 'Trail Shoe', price: '89.50', quantity: 1 }],
    });
  });

  it('answers 401 for a bad signature and records the reason for the owner', async () => {
    const body = shopifyCheckout(uniqueEmail('forged'));
    const forged = await sendShopifyWebhook(url(owner.flows.abandoned_checkout.webhookPath), 'checkouts/update', body, 'not-the-secret');
    expect(forged.status).toBe(401);
    expect(JSON.parse(forged.text).message).toBe(webhookMessages.badSignature);
    // A valid signature of a different body does not count either.
    const tampered = await sendShopifyWebhook(url(owner.flows.abandoned_checkout.webhookPath), 'checkouts/update', body, shopifySecret, {
      'X-Shopify-Hmac-Sha256': signShopifyWebhook('{}', shopifySecret),
    });
    expect(tampered.status).toBe(401);
    const garbage = await sendShopifyWebhook(url(owner.flows.abandoned_checkout.webhookPath), 'checkouts/update', body, shopifySecret, {
      'X-Shopify-Hmac-Sha256': 'not base64 at all',
    });
    expect(garbage.status).toBe(401);
    const rejections = await rejectionsOfFlow(owner.flows.abandoned_checkout.id);
    expect(rejections.filter((event) => event.error === rejectionReasons.signatureMismatch)).toHaveLength(3);
  });

  it('also accepts the previous secret for the hour after a secret change', async () => {
    const rotating = await ownerWithFlows(scenario, { post_purchase: {} });
    const changed = await rotating.client.call(endpoints.credentials.save, { body: credentialsInput({ shopifySigningSecret: 'shpss_new_secret_0123456789' }) });
    expect(changed.status, changed.text).toBe(200);
    const target = url(rotating.flows.post_purchase.webhookPath);
    expect((await sendShopifyWebhook(target, 'orders/create', shopifyCheckout(uniqueEmail('old')), shopifySecret)).status).toBe(202);
    expect((await sendShopifyWebhook(target, 'orders/create', shopifyCheckout(uniqueEmail('new')), 'shpss_new_secret_0123456789')).status).toBe(202);
    scenario.testApp.clock.advance(61 * 60_000);
    expect((await sendShopifyWebhook(target, 'orders/create', shopifyCheckout(uniqueEmail('late')), shopifySecret)).status).toBe(401);
    expect((await sendShopifyWebhook(target, 'orders/create', shopifyCheckout(uniqueEmail('current')), 'shpss_new_secret_0123456789')).status).toBe(202);
  });

  it("verifies with both the client secret and the Notifications key once both are saved, not only within the hour after", async () => {
    const both = await ownerWithFlows(scenario, { post_purchase: {} });
    const clientCredentials = { shopifyAuthMethod: 'client_credentials', shopifyAccessToken: '', shopifyClientId: scenario.shopify.clientId, shopifyClientSecret: scenario.shopify.clientSecret };
    const appOnly = await both.client.call(endpoints.credentials.save, { body: credentialsInput({ ...clientCredentials, shopifySigningSecret: '' }) });
    expect(appOnly.status, appOnly.text).toBe(200);
    const notificationsKey = 'shpss_notifications_key_0123456789';
    const withKey = await both.client.call(endpoints.credentials.save, { body: credentialsInput({ ...clientCredentials, shopifySigningSecret: notificationsKey }) });
    expect(withKey.status, withKey.text).toBe(200);
    // Past the rotation hour: what still verifies does so because it is current.
    scenario.testApp.clock.advance(61 * 60_000);
    const target = url(both.flows.post_purchase.webhookPath);
    // Webhooks the app registered itself are signed with its client secret…
    expect((await sendShopifyWebhook(target, 'orders/create', shopifyCheckout(uniqueEmail('app')), scenario.shopify.clientSecret)).status).toBe(202);
    // …and those made in the admin under Notifications with the key shown there.
    expect((await sendShopifyWebhook(target, 'orders/create', shopifyCheckout(uniqueEmail('admin')), notificationsKey)).status).toBe(202);
    expect((await sendShopifyWebhook(target, 'orders/create', shopifyCheckout(uniqueEmail('stranger')), 'shpss_someone_else')).status).toBe(401);
  });

  it('answers 401 when the owner has saved no signing secret', async () => {
    const unset = await ownerWithFlows(scenario, { post_purchase: {} }, { withCredentials: false });
    const sent = await sendShopifyWebhook(url(unset.flows.post_purchase.webhookPath), 'orders/create', shopifyCheckout(uniqueEmail('nosecret')), shopifySecret);
    expect(sent.status).toBe(401);
    expect((await rejectionsOfFlow(unset.flows.post_purchase.id)).map((event) => event.error)).toContain(rejectionReasons.noSigningSecret);
  });
});

describe('duplicates', () => {
  it('keeps a Shopify delivery once when its event id or webhook id repeats, and delivers it once', async () => {
    const email = uniqueEmail('dupe');
    const body = shopifyCheckout(email);
    const ids = { 'X-Shopify-Event-Id': randomUUID(), 'X-Shopify-Webhook-Id': randomUUID() };
    const first = await sendShopifyWebhook(url(owner.flows.abandoned_checkout.webhookPath), 'checkouts/update', body, shopifySecret, ids);
    const sameWebhook = await sendShopifyWebhook(url(owner.flows.abandoned_checkout.webhookPath), 'checkouts/update', body, shopifySecret, {
      'X-Shopify-Webhook-Id': ids['X-Shopify-Webhook-Id'],
    });
    const sameEvent = await sendShopifyWebhook(url(owner.flows.abandoned_checkout.webhookPath), 'checkouts/update', body, shopifySecret, {
      'X-Shopify-Event-Id': ids['X-Shopify-Event-Id'],
    });
    const answers = [first, sameWebhook, sameEvent].map((answer) => ({ httpStatus: answer.status, ...JSON.parse(answer.text) }));
    expect(answers.map((answer) => answer.httpStatus)).toEqual([202, 202, 202]);
    expect(new Set(answers.map((answer) => answer.eventId)).size).toBe(1);
    expect(answers.map((answer) => answer.duplicate)).toEqual([false, true, true]);

    await waitForEvents(db(), [answers[0].eventId]);
    const stored = await db().query('SELECT count(*)::int AS count FROM events WHERE shopper_email = $1 OR raw_body LIKE $2', [email, `%${email}%`]);
    expect(stored.rows[0].count).toBe(1);
    expect(scenario.klaviyo.requests.filter((request) => request.path === '/api/profile-import' && (request.body as any).data.attributes.email === email)).toHaveLength(1);
  });

  it('keeps a generic event once per event_id, even when sent concurrently', async () => {
    const email = uniqueEmail('concurrent');
    const event = sampleEvent('abandoned_cart', { email });
    const answers = await Promise.all(Array.from({ length: 8 }, () => postEvent(scenario.testApp.baseUrl, owner.flows.abandoned_cart.webhookPath, event)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(202));
    expect(new Set(answers.map((answer) => answer.json.eventId)).size).toBe(1);
    expect(answers.filter((answer) => !answer.json.duplicate)).toHaveLength(1);
    // Only the stored event has a job: the duplicates' jobs, sent in the same statement, are not.
    const orphans = await db().query(
      `SELECT count(*)::int AS count FROM pgboss.job j WHERE j.name = 'process-event' AND NOT EXISTS (SELECT 1 FROM events e WHERE e.id = j.data->>'eventId')`,
    );
    expect(orphans.rows[0].count).toBe(0);
    await waitForEvents(db(), [answers[0]!.json.eventId]);
    expect(scenario.klaviyo.requests.filter((request) => request.path === '/api/profile-import' && (request.body as any).data.attributes.email === email)).toHaveLength(1);
  });
});

describe('abandoned checkouts', () => {
  it('waits the flow\'s wait before a Shopify checkout is processed', async () => {
    const waiting = await ownerWithFlows(scenario, { abandoned_checkout: { waitMinutes: 45 } });
    const before = scenario.testApp.clock.now().getTime();
    const sent = await sendShopifyWebhook(url(waiting.flows.abandoned_checkout.webhookPath), 'checkouts/create', shopifyCheckout(uniqueEmail('wait')), shopifySecret);
    expect(sent.status).toBe(202);
    const { eventId, status } = JSON.parse(sent.text);
    expect(status).toBe('waiting');
    const { rows } = await db().query('SELECT status, process_after FROM events WHERE id = $1', [eventId]);
    expect(rows[0].status).toBe('waiting');
    expect(rows[0].process_after.getTime() - before).toBeGreaterThanOrEqual(45 * 60_000);
    // Its first job only arms the timer (it was sent with the event); once it has run, and
    // been deleted as every finished job is, the event is still waiting.
    await vi.waitFor(
      async () => {
        const job = await db().query(`SELECT state, data FROM pgboss.job WHERE name = 'process-event' AND data->>'eventId' = $1`, [eventId]);
        expect(job.rows).toEqual([]);
      },
      { timeout: 10_000, interval: 50 },
    );
    expect((await db().query('SELECT status FROM events WHERE id = $1', [eventId])).rows[0].status).toBe('waiting');
  });

  it('skips a checkout that was completed, ordered, updated again or deleted when its time comes', async () => {
    const checkoutUrl = url(owner.flows.abandoned_checkout.webhookPath);
    const completed = { ...shopifyCheckout(uniqueEmail('completed')), completed_at: new Date().toISOString() };
    const completedEvent = JSON.parse((await sendShopifyWebhook(checkoutUrl, 'checkouts/update', completed, shopifySecret)).text).eventId;

    const ordered = shopifyCheckout(uniqueEmail('ordered'));
    const order = { ...ordered, id: 5001, checkout_token: ordered.token, token: 'order-token' };
    expect((await sendShopifyWebhook(url(owner.flows.post_purchase.webhookPath), 'orders/create', order, shopifySecret)).status).toBe(202);
    const orderedEvent = JSON.parse((await sendShopifyWebhook(checkoutUrl, 'checkouts/update', ordered, shopifySecret)).text).eventId;

    const deleted = shopifyCheckout(uniqueEmail('deleted'));
    const deletedEvent = JSON.parse((await sendShopifyWebhook(checkoutUrl, 'checkouts/delete', deleted, shopifySecret)).text).eventId;

    const settled = await waitForEvents(db(), [completedEvent, orderedEvent, deletedEvent]);
    expect(settled.get(completedEvent)).toMatchObject({ status: 'skipped', error: eventOutcomeMessages.checkoutCompleted });
    expect(settled.get(orderedEvent)).toMatchObject({ status: 'skipped', error: eventOutcomeMessages.orderPlaced });
    expect(settled.get(deletedEvent)).toMatchObject({ status: 'skipped', error: eventOutcomeMessages.checkoutDeleted });
  });
});
