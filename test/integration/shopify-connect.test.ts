import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  defaultAssistants,
  ownerWithFlows,
  shopifySecret,
  shopifyToken,
  startEngineScenario,
  useEngineScenario,
  waitForEvents,
  type EngineScenario,
  type Owner,
  allStandIns,
} from '../support/engine-scenario.ts';
import { defaultGrantedScopes, sendShopifyWebhook, shopifyCheckoutPayload } from '../fakes/fake-shopify.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { shopifyConnectMessages } from '../../src/shared/shopify-connect/shopify-connect-messages.ts';
import { eventOutcomeMessages } from '../../src/shared/events/event-messages.ts';
import { vendorLimitMessages } from '../../src/shared/flows/flow-messages.ts';
import { isPublicAddress } from '../../src/server/shopify-connect/public-address.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';
import { endpointAddress } from '../../src/shared/api/endpoint.ts';

// A public-looking PUBLIC_URL: only judged and written into subscriptions, never called;
// the fake Shopify is reached through SHOPIFY_BASE_URL.
const publicUrl = 'https://hooks.flowsmith-test.example';

let owner: Owner;
const scenario = useEngineScenario({ standIns: allStandIns, env: { PUBLIC_URL: publicUrl } });
beforeAll(async () => {
  owner = await ownerWithFlows(scenario, { abandoned_checkout: {}, post_purchase: {}, abandoned_cart: {}, browser_abandonment: {} });
});
beforeEach(() => scenario.testApp.clock.advance(61_000));

const subscriptionsOf = (flowId: string) =>
  [...scenario.shopify.webhookSubscriptions.values()]
    .filter((subscription) => subscription.uri.endsWith(`/${flowId}`))
    .map((subscription) => `${subscription.topic} ${subscription.uri}`)
    .sort();

