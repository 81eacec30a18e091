import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventOutcomeMessages as outcome } from '../../src/shared/events/event-messages.ts';
import { klaviyoAccountLimits } from '../../src/server/engine/delivery/klaviyo-rate-limiter.ts';
import { reserveShopifyRequestSlot, SHOPIFY_REQUEST_SPACING_MS } from '../../src/server/engine/shop-facts/shop-product-queries.ts';
import { ownerWithFlows, postEvent, sampleEvent, shopifySecret, startEngineScenario, useEngineScenario, waitForEvent, type EngineScenario, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { sendShopifyWebhook } from '../fakes/fake-shopify.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * Our own rate limits (Klaviyo's per account, Shopify's per shop) never hold a worker
 * slot for longer than a second: an event whose next slot is further off waits for it
 * (status `waiting`, the sweep sends its job on the app's clock), and that wait is no
 * failed try. Here the account may write one profile per 10 s, so a second event in a
 * row has to wait about that long.
 */
const PROFILE_WRITE_WINDOW_MS = 10_000;

let owner: Owner;
const scenario = useEngineScenario({
  standIns: allStandIns,
  // The single write's own waiting is what these tests are about, so deliveries do not
  // turn to bulk jobs here (klaviyo-bulk-delivery.test.ts tests those).
  engine: { klaviyoLimits: { ...klaviyoAccountLimits, 'profile-import': [{ limit: 1, windowMs: PROFILE_WRITE_WINDOW_MS }] }, bulkDelivery: false },
});
beforeAll(async () => {
  const oneAssistant = [{ name: 'Subject Line', klaviyo_property: 'subject_line1', prompt_template: 'Write a subject line for {first_name} about {name}' }];
  owner = await ownerWithFlows(scenario, { abandoned_cart: { assistants: oneAssistant }, post_purchase: { assistants: oneAssistant } });
});
beforeEach(() => {
  // Past every window of the test before.
  scenario.testApp.clock.advance(61_000);
});

const db = () => scenario.testApp.database.pool;
const clock = () => scenario.testApp.clock;
const engine = () => scenario.testApp.app.engine;

async function row(eventId: string) {
  const { rows } = await db().query<{ status: string; error: string | null; process_after: Date | null; retry_count: number; retry_progress: number }>(
    'SELECT status, error, process_after, retry_count, retry_progress FROM events WHERE id = $1',
    [eventId],
  );
  return rows[0]!;
}

/** Waits (polling the database) until the event waits for a rate limit. */
/**
 * Fires the timers due now and checks that `eventId`'s was among them: it no longer waits
 * on a time that has come. The app's own sweep (every 100 ms) may fire it first, on a
 * busy machine, so who fired it is not counted.
 */
async function fireDueTimersReleasing(eventId: string) {
  await engine().fireDueTimers();
  const after = await row(eventId);
  expect(after.status === 'waiting' && after.process_after!.getTime() <= clock().now().getTime(), `${eventId} still waits on a due timer`).toBe(false);
}

async function waitingForRateLimit(eventId: string) {
  await expect.poll(async () => (await row(eventId)).error ?? '', { timeout: 10_000, interval: 50 }).toMatch(/^Waiting for .+'s rate limit until/);
  return row(eventId);
}

const profileWrites = (email: string) =>
  scenario.klaviyo.requests.filter((request) => request.path === '/api/profile-import' && (request.body as any).data.attributes.email === email);
const generationsFor = (email: string) => scenario.openai.responsesRequests().filter((request) => JSON.stringify(request.body).includes(email.split('@')[0]!)).length;

async function sendCart(email: string): Promise<string> {
  const event = sampleEvent('abandoned_cart', { email, first_name: email.split('@')[0] });
  const response = await postEvent(scenario.testApp.baseUrl, owner.flows.abandoned_cart.webhookPath, event);
  expect(response.status, response.text).toBe(202);
  return response.json.eventId as string;
}

describe("Klaviyo's per-account limit", () => {
  it('makes an event whose write slot is more than a second off wait for it, without holding a worker slot or counting a try, then delivers it once', async () => {
    const first = uniqueEmail('first');
    expect((await waitForEvent(db(), await sendCart(first))).status).toBe('delivered');
    const slotTakenAt = clock().now().getTime();

    const second = uniqueEmail('second');
    const sentAt = Date.now();
    const eventId = await sendCart(second);
    const waiting = await waitingForRateLimit(eventId);
    // The worker gave its slot up at once instead of sleeping out the 10 s window.
    await expect.poll(() => engine().inFlight(), { timeout: 2_000, interval: 20 }).toBe(0);
    expect(Date.now() - sentAt).toBeLessThan(PROFILE_WRITE_WINDOW_MS / 2);

    expect(waiting).toMatchObject({ status: 'waiting', retry_count: 0, retry_progress: 0 });
    const slotFreesAt = waiting.process_after!.getTime();
    // When the first write leaves the window (counted a little longer than Klaviyo's own).
    expect(slotFreesAt - slotTakenAt).toBeGreaterThanOrEqual(PROFILE_WRITE_WINDOW_MS);
    expect(slotFreesAt - slotTakenAt).toBeLessThan(PROFILE_WRITE_WINDOW_MS * 1.1 + 1_000);
    expect(waiting.error).toBe(outcome.rateLimitWait('Klaviyo', waiting.process_after!));
    const listed = (await owner.client.call(endpoints.events.list, { query: { flowType: 'abandoned_cart' } })).json.events.find((event: { id: string }) => event.id === eventId);
    expect(listed).toMatchObject({ status: 'waiting', waitsUntil: waiting.process_after!.toISOString(), error: waiting.error });
    // The text was generated and kept before the event had to wait; nothing was written yet.
    expect(generationsFor(second)).toBe(1);
    expect(profileWrites(second)).toHaveLength(0);

    // Not before the slot frees, on the app's clock.
    clock().advance(slotFreesAt - 1 - clock().now().getTime());
    expect(await engine().fireDueTimers()).toBe(0);
    clock().advance(1);
    await fireDueTimersReleasing(eventId);
    const delivered = await waitForEvent(db(), eventId);
    expect(delivered).toMatchObject({ status: 'delivered', error: null });
    expect(await row(eventId)).toMatchObject({ retry_count: 0 });
    expect(profileWrites(second)).toHaveLength(1);
    expect(generationsFor(second)).toBe(1);
  });

  it('leaves the tries of a failing step as they were: a wait between two failures does not reset or use one', async () => {
    const first = uniqueEmail('before');
    expect((await waitForEvent(db(), await sendCart(first))).status).toBe('delivered');

    // The next write fails once (503) after waiting for its slot, then goes through.
    const email = uniqueEmail('failing');
    const eventId = await sendCart(email);
    const waiting = await waitingForRateLimit(eventId);
    scenario.klaviyo.failNext({ kind: 'status', status: 503, on: 'profile-import' });
    clock().advance(waiting.process_after!.getTime() - clock().now().getTime());
    await fireDueTimersReleasing(eventId);
    await expect.poll(async () => (await row(eventId)).error ?? '', { timeout: 10_000, interval: 50 }).toContain('Trying again at');
    expect(await row(eventId)).toMatchObject({ status: 'waiting', retry_count: 1 });

    // Its next try is due before the failed write has left the window: it waits again, uncounted.
    clock().advance((await row(eventId)).process_after!.getTime() - clock().now().getTime());
    await fireDueTimersReleasing(eventId);
    const again = await waitingForRateLimit(eventId);
    expect(again).toMatchObject({ status: 'waiting', retry_count: 1 });

    clock().advance(again.process_after!.getTime() - clock().now().getTime());
    await fireDueTimersReleasing(eventId);
    expect(await waitForEvent(db(), eventId)).toMatchObject({ status: 'delivered', error: null });
    expect(profileWrites(email)).toHaveLength(2);
  });
});

describe("Shopify's per-shop request spacing", () => {
  it('makes an event whose product request slot is more than a second off wait for it, then fills the details in', async () => {
    scenario.shopify.setProduct('9101', { title: 'Trail Stove', description: 'A stove that packs small', onlineStoreUrl: null, featuredImage: null });
    // Other callers have taken the shop's next slots, three of them 500 ms apart.
    const now = clock().now();
    for (let taken = 0; taken < 3; taken += 1) await reserveShopifyRequestSlot(db(), 'test-shop.myshopify.com', now);

    const email = uniqueEmail('shop');
    const order = {
      id: Math.floor(Math.random() * 1e9),
      token: `tok_${randomUUID()}`,
      email,
      customer: { email, first_name: 'Kim', last_name: 'Buyer' },
      line_items: [{ title: 'Trail Stove', price: '39.00', quantity: 1, product_id: 9101, variant_id: 910100 }],
      total_price: '39.00',
      currency: 'USD',
      created_at: new Date().toISOString(),
    };
    const sent = await sendShopifyWebhook(`${scenario.testApp.baseUrl}${owner.flows.post_purchase.webhookPath}`, 'orders/create', order, shopifySecret);
    expect(sent.status, sent.text).toBe(202);
    const eventId = JSON.parse(sent.text).eventId as string;

    const waiting = await waitingForRateLimit(eventId);
    expect(waiting).toMatchObject({ status: 'waiting', retry_count: 0 });
    expect(waiting.process_after!.getTime()).toBe(now.getTime() + 3 * SHOPIFY_REQUEST_SPACING_MS);
    expect(waiting.error).toBe(outcome.rateLimitWait('Shopify', waiting.process_after!));
    expect(scenario.klaviyo.profiles.get(email)).toBeUndefined();

    clock().advance(waiting.process_after!.getTime() - clock().now().getTime());
    await fireDueTimersReleasing(eventId);
    expect(await waitForEvent(db(), eventId)).toMatchObject({ status: 'delivered', error: null });
    expect(scenario.klaviyo.profiles.get(email)?.properties.subject_line1).toBeDefined();
    const cached = await db().query('SELECT 1 FROM shopify_product_cache WHERE product_id = $1', ['gid://shopify/Product/9101']);
    expect(cached.rows).toHaveLength(1);
  });
});

describe('a wait shorter than the sweep interval', () => {
  // A write slot two seconds off, and a sweep that would not come for ten minutes: only
  // the worker's own wake-up can bring the event back in time.
  const WINDOW_MS = 2_000;
  let quick: EngineScenario;
  let quickOwner: Owner;
  beforeAll(async () => {
    quick = await startEngineScenario({
      standIns: allStandIns,
      engine: { klaviyoLimits: { ...klaviyoAccountLimits, 'profile-import': [{ limit: 1, windowMs: WINDOW_MS }] }, timerSweepIntervalMs: 600_000, bulkDelivery: false },
    });
    quickOwner = await ownerWithFlows(quick, { abandoned_cart: {} });
  });
  afterAll(async () => {
    await quick?.close();
  });

  it('is come back for by the worker that deferred the event, when the slot frees, without waiting for the next sweep', async () => {
    const send = async (email: string) => {
      const response = await postEvent(quick.testApp.baseUrl, quickOwner.flows.abandoned_cart.webhookPath, sampleEvent('abandoned_cart', { email }));
      expect(response.status, response.text).toBe(202);
      return response.json.eventId as string;
    };
    const pool = quick.testApp.database.pool;
    expect((await waitForEvent(pool, await send(uniqueEmail('quick-first')))).status).toBe('delivered');
    const eventId = await send(uniqueEmail('quick-second'));
    let slotFreesAt = 0;
    await expect
      .poll(
        async () => {
          const { rows } = await pool.query<{ status: string; process_after: Date | null }>('SELECT status, process_after FROM events WHERE id = $1', [eventId]);
          slotFreesAt = rows[0]?.process_after?.getTime() ?? 0;
          return rows[0]?.status;
        },
        { timeout: 10_000, interval: 50 },
      )
      .toBe('waiting');
    // The worker's timer (on the process's clock) fires first, before the app's clock
    // reaches the slot, as it can when the two differ (here, on a busy machine, it once
    // did): the worker must still come back once the app's clock gets there.
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS + 500));
    expect((await pool.query<{ status: string }>('SELECT status FROM events WHERE id = $1', [eventId])).rows[0]!.status).toBe('waiting');
    // The app's clock reaches the slot; nothing here runs the sweep.
    quick.testApp.clock.advance(Math.max(0, slotFreesAt - quick.testApp.clock.now().getTime()));
    expect((await waitForEvent(pool, eventId, { timeoutMs: 10_000 })).status).toBe('delivered');
  });
});
