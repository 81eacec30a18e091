import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sendShopifyWebhook, shopifyCheckoutPayload } from '../fakes/fake-shopify.ts';
import { ownerWithFlows, postEvent, sampleEvent, shopifySecret, useEngineScenario, waitForEvent, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { testDatabaseKind } from '../support/test-database.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { insertSignedInOwner } from '../support/owner-builder.ts';
import type { HttpClient } from '../support/http-client.ts';
import { EventStreamReader } from '../support/event-stream.ts';
import { isProcessingLate } from '../../src/shared/dashboard/dashboard-processing.ts';
import type { DashboardResponse } from '../../src/shared/dashboard/dashboard-schemas.ts';
import { insertEventOnce, newEvent, setEventStatus, type NewEventFields } from '../../src/server/events/event-queries.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';
import { endpointAddress } from '../../src/shared/api/endpoint.ts';

/**
 * GET /api/dashboard: the setup checklist, each flow's state and how processing keeps
 * up, counted from the owner's own events only.
 */
const scenario = useEngineScenario({ standIns: allStandIns, listen: true, pixelRateLimitPerMinute: 1_000 });

const db = () => scenario.testApp.database.pool;

async function dashboardOf(client: HttpClient): Promise<DashboardResponse> {
  const response = await client.call(endpoints.dashboard.read);
  expect(response.status, response.text).toBe(200);
  return response.json as DashboardResponse;
}

const stepsOf = (dashboard: DashboardResponse) => Object.fromEntries(dashboard.setup.map((step) => [step.id, step.done]));
const flowOf = (dashboard: DashboardResponse, flowType: string) => dashboard.flows.find((flow) => flow.flowType === flowType)!;

async function sendAndSettle(owner: Owner, flowType: 'abandoned_cart' | 'post_purchase', event: unknown) {
  scenario.testApp.clock.advance(1_000);
  const response = await postEvent(scenario.testApp.baseUrl, owner.flows[flowType].webhookPath, event);
  expect(response.status, response.text).toBe(202);
  return waitForEvent(db(), response.json.eventId);
}

describe('the dashboard', () => {
  it('shows a new owner everything left to set up and four flows without events', async () => {
    const { client } = await insertSignedInOwner(scenario.testApp, { fullName: 'New Owner', email: uniqueEmail('dash-new') });
    const dashboard = await dashboardOf(client);
    expect(dashboard.setup).toEqual([
      { id: 'keys', done: false },
      { id: 'store', done: false },
      { id: 'pixel', done: false },
      { id: 'event', done: false },
    ]);
    expect(dashboard.flows.map((flow) => flow.flowType)).toEqual(['browser_abandonment', 'abandoned_cart', 'abandoned_checkout', 'post_purchase']);
    for (const flow of dashboard.flows) {
      expect(flow).toMatchObject({ isActive: false, health: 'no_events', lastEvent: null, deliveries24h: 0, failures24h: 0 });
    }
  });

  it('is refused without a session', async () => {
    const response = await fetch(`${scenario.testApp.baseUrl}${endpointAddress(endpoints.dashboard.read)}`);
    expect(response.status).toBe(401);
  });

  it("counts the owner's deliveries and failures, says a flow is failing until it delivers again, and never counts another owner's events", async () => {
    const owner = await ownerWithFlows(scenario, { abandoned_cart: {}, post_purchase: {} });
    const other = await ownerWithFlows(scenario, { abandoned_cart: {}, post_purchase: {} });
    const before = await dashboardOf(owner.client);
    expect(stepsOf(before)).toEqual({ keys: true, store: false, pixel: false, event: false });
    expect(flowOf(before, 'abandoned_cart')).toMatchObject({ isActive: true, health: 'no_events', lastEvent: null });

    // The other owner's delivered and failed events, before and after the owner's own.
    expect((await sendAndSettle(other, 'abandoned_cart', sampleEvent('abandoned_cart', { email: uniqueEmail('other') }))).status).toBe('delivered');
    const delivered = await sendAndSettle(owner, 'abandoned_cart', sampleEvent('abandoned_cart', { email: uniqueEmail('dash') }));
    expect(delivered.status).toBe('delivered');
    let dashboard = await dashboardOf(owner.client);
    expect(stepsOf(dashboard)).toEqual({ keys: true, store: false, pixel: false, event: true });
    expect(flowOf(dashboard, 'abandoned_cart')).toMatchObject({ health: 'working', deliveries24h: 1, failures24h: 0, lastEvent: { status: 'delivered' } });
    expect(flowOf(dashboard, 'post_purchase')).toMatchObject({ health: 'no_events', deliveries24h: 0 });

    // An event with a mistyped email fails: the flow is failing, with one failure.
    const broken = sampleEvent('abandoned_cart') as any;
    broken.properties.customer.email = 12345;
    expect((await sendAndSettle(owner, 'abandoned_cart', broken)).status).toBe('failed');
    const otherBroken = sampleEvent('post_purchase') as any;
    otherBroken.properties.customer.email = 12345;
    expect((await sendAndSettle(other, 'post_purchase', otherBroken)).status).toBe('failed');
    dashboard = await dashboardOf(owner.client);
    expect(flowOf(dashboard, 'abandoned_cart')).toMatchObject({ health: 'failing', deliveries24h: 1, failures24h: 1, lastEvent: { status: 'failed' } });
    expect(flowOf(dashboard, 'post_purchase')).toMatchObject({ health: 'no_events', failures24h: 0, lastEvent: null });

    // A later delivery: working again, the failure still counted for the day.
    expect((await sendAndSettle(owner, 'abandoned_cart', sampleEvent('abandoned_cart', { email: uniqueEmail('again') }))).status).toBe('delivered');
    dashboard = await dashboardOf(owner.client);
    expect(flowOf(dashboard, 'abandoned_cart')).toMatchObject({ health: 'working', deliveries24h: 2, failures24h: 1 });

    // A day later the figures are back to zero and the last event is still shown.
    scenario.testApp.clock.advance(25 * 60 * 60_000);
    dashboard = await dashboardOf(owner.client);
    expect(flowOf(dashboard, 'abandoned_cart')).toMatchObject({ health: 'working', deliveries24h: 0, failures24h: 0, lastEvent: { status: 'delivered' } });
  });

  it("ticks the store off on a verified Shopify webhook and the pixel on the pixel's first event, for that owner only", async () => {
    const owner = await ownerWithFlows(scenario, { abandoned_checkout: { waitMinutes: 60 }, browser_abandonment: { waitMinutes: 60 } });
    const bystander = await ownerWithFlows(scenario, {});

    // A forged Shopify signature proves nothing about the store.
    const url = (path: string) => `${scenario.testApp.baseUrl}${path}`;
    const forged = await sendShopifyWebhook(url(owner.flows.abandoned_checkout.webhookPath), 'checkouts/update', shopifyCheckoutPayload(uniqueEmail('forged')), 'shpss_wrong_secret_0123456789');
    expect(forged.status).toBe(401);
    expect(stepsOf(await dashboardOf(owner.client))).toMatchObject({ store: false, event: true });

    const signed = await sendShopifyWebhook(url(owner.flows.abandoned_checkout.webhookPath), 'checkouts/update', shopifyCheckoutPayload(uniqueEmail('signed')), shopifySecret);
    expect(signed.status).toBe(202);
    expect(stepsOf(await dashboardOf(owner.client))).toEqual({ keys: true, store: true, pixel: false, event: true });

    const pixelUrl = (await owner.client.call(endpoints.flows.pixelAddress)).json.pixelUrl as string;
    const view = await fetch(pixelUrl, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: JSON.stringify({
        name: 'product_viewed',
        id: `sh-${randomUUID()}`,
        timestamp: new Date(scenario.testApp.clock.now().getTime() - 1_000).toISOString(),
        clientId: `client-${randomUUID()}`,
        customer: { email: uniqueEmail('pixel'), firstName: 'Pia', lastName: 'Viewer' },
        cartToken: null,
        url: 'https://shop.example/products/shoe',
        product: { id: '8801', title: 'Trail Shoe', url: 'https://shop.example/products/shoe', price: '89.50', currencyCode: 'USD', quantity: 1 },
      }),
    });
    expect(view.status, await view.text()).toBe(202);
    const done = await dashboardOf(owner.client);
    expect(done.setup.every((step) => step.done)).toBe(true);
    expect(flowOf(done, 'browser_abandonment').lastEvent).not.toBeNull();

    // Nothing of it shows on another owner's checklist.
    expect(stepsOf(await dashboardOf(bystander.client))).toEqual({ keys: true, store: false, pixel: false, event: false });
  });

  it("streams the changes of all the owner's flows in one connection, and none of another owner's", async () => {
    const owner = await ownerWithFlows(scenario, { abandoned_cart: {}, post_purchase: {} });
    const other = await ownerWithFlows(scenario, { abandoned_cart: {} });
    const stream = await EventStreamReader.open(`${scenario.testApp.baseUrl}${endpointAddress(endpoints.stream.all)}`, { cookie: owner.client.cookieHeader() });
    try {
      expect(stream.status).toBe(200);
      const cartEmail = uniqueEmail('stream-cart');
      const orderEmail = uniqueEmail('stream-order');
      const otherEmail = uniqueEmail('stream-other');
      await sendAndSettle(other, 'abandoned_cart', sampleEvent('abandoned_cart', { email: otherEmail }));
      await sendAndSettle(owner, 'abandoned_cart', sampleEvent('abandoned_cart', { email: cartEmail }));
      await sendAndSettle(owner, 'post_purchase', sampleEvent('post_purchase', { email: orderEmail }));
      await expect.poll(() => stream.changesMentioning(cartEmail).length, { timeout: 10_000 }).toBeGreaterThan(0);
      await expect.poll(() => stream.changesMentioning(orderEmail).length, { timeout: 10_000 }).toBeGreaterThan(0);
      expect(stream.changesMentioning(otherEmail)).toEqual([]);
    } finally {
      await stream.close();
    }
    const refused = await fetch(`${scenario.testApp.baseUrl}${endpointAddress(endpoints.stream.all)}`);
    expect(refused.status).toBe(401);
  });

  it("shows the owner's events behind, the oldest one's wait and the last hour's arrivals and finishes, and none of another owner's", async () => {
    const owner = await ownerWithFlows(scenario, {});
    const other = await ownerWithFlows(scenario, {});
    const databaseKind = testDatabaseKind();
    const fresh = (await dashboardOf(owner.client)).processing;
    expect(fresh).toMatchObject({ behind: 0, oldestBehindSeconds: null, arrivedLastHour: 0, finishedLastHour: 0, database: { kind: databaseKind } });
    expect(fresh.database.sizeBytes).toBeGreaterThan(1024 * 1024);
    expect(isProcessingLate(fresh)).toBe(false);

    // Stored directly, without jobs: the running worker leaves them as they are.
    const ago = (seconds: number) => new Date(scenario.testApp.clock.now().getTime() - seconds * 1000);
    const store = async (of: Owner, receivedSecondsAgo: number, fields: Partial<NewEventFields> = {}) => {
      const event = newEvent({
        id: randomUUID(),
        flowId: of.flows.abandoned_cart.id,
        userId: of.userId,
        flowType: 'abandoned_cart',
        source: 'generic',
        status: 'received',
        receivedAt: ago(receivedSecondsAgo),
        ...fields,
      });
      expect((await insertEventOnce(db(), event)).inserted).toBe(true);
      return event.id;
    };
    // The owner's: received 3 min ago, generating since 10 s, a timer not yet due, a
    // rejected request, one skipped on arrival 10 min ago and one two hours ago.
    await store(owner, 180);
    const generating = await store(owner, 10);
    expect(await setEventStatus(db(), { id: generating, attempt: 1 }, 'generating')).toBe(true);
    await store(owner, 60, { status: 'waiting', processAfter: new Date(scenario.testApp.clock.now().getTime() + 30 * 60_000) });
    await store(owner, 30, { status: 'rejected' });
    await store(owner, 600, { status: 'skipped' });
    await store(owner, 7200, { status: 'skipped' });
    // The other owner's, older and more of them.
    await store(other, 1200);
    await store(other, 900);
    await store(other, 20, { status: 'skipped' });

    let processing = (await dashboardOf(owner.client)).processing;
    expect(processing).toMatchObject({ behind: 2, oldestBehindSeconds: 180, arrivedLastHour: 4, finishedLastHour: 1 });
    expect(isProcessingLate(processing)).toBe(false);
    expect((await dashboardOf(other.client)).processing).toMatchObject({ behind: 2, oldestBehindSeconds: 1200, arrivedLastHour: 3, finishedLastHour: 1 });

    // The generating one is delivered (finished on the app's clock, as the worker's now).
    expect(await setEventStatus(db(), { id: generating, attempt: 1 }, 'delivering')).toBe(true);
    expect(await setEventStatus(db(), { id: generating, attempt: 1 }, 'delivered')).toBe(true);
    await db().query('UPDATE events SET finished_at = $2 WHERE id = $1', [generating, scenario.testApp.clock.now()]);
    processing = (await dashboardOf(owner.client)).processing;
    expect(processing).toMatchObject({ behind: 1, oldestBehindSeconds: 180, arrivedLastHour: 4, finishedLastHour: 2 });

    // Three minutes on, the oldest has waited six: past five, a warning.
    scenario.testApp.clock.advance(3 * 60_000);
    processing = (await dashboardOf(owner.client)).processing;
    expect(processing).toMatchObject({ behind: 1, oldestBehindSeconds: 360 });
    expect(isProcessingLate(processing)).toBe(true);
  });
});