describe('connecting the store', () => {
  it("registers each active flow's topics at its URL and leaves other apps' subscriptions alone", async () => {
    scenario.shopify.webhookSubscriptions.set('gid://shopify/WebhookSubscription/other', {
      id: 'gid://shopify/WebhookSubscription/other',
      topic: 'ORDERS_CREATE',
      uri: 'https://other-app.example/hooks/orders',
      includeFields: [],
      format: 'JSON',
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
    });
    const connected = await owner.client.call(endpoints.shopify.connect);
    expect(connected.status, connected.text).toBe(200);
    expect(connected.json).toMatchObject({ created: 6, updated: 0, deleted: 0, unchanged: 0 });
    const url = (flowType: keyof Owner['flows']) => `${publicUrl}${owner.flows[flowType].webhookPath}`;
    expect(subscriptionsOf(owner.flows.abandoned_checkout.id)).toEqual(
      ['CHECKOUTS_CREATE', 'CHECKOUTS_DELETE', 'CHECKOUTS_UPDATE'].map((topic) => `${topic} ${url('abandoned_checkout')}`),
    );
    expect(subscriptionsOf(owner.flows.post_purchase.id)).toEqual([`ORDERS_CREATE ${url('post_purchase')}`]);
    expect(subscriptionsOf(owner.flows.abandoned_cart.id)).toEqual(['CARTS_CREATE', 'CARTS_UPDATE'].map((topic) => `${topic} ${url('abandoned_cart')}`));
    expect(subscriptionsOf(owner.flows.browser_abandonment.id)).toEqual([]);
    expect(scenario.shopify.webhookSubscriptions.get('gid://shopify/WebhookSubscription/other')?.uri).toBe('https://other-app.example/hooks/orders');

    const listed = await owner.client.call(endpoints.shopify.subscriptions);
    expect(listed.status).toBe(200);
    expect(listed.json.configured).toBe(true);
    expect(listed.json.publicAddress).toBe(true);
    expect(listed.json.subscriptions).toHaveLength(6);
    expect(listed.json.subscriptions).toContainEqual(expect.objectContaining({ topic: 'ORDERS_CREATE', url: url('post_purchase'), flowType: 'post_purchase' }));
  });

  it('changes nothing on a second run, and moves a subscription left at an old address', async () => {
    const creates = scenario.shopify.operationCounts.webhookSubscriptionCreate ?? 0;
    const again = await owner.client.call(endpoints.shopify.connect);
    expect(again.json).toMatchObject({ created: 0, updated: 0, deleted: 0, unchanged: 6 });
    expect(scenario.shopify.operationCounts.webhookSubscriptionCreate ?? 0).toBe(creates);

    const order = [...scenario.shopify.webhookSubscriptions.values()].find((subscription) => subscription.uri.endsWith(owner.flows.post_purchase.id))!;
    order.uri = `https://old-address.example${owner.flows.post_purchase.webhookPath}`;
    const moved = await owner.client.call(endpoints.shopify.connect);
    expect(moved.json).toMatchObject({ created: 0, updated: 1, deleted: 0, unchanged: 5 });
    expect(scenario.shopify.webhookSubscriptions.get(order.id)?.uri).toBe(`${publicUrl}${owner.flows.post_purchase.webhookPath}`);
  });

  it("removes a flow's subscriptions once it is switched off", async () => {
    const off = await owner.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: { isActive: false, assistants: defaultAssistants, klaviyoEventName: null } });
    expect(off.status, off.text).toBe(200);
    const connected = await owner.client.call(endpoints.shopify.connect);
    expect(connected.json).toMatchObject({ created: 0, updated: 0, deleted: 2, unchanged: 4 });
    expect(subscriptionsOf(owner.flows.abandoned_cart.id)).toEqual([]);
    expect(subscriptionsOf(owner.flows.post_purchase.id)).toHaveLength(1);
  });

  it("keeps owners apart: one owner's connect neither lists nor touches another's subscriptions", async () => {
    const other = await ownerWithFlows(scenario, { post_purchase: {} });
    const before = subscriptionsOf(owner.flows.post_purchase.id);
    const connected = await other.client.call(endpoints.shopify.connect);
    expect(connected.json).toMatchObject({ created: 1, updated: 0, deleted: 0, unchanged: 0 });
    expect(subscriptionsOf(owner.flows.post_purchase.id)).toEqual(before);
    const listed = await other.client.call(endpoints.shopify.subscriptions);
    expect(listed.json.subscriptions).toEqual([expect.objectContaining({ topic: 'ORDERS_CREATE', url: `${publicUrl}${other.flows.post_purchase.webhookPath}` })]);
    expect((await owner.client.call(endpoints.shopify.subscriptions)).json.subscriptions).toHaveLength(4);
  });

  it('asks for Shopify credentials first, and says what Shopify refused', async () => {
    const bare = await ownerWithFlows(scenario, { post_purchase: {} }, { withCredentials: false });
    const refused = await bare.client.call(endpoints.shopify.connect);
    expect(refused.status).toBe(409);
    expect(refused.json).toEqual({ error: 'shopify_not_configured', message: shopifyConnectMessages.noCredentials });
    expect((await bare.client.call(endpoints.shopify.subscriptions)).json).toEqual({ configured: false, publicAddress: true, addressProblem: null, subscriptions: [] });

    // What the owner reads says what happened and what to do, never how an answer failed to parse.
    scenario.shopify.failNext({ on: 'graphql', kind: 'status', status: 503 });
    const down = await owner.client.call(endpoints.shopify.connect);
    expect(down.status).toBe(502);
    expect(down.json.message).toBe(shopifyConnectMessages.shopifyUnavailable);
    scenario.shopify.failNext({ on: 'graphql', kind: 'graphql-errors' });
    const unreadable = await owner.client.call(endpoints.shopify.subscriptions);
    expect(unreadable.status).toBe(502);
    expect(unreadable.json.message).toBe(shopifyConnectMessages.shopifyUnavailable);
    scenario.shopify.failNext({ on: 'graphql', kind: 'status', status: 401 });
    const refusedKey = await owner.client.call(endpoints.shopify.subscriptions);
    expect(refusedKey.json.message).toBe(shopifyConnectMessages.shopifyRefusedCredentials);
  });

  it("says which access scope the app lacks instead of registering, and gives 403 and 404 answers a final message", async () => {
    const connections = scenario.shopify.operationCounts.webhookSubscriptionCreate ?? 0;
    scenario.shopify.setTokenScopes(shopifyToken, ['read_products']);
    try {
      const missing = await owner.client.call(endpoints.shopify.connect);
      expect(missing.status).toBe(409);
      expect(missing.json).toEqual({ error: 'shopify_missing_scope', message: shopifyConnectMessages.shopifyMissingScopes('read_orders (checkout, order and cart webhooks)', 1) });
      expect(scenario.shopify.operationCounts.webhookSubscriptionCreate ?? 0).toBe(connections);
    } finally {
      scenario.shopify.setTokenScopes(shopifyToken, defaultGrantedScopes);
    }
    // Each permanent answer ends the attempt with its cause; the fake sees one call for each.
    for (const [status, message] of [
      [401, shopifyConnectMessages.shopifyRefusedCredentials],
      [403, shopifyConnectMessages.shopifyForbidden],
      [404, shopifyConnectMessages.shopifyStoreNotFound],
    ] as const) {
      const calls = scenario.shopify.counts.graphql;
      scenario.shopify.failNext({ on: 'graphql', kind: 'status', status });
      const answer = await owner.client.call(endpoints.shopify.connect);
      expect(answer.status, String(status)).toBe(502);
      expect(answer.json.message).toBe(message);
      expect(scenario.shopify.counts.graphql - calls, String(status)).toBe(1);
    }
  });

  it('requires signing in', async () => {
    const response = await fetch(`${scenario.testApp.baseUrl}${endpointAddress(endpoints.shopify.subscriptions)}`);
    expect(response.status).toBe(401);
  });

  it('moves the subscriptions to the new URL after the owner rotates it, and never registers the old one', async () => {
    const rotated = await owner.client.call(endpoints.flows.rotateWebhookUrl, { params: { flowType: 'post_purchase' }, body: { graceMinutes: 60 } });
    expect(rotated.status, rotated.text).toBe(200);
    const newUrl: string = rotated.json.flow.webhookUrl;
    expect(newUrl).not.toContain(owner.flows.post_purchase.id);
    const moved = await owner.client.call(endpoints.shopify.connect);
    expect(moved.json).toMatchObject({ created: 0, updated: 1, deleted: 0 });
    const ownersOrders = [...scenario.shopify.webhookSubscriptions.values()].filter(
      (subscription) => subscription.topic === 'ORDERS_CREATE' && (subscription.uri === newUrl || subscription.uri.endsWith(`/${owner.flows.post_purchase.id}`)),
    );
    expect(ownersOrders.map((subscription) => subscription.uri)).toEqual([newUrl]);
    const again = await owner.client.call(endpoints.shopify.connect);
    expect(again.json).toMatchObject({ created: 0, updated: 0, deleted: 0 });
  });
});

