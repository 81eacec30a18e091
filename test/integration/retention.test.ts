import { describe, expect, it } from 'vitest';
import { ownerWithFlows, postEvent, sampleEvent, shopifySecret, useEngineScenario, waitForEvent, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { sendShopifyWebhook, shopifyCheckoutPayload } from '../fakes/fake-shopify.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { retentionMessages } from '../../src/shared/retention/retention-messages.ts';
import { scheduleOf, sendScheduledJob } from '../support/scheduled-jobs.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';
import { endpointAddress } from '../../src/shared/api/endpoint.ts';

/**
 * The retention job (docs/decisions/0029-retention-and-account-deletion.md): each owner's
 * events older than their own period go, with everything that hangs off them; younger
 * ones, and other owners' within their period, stay.
 */
const scenario = useEngineScenario({ standIns: allStandIns });

const DAY_MS = 24 * 60 * 60 * 1000;
const db = () => scenario.testApp.database.pool;
const clock = () => scenario.testApp.clock;

/** Posts one order event at the app clock's time and waits for its delivery. */
async function deliveredEvent(owner: Owner, shopper: string): Promise<{ id: string; receivedAt: number }> {
  const response = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: `${shopper}@example.com` }));
  expect(response.status, response.text).toBe(202);
  const eventId = response.json.eventId as string;
  const event = await waitForEvent(db(), eventId);
  expect(event.status, event.error ?? '').toBe('delivered');
  const { rows } = await db().query<{ received_at: Date }>('SELECT received_at FROM events WHERE id = $1', [eventId]);
  return { id: eventId, receivedAt: rows[0]!.received_at.getTime() };
}

/** Moves the app clock to `at` (never back). */
function clockTo(at: number) {
  const delta = at - clock().now().getTime();
  expect(delta).toBeGreaterThanOrEqual(0);
  clock().advance(delta);
}

async function rowsOf(eventIds: string[]) {
  const count = async (table: string) =>
    (await db().query<{ event_id: string }>(`SELECT DISTINCT event_id FROM ${table} WHERE event_id = ANY($1::text[])`, [eventIds])).rows.map((row) => row.event_id).sort();
  return {
    events: (await db().query<{ id: string }>('SELECT id FROM events WHERE id = ANY($1::text[])', [eventIds])).rows.map((row) => row.id).sort(),
    generations: await count('event_generations'),
    deliveries: await count('event_deliveries'),
    capPasses: await count('event_cap_passes'),
    cooldowns: await count('shopper_generation_cooldowns'),
  };
}

describe('the retention setting', () => {
  it('is 30 days until the owner changes it, and takes whole days from 1 to 365', async () => {
    const owner = await ownerWithFlows(scenario, {}, { withCredentials: false });
    expect((await owner.client.call(endpoints.retention.read)).json).toEqual({ retentionDays: 30 });
    for (const retentionDays of [0, 366, 1.5, -3, '30', null]) {
      const refused = await owner.client.call(endpoints.retention.save, { body: { retentionDays } });
      expect(refused.status, JSON.stringify(retentionDays)).toBe(400);
      expect(refused.json.message).toBe(retentionMessages.daysInvalid);
    }
    expect((await owner.client.call(endpoints.retention.save, { body: {} })).status).toBe(400);
    expect((await owner.client.call(endpoints.retention.read)).json).toEqual({ retentionDays: 30 });
    for (const retentionDays of [1, 365, 7]) {
      const saved = await owner.client.call(endpoints.retention.save, { body: { retentionDays } });
      expect(saved.status, saved.text).toBe(200);
      expect((await owner.client.call(endpoints.retention.read)).json).toEqual({ retentionDays });
    }
  });

  it('is the owner’s own', async () => {
    const response = await fetch(`${scenario.testApp.baseUrl}${endpointAddress(endpoints.retention.read)}`);
    expect(response.status).toBe(401);
  });
});