/** A subscription as an earlier version of the app (or the owner, by hand) left it in the shop. */
function registerInShop(topic: string, uri: string): string {
  const id = `gid://shopify/WebhookSubscription/earlier-${randomUUID()}`;
  const stamp = new Date().toISOString();
  scenario.shopify.webhookSubscriptions.set(id, { id, topic, uri, includeFields: [], format: 'JSON', createdAt: stamp, updatedAt: stamp });
  return id;
}

/** The owner's subscriptions in the shop, by the flow their path names. */
const ownersSubscriptions = (shop: Owner) => {
  const flowIds = Object.values(shop.flows).map((flow) => flow.id);
  return [...scenario.shopify.webhookSubscriptions.values()].filter((subscription) => flowIds.some((id) => subscription.uri.endsWith(`/${id}`)));
};
const topicsAndAddresses = (shop: Owner) => ownersSubscriptions(shop).map((subscription) => `${subscription.topic} ${subscription.uri}`).sort();

describe('orders end every abandonment timer, whichever flows are on', () => {
  const waitMinutes = 30;
  let shop: Owner;
  const url = (flowType: keyof Owner['flows']) => `${publicUrl}${shop.flows[flowType].webhookPath}`;
  beforeAll(async () => {
    shop = await ownerWithFlows(scenario, { abandoned_checkout: { waitMinutes } });
  });

  /** Shopify delivering `topic` to the address the shop has for it among the owner's flows (this app under its public name). */
  async function deliver(topic: string, payload: unknown): Promise<string> {
    const subscriptions = ownersSubscriptions(shop).filter((subscription) => subscription.topic === topic.toUpperCase().replace('/', '_'));
    expect(subscriptions, topic).toHaveLength(1);
    scenario.testApp.clock.advance(1_000);
    const sent = await sendShopifyWebhook(subscriptions[0]!.uri.replace(publicUrl, scenario.testApp.baseUrl), topic, payload, shopifySecret);
    expect(sent.status, sent.text).toBe(202);
    return JSON.parse(sent.text).eventId as string;
  }

  it("registers ORDERS_CREATE at the checkout flow while Post Purchase is off, so an order ends the checkout's timer with nothing written or sent", async () => {
    const connected = await shop.client.call(endpoints.shopify.connect);
    expect(connected.status, connected.text).toBe(200);
    expect(connected.json).toMatchObject({ created: 4, updated: 0, deleted: 0, unchanged: 0 });
    expect(topicsAndAddresses(shop)).toEqual(['CHECKOUTS_CREATE', 'CHECKOUTS_DELETE', 'CHECKOUTS_UPDATE', 'ORDERS_CREATE'].map((topic) => `${topic} ${url('abandoned_checkout')}`));

    // A checkout, then its order three seconds later, each where the shop delivers it.
    const email = uniqueEmail('bought-at-once');
    const checkout = shopifyCheckoutPayload(email, { updated_at: new Date(scenario.testApp.clock.now().getTime() - 1_000).toISOString() });
    const checkoutEvent = await deliver('checkouts/create', checkout);
    await waitForEvents(scenario.testApp.database.pool, [checkoutEvent], { statuses: ['waiting'] });
    scenario.testApp.clock.advance(2_000);
    const order = { ...checkout, id: Math.floor(Math.random() * 1e12), checkout_token: checkout.token, token: `order_${randomUUID()}`, created_at: scenario.testApp.clock.now().toISOString() };
    const orderEvent = await deliver('orders/create', order);

    const settled = await waitForEvents(scenario.testApp.database.pool, [checkoutEvent, orderEvent]);
    expect(settled.get(checkoutEvent)).toMatchObject({ status: 'skipped', error: eventOutcomeMessages.orderPlaced });
    expect(settled.get(orderEvent)).toMatchObject({ status: 'skipped', error: eventOutcomeMessages.signalOnly('orders/create', 'abandoned_checkout') });

    // The wait passes: the timer stays ended, and neither event wrote a text or reached Klaviyo.
    scenario.testApp.clock.advance((waitMinutes + 1) * 60_000);
    await scenario.testApp.app.engine.fireDueTimers();
    expect((await waitForEvents(scenario.testApp.database.pool, [checkoutEvent])).get(checkoutEvent)).toMatchObject({ status: 'skipped' });
    const db = scenario.testApp.database.pool;
    expect((await db.query('SELECT 1 FROM event_generations WHERE event_id = ANY($1)', [[checkoutEvent, orderEvent]])).rowCount).toBe(0);
    expect((await db.query('SELECT 1 FROM event_deliveries WHERE event_id = ANY($1)', [[checkoutEvent, orderEvent]])).rowCount).toBe(0);
    expect(scenario.klaviyo.requests.filter((request) => JSON.stringify(request.body ?? '').includes(email))).toEqual([]);
  });

  it('moves the order topic to Post Purchase once it is switched on, and back when it is off, never leaving two', async () => {
    const before = ownersSubscriptions(shop).find((subscription) => subscription.topic === 'ORDERS_CREATE');
    const on = await shop.client.call(endpoints.flows.update, { params: { flowType: 'post_purchase' }, body: { isActive: true, assistants: defaultAssistants, klaviyoEventName: null } });
    expect(on.status, on.text).toBe(200);
    const moved = await shop.client.call(endpoints.shopify.connect);
    expect(moved.status, moved.text).toBe(200);
    expect(moved.json).toMatchObject({ created: 0, updated: 1, deleted: 0, unchanged: 3 });
    const orders = ownersSubscriptions(shop).filter((subscription) => subscription.topic === 'ORDERS_CREATE');
    expect(orders.map((subscription) => subscription.uri)).toEqual([url('post_purchase')]);
    expect(orders[0]!.id).toBe(before?.id);

    const off = await shop.client.call(endpoints.flows.update, { params: { flowType: 'post_purchase' }, body: { isActive: false, assistants: defaultAssistants, klaviyoEventName: null } });
    expect(off.status, off.text).toBe(200);
    const back = await shop.client.call(endpoints.shopify.connect);
    expect(back.json).toMatchObject({ created: 0, updated: 1, deleted: 0, unchanged: 3 });
    expect(topicsAndAddresses(shop).filter((line) => line.startsWith('ORDERS_'))).toEqual([`ORDERS_CREATE ${url('abandoned_checkout')}`]);
  });

  it("puts an earlier version's subscriptions right: the missing order topic, a stale address, a duplicate and a switched-off flow's topic", async () => {
    const earlier = await ownerWithFlows(scenario, { abandoned_checkout: { waitMinutes } });
    const current = (flowType: keyof Owner['flows']) => `${publicUrl}${earlier.flows[flowType].webhookPath}`;
    const oldAddress = (flowType: keyof Owner['flows']) => `https://old-host.example${earlier.flows[flowType].webhookPath}`;
    const staleCreate = registerInShop('CHECKOUTS_CREATE', oldAddress('abandoned_checkout'));
    registerInShop('CHECKOUTS_UPDATE', oldAddress('abandoned_checkout'));
    registerInShop('CHECKOUTS_UPDATE', current('abandoned_checkout'));
    registerInShop('CHECKOUTS_DELETE', current('abandoned_checkout'));
    registerInShop('CARTS_CREATE', current('abandoned_cart'));

    const listed = await earlier.client.call(endpoints.shopify.subscriptions);
    expect(listed.json.subscriptions).toContainEqual(expect.objectContaining({ id: staleCreate, atCurrentAddress: false }));

    const connected = await earlier.client.call(endpoints.shopify.connect);
    expect(connected.status, connected.text).toBe(200);
    expect(connected.json).toMatchObject({ created: 1, updated: 1, deleted: 2, unchanged: 2 });
    expect(topicsAndAddresses(earlier)).toEqual(['CHECKOUTS_CREATE', 'CHECKOUTS_DELETE', 'CHECKOUTS_UPDATE', 'ORDERS_CREATE'].map((topic) => `${topic} ${current('abandoned_checkout')}`));
    expect(scenario.shopify.webhookSubscriptions.get(staleCreate)?.uri).toBe(current('abandoned_checkout'));
    expect((await earlier.client.call(endpoints.shopify.subscriptions)).json.subscriptions.every((subscription: { atCurrentAddress: boolean }) => subscription.atCurrentAddress)).toBe(true);

    const again = await earlier.client.call(endpoints.shopify.connect);
    expect(again.json).toMatchObject({ created: 0, updated: 0, deleted: 0, unchanged: 4 });
  });
});