describe('the retention job', () => {
  it('deletes exactly what is older than each owner’s period, and everything hanging off it', async () => {
    const keeper = await ownerWithFlows(scenario, { post_purchase: {} });
    const brief = await ownerWithFlows(scenario, { post_purchase: {} });
    expect((await brief.client.call(endpoints.retention.save, { body: { retentionDays: 2 } })).status).toBe(200);

    // Each owner: one event, one a millisecond later, one another millisecond later.
    const keeperEvents = [];
    const briefEvents = [];
    for (let index = 0; index < 3; index += 1) {
      keeperEvents.push(await deliveredEvent(keeper, `keeper-${index}`));
      clock().advance(1);
    }
    clock().advance(60_000);
    for (let index = 0; index < 3; index += 1) {
      briefEvents.push(await deliveredEvent(brief, `brief-${index}`));
      clock().advance(1);
    }
    expect(new Set(keeperEvents.map((event) => event.receivedAt)).size).toBe(3);
    expect(new Set(briefEvents.map((event) => event.receivedAt)).size).toBe(3);

    // Finished bulk jobs hold no shopper data but name the owner; an old one goes, a new one stays.
    // The open one's lease runs far ahead: with an expired lease the app's own batch worker
    // would take it over and finish it (an empty batch) before the retention runs.
    await db().query(
      `INSERT INTO klaviyo_batches (id, user_id, status, lease_until, created_at) VALUES
         ('batch-old', $1, 'done', $2, $2), ('batch-new', $1, 'done', $3, $3), ('batch-open', $1, 'importing', $4, $2)`,
      [brief.userId, new Date(briefEvents[0]!.receivedAt - 1), new Date(briefEvents[2]!.receivedAt), new Date('2100-01-01T00:00:00Z')],
    );
    const all = (events: Array<{ id: string }>) => events.map((event) => event.id).sort();
    const before = await rowsOf([...all(keeperEvents), ...all(briefEvents)]);
    expect(before.events).toHaveLength(6);
    expect(before.generations).toHaveLength(6);
    expect(before.deliveries).toHaveLength(6);
    expect(before.capPasses).toHaveLength(6);
    expect(before.cooldowns).toHaveLength(6);

    // The brief owner's middle event is exactly 2 days old: the first is a millisecond older, the last a millisecond younger.
    clockTo(briefEvents[1]!.receivedAt + 2 * DAY_MS);
    await scenario.testApp.app.retention.runOnce();
    const briefKept = all(briefEvents.slice(1));
    expect(await rowsOf(all(briefEvents))).toEqual({ events: briefKept, generations: briefKept, deliveries: briefKept, capPasses: briefKept, cooldowns: briefKept });
    // The other owner's events are two days old too, well within their 30.
    expect(await rowsOf(all(keeperEvents))).toEqual({ events: all(keeperEvents), generations: all(keeperEvents), deliveries: all(keeperEvents), capPasses: all(keeperEvents), cooldowns: all(keeperEvents) });
    const batches = await db().query<{ id: string }>('SELECT id FROM klaviyo_batches WHERE user_id = $1 ORDER BY id', [brief.userId]);
    expect(batches.rows.map((row) => row.id)).toEqual(['batch-new', 'batch-open']);

    // The keeper's 30 days, by the same rule: only the oldest goes.
    clockTo(keeperEvents[1]!.receivedAt + 30 * DAY_MS);
    await scenario.testApp.app.retention.runOnce();
    const keeperKept = all(keeperEvents.slice(1));
    expect(await rowsOf(all(keeperEvents))).toEqual({ events: keeperKept, generations: keeperKept, deliveries: keeperKept, capPasses: keeperKept, cooldowns: keeperKept });
    // By now everything of the brief owner is older than 2 days.
    expect(await rowsOf(all(briefEvents))).toEqual({ events: [], generations: [], deliveries: [], capPasses: [], cooldowns: [] });

    // The event log no longer lists what is gone.
    const log = await keeper.client.call(endpoints.events.list, { query: { flowType: 'post_purchase' } });
    expect(log.status, log.text).toBe(200);
    expect(JSON.stringify(log.json)).not.toContain(keeperEvents[0]!.id);
    expect(JSON.stringify(log.json)).toContain(keeperEvents[1]!.id);
  });

  it('deletes in bounded batches until nothing old is left', async () => {
    const owner = await ownerWithFlows(scenario, { post_purchase: {} }, { withCredentials: false });
    expect((await owner.client.call(endpoints.retention.save, { body: { retentionDays: 1 } })).status).toBe(200);
    const { runRetention } = await import('../../src/server/retention/retention.ts');
    const first = clock().now().getTime();
    const ids = [];
    for (let index = 0; index < 7; index += 1) {
      const response = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: `batch-${index}@example.com` }));
      expect(response.status, response.text).toBe(202);
      ids.push(response.json.eventId as string);
      clock().advance(1);
    }
    for (const id of ids) await waitForEvent(db(), id, { statuses: ['failed', 'delivered', 'skipped'] });
    clockTo(first + DAY_MS + 60_000);
    const result = await runRetention(db(), clock().now(), { batchSize: 2 });
    expect(result.events).toBeGreaterThanOrEqual(7);
    expect((await rowsOf(ids)).events).toEqual([]);
  });
});

describe('experiments past the period', () => {
  it('forget the shoppers of an ended experiment and keep its counts, while a running one keeps its shoppers in their groups', async () => {
    const ended = await ownerWithFlows(scenario, { post_purchase: {} });
    const running = await ownerWithFlows(scenario, { post_purchase: {} });
    const body = 'Write an email for {first_name} about {name}';
    const arms = [
      { prompts: { subject_line1: 'Write a subject line for {description}', body_copy: body } },
      { prompts: { subject_line1: 'Write a short subject line for {description}', body_copy: body } },
    ];
    for (const owner of [ended, running]) {
      expect((await owner.client.call(endpoints.retention.save, { body: { retentionDays: 2 } })).status).toBe(200);
      const started = await owner.client.call(endpoints.experiments.setUp, { params: { flowType: 'post_purchase' }, body: { arms, holdoutPercent: 0 } });
      expect(started.status, started.text).toBe(200);
      for (let index = 0; index < 3; index += 1) await deliveredEvent(owner, `${owner.userId}-shopper-${index}`);
    }
    expect((await ended.client.call(endpoints.experiments.stop, { params: { flowType: 'post_purchase' } })).status).toBe(200);
    const keysOf = async (owner: Owner) =>
      (
        await db().query<{ shopper_key: string | null }>(
          'SELECT a.shopper_key FROM experiment_assignments a JOIN flow_experiments x ON x.id = a.experiment_id WHERE x.user_id = $1',
          [owner.userId],
        )
      ).rows.map((row) => row.shopper_key);
    const exposuresOf = async (owner: Owner) => {
      const answer = await owner.client.call(endpoints.experiments.list, { params: { flowType: 'post_purchase' } });
      expect(answer.status, answer.text).toBe(200);
      const experiment = (answer.json.current ?? answer.json.past[0]) as { groups: Array<{ exposures: number }> };
      return experiment.groups.reduce((sum, group) => sum + group.exposures, 0);
    };
    expect(await exposuresOf(ended)).toBe(3);

    // A day on, within the period: nothing is forgotten.
    clock().advance(DAY_MS);
    await scenario.testApp.app.retention.runOnce();
    expect((await keysOf(ended)).filter((key) => key !== null)).toHaveLength(3);

    // Past the period: the ended experiment's shoppers go, its counts stay; the running one's stay.
    clock().advance(DAY_MS + 60_000);
    await scenario.testApp.app.retention.runOnce();
    expect(await keysOf(ended)).toEqual([null, null, null]);
    expect(await exposuresOf(ended)).toBe(3);
    expect((await keysOf(running)).filter((key) => key !== null)).toHaveLength(3);
    expect(await exposuresOf(running)).toBe(3);
  });
});