describe('a PUBLIC_URL Shopify cannot reach', () => {
  let local: EngineScenario;
  beforeAll(async () => {
    // A loopback PUBLIC_URL, as a development machine has: judged only, never called.
    local = await startEngineScenario({ standIns: allStandIns, env: { PUBLIC_URL: 'http://127.0.0.1:3000' } });
  });
  afterAll(async () => {
    await local?.close();
  });

  it('is refused with the message, and nothing is registered', async () => {
    const localOwner = await ownerWithFlows(local, { post_purchase: {} });
    const graphqlCalls = local.shopify.counts.graphql;
    const refused = await localOwner.client.call(endpoints.shopify.connect);
    expect(refused.status).toBe(409);
    expect(refused.json).toEqual({ error: 'not_public', message: 'Shopify can only deliver webhooks to a public address. Set PUBLIC_URL to the address your store can reach.' });
    expect(local.shopify.counts.graphql).toBe(graphqlCalls);
    expect(local.shopify.webhookSubscriptions.size).toBe(0);
    expect((await localOwner.client.call(endpoints.shopify.subscriptions)).json.publicAddress).toBe(false);
  });

  it('is refused in words when it is public but not https://, which is all Shopify registers', async () => {
    const plain = await startEngineScenario({ standIns: allStandIns, env: { PUBLIC_URL: 'http://hooks.flowsmith-test.example' } });
    try {
      const plainOwner = await ownerWithFlows(plain, { post_purchase: {} });
      const graphqlCalls = plain.shopify.counts.graphql;
      const refused = await plainOwner.client.call(endpoints.shopify.connect);
      expect(refused.status).toBe(409);
      expect(refused.json).toEqual({ error: 'not_public', message: vendorLimitMessages.shopifyWebhookNeedsHttps });
      expect(plain.shopify.counts.graphql).toBe(graphqlCalls);
      expect((await plainOwner.client.call(endpoints.shopify.subscriptions)).json).toMatchObject({ publicAddress: false, addressProblem: vendorLimitMessages.shopifyWebhookNeedsHttps });
    } finally {
      await plain.close();
    }
  });

  it('is judged from the address alone', () => {
    for (const url of ['http://localhost:3000', 'http://127.0.0.1:3000', 'http://[::1]:3000', 'http://10.1.2.3', 'http://172.20.0.5', 'http://192.168.1.10', 'http://shop.local', 'http://0.0.0.0:3000', 'http://[fd00::1]']) {
      expect(isPublicAddress(url), url).toBe(false);
    }
    for (const url of ['https://flowsmith.example.com', 'http://203.0.113.7', 'http://172.32.0.1', 'https://[2001:db8::1]']) {
      expect(isPublicAddress(url), url).toBe(true);
    }
  });
});