describe('the scheduled retention job', () => {
  // That it runs only in the roles that process events, never in a web process, is the
  // background module's placement: test/integration/background-roles.test.ts.
  it("is on pg-boss's cron every quarter hour, and a job of that schedule runs a pass in the worker", async () => {
    const { RETENTION_SCHEDULE } = await import('../../src/server/retention/retention.ts');
    expect(await scheduleOf(db(), 'retention')).toEqual([{ cron: RETENTION_SCHEDULE, timezone: 'UTC' }]);
    expect(RETENTION_SCHEDULE).toBe('*/15 * * * *');

    const owner = await ownerWithFlows(scenario, { post_purchase: {} }, { withCredentials: false });
    expect((await owner.client.call(endpoints.retention.save, { body: { retentionDays: 1 } })).status).toBe(200);
    const response = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: uniqueEmail('scheduled') }));
    expect(response.status, response.text).toBe(202);
    const old = response.json.eventId as string;
    clock().advance(DAY_MS + 1);
    expect((await rowsOf([old])).events).toHaveLength(1);
    await sendScheduledJob(db(), 'retention');
    await expect.poll(async () => (await rowsOf([old])).events.length, { timeout: 20_000, interval: 200 }).toBe(0);
  });
});

describe('stored payloads', () => {
  it('keep what the normalised event and the log need, and drop the shopper’s addresses, phone, addresses of their browser and notes', async () => {
    const owner = await ownerWithFlows(scenario, { abandoned_checkout: { waitMinutes: 0 } });
    const email = uniqueEmail('trimmed');
    const address = { first_name: 'Kim', last_name: 'Buyer', address1: '12 Hidden Lane', city: 'Secretville', zip: '99999', phone: '+1 555 0100', country_code: 'US' };
    const payload = {
      ...shopifyCheckoutPayload(email, {
        phone: '+1 555 0199',
        billing_address: address,
        shipping_address: address,
        customer: { email, first_name: 'Kim', last_name: 'Buyer', phone: '+1 555 0111', default_address: address, note: 'VIP, lives alone' },
        browser_ip: '203.0.113.77',
        client_details: { browser_ip: '203.0.113.77', user_agent: 'Mozilla/5.0 (SecretOS)', accept_language: 'en-GB' },
        note: 'Leave behind the blue gate',
        note_attributes: [{ name: 'gift', value: 'for Alex at 4 Other Road' }],
        landing_site: '/?utm=someone',
      }),
      id: '__CHECKOUT_ID__',
    };
    const text = JSON.stringify(payload).replace('"__CHECKOUT_ID__"', '788032119674292999');
    const webhookUrl = `${scenario.testApp.baseUrl}${owner.flows.abandoned_checkout.webhookPath}`;
    const sent = await sendShopifyWebhook(webhookUrl, 'checkouts/update', text, shopifySecret);
    expect(sent.status, sent.text).toBe(202);
    const eventId = JSON.parse(sent.text).eventId as string;
    await waitForEvent(db(), eventId);

    const detail = await owner.client.call(endpoints.events.detail, { params: { eventId } });
    expect(detail.status, detail.text).toBe(200);
    const stored = detail.json.event.rawBody as string;
    for (const dropped of ['Hidden Lane', 'Secretville', '99999', '555 01', '203.0.113.77', 'SecretOS', 'en-GB', 'blue gate', 'Other Road', 'lives alone', 'utm=someone']) {
      expect(stored, dropped).not.toContain(dropped);
    }
    // What the log shows of it: the shopper's email and name, the items, the total, the ids exactly as sent.
    expect(stored).toContain('788032119674292999');
    const kept = JSON.parse(stored);
    expect(kept).toMatchObject({
      email,
      customer: { email, first_name: 'Kim', last_name: 'Buyer' },
      billing_address: { first_name: 'Kim', last_name: 'Buyer' },
      line_items: payload.line_items,
      total_price: '89.50',
      token: payload.token,
      abandoned_checkout_url: payload.abandoned_checkout_url,
    });
    expect(detail.json.event.topic).toBe('checkouts/update');
    expect(detail.json.event.normalized).toMatchObject({ shopper: { email, firstName: 'Kim', lastName: 'Buyer' } });
    // Headers were trimmed before: Shopify's own, never the signature or the sender's browser and address.
    const headerNames = Object.keys(detail.json.event.headers as object);
    expect(headerNames).toContain('x-shopify-topic');
    expect(headerNames.every((name) => name.startsWith('x-shopify-') && name !== 'x-shopify-hmac-sha256')).toBe(true);
  });
});
