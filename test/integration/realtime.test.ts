import path from 'node:path';
import os from 'node:os';
import { mkdtemp, rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server/app.ts';
import { createLogger } from '../../src/server/logger.ts';
import { createMailer } from '../../src/server/mail/mailer.ts';
import { testEngineOptions } from '../support/test-app.ts';
import { uniqueEmail } from '../support/accounts.ts';
import type { HttpClient } from '../support/http-client.ts';
import { EventStreamReader } from '../support/event-stream.ts';
import { ownerWithFlows, postEvent, sampleEvent, startEngineScenario, waitForEvent, type EngineScenario, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { streamChangeSchema, type StreamChange } from '../../src/shared/webhooks/webhook-schemas.ts';
import { dryRunOutcome, webhookConsoleMessages, webhookHandlerMessages } from '../../src/shared/webhooks/webhook-messages.ts';
import { sampleTestEvent } from '../../src/shared/webhooks/sample-events.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';
import { endpointAddress } from '../../src/shared/api/endpoint.ts';

/**
 * The live stream as the console reads it: the session cookie and Last-Event-ID (or its
 * query stand-in) go along; `change` messages are read as the shared schema says.
 */
class StreamReader {
  private readonly reader: EventStreamReader;

  private constructor(reader: EventStreamReader) {
    this.reader = reader;
  }

  static async open(baseUrl: string, client: HttpClient, flowType: string, lastEventId?: string, via: 'header' | 'query' = 'header'): Promise<StreamReader> {
    const query = lastEventId && via === 'query' ? { lastEventId } : {};
    const headers = { cookie: client.cookieHeader(), ...(lastEventId && via === 'header' ? { 'last-event-id': lastEventId } : {}) };
    return new StreamReader(await EventStreamReader.open(`${baseUrl}${endpointAddress(endpoints.stream.flow, { params: { flowType }, query })}`, headers));
  }

  get status(): number {
    return this.reader.status;
  }

  /** The id of the last message, the `ready` one included: where a reconnect resumes. */
  get lastEventId(): string | null {
    return this.reader.messages.findLast((message) => message.id !== null)?.id ?? null;
  }

  get changes(): StreamChange[] {
    return this.reader.messages.filter((message) => message.event === 'change').map((message) => streamChangeSchema.parse(JSON.parse(message.data)));
  }

  statusesOf(eventId: string): string[] {
    return this.changes.filter((change) => change.eventId === eventId).map((change) => change.status);
  }

  /** Resolves when the server ends the stream. */
  ended(): Promise<void> {
    return this.reader.finished();
  }

  close(): Promise<void> {
    return this.reader.close();
  }
}

let scenario: EngineScenario;
let second: { app: FastifyInstance; baseUrl: string; close(): Promise<void> };

/** A second server process on the same database, as a web and a worker role would run. */
async function startSecondInstance(): Promise<typeof second> {
  const { testApp } = scenario;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'flowsmith-second-'));
  const logger = createLogger('info', { write: () => true } as unknown as NodeJS.WritableStream);
  const mailer = createMailer({ smtpUrl: testApp.config.smtpUrl, mailFrom: testApp.config.mailFrom, outboxDir: path.join(dataDir, 'outbox'), logger });
  const app = await buildApp({
    config: { ...testApp.config, dataDir },
    database: testApp.database,
    mailer,
    logger,
    clock: testApp.clock,
    authSecret: 'test-secret-that-is-long-enough-for-hmac-signing',
    accountRateLimitPerMinute: 10_000,
    engine: testEngineOptions,
    // Load shedding off, as on the first instance (test-app.ts): a busy CI machine is not what this tests.
    overload: { maxEventLoopDelayMs: 0 },
    // The same key as the first instance, as processes sharing a deployment have.
    credentialCipher: testApp.app.credentialCipher,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    baseUrl: `http://127.0.0.1:${port}`,
    async close() {
      await app.close();
      mailer.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

beforeAll(async () => {
  // A real port: live event streams.
  scenario = await startEngineScenario({ standIns: allStandIns, listen: true });
  second = await startSecondInstance();
});
afterAll(async () => {
  await second?.close();
  await scenario?.close();
});

const db = () => scenario.testApp.database.pool;

async function newOwner(): Promise<Owner> {
  scenario.testApp.clock.advance(61_000);
  return ownerWithFlows(scenario, { abandoned_cart: {}, post_purchase: {} });
}

describe('the live stream of a flow', () => {
  it('carries an event posted to one instance, and its status changes, to a stream opened on the other', async () => {
    const owner = await newOwner();
    const stream = await StreamReader.open(second.baseUrl, owner.client, 'abandoned_cart');
    expect(stream.status).toBe(200);
    const email = uniqueEmail('stream');
    const event = sampleEvent('abandoned_cart', { email });
    const posted = await postEvent(scenario.testApp.baseUrl, owner.flows.abandoned_cart.webhookPath, event);
    expect(posted.status, posted.text).toBe(202);
    const eventId = posted.json.eventId as string;

    await expect.poll(() => stream.statusesOf(eventId), { timeout: 15_000, interval: 20 }).toEqual(['received', 'generating', 'delivering', 'delivered']);
    expect(stream.changes.filter((change) => change.eventId === eventId).map((change) => change.arrival)).toEqual([true, false, false, false]);
    const received = stream.changes.find((change) => change.eventId === eventId)!;
    expect(received).toMatchObject({ flowType: 'abandoned_cart', source: 'generic', dryRun: false, payload: event });
    const delivered = stream.changes.find((change) => change.eventId === eventId && change.status === 'delivered')!;
    expect(delivered.generations.map((text) => text.klaviyoProperty).sort()).toEqual(['body_copy', 'subject_line1']);
    await stream.close();
  });

  it('never shows one owner the events of another, and needs a session', async () => {
    const first = await newOwner();
    const other = await newOwner();
    const otherStream = await StreamReader.open(scenario.testApp.baseUrl, other.client, 'abandoned_cart');
    const firstStream = await StreamReader.open(scenario.testApp.baseUrl, first.client, 'abandoned_cart');
    const posted = await postEvent(scenario.testApp.baseUrl, first.flows.abandoned_cart.webhookPath, sampleEvent('abandoned_cart', { email: uniqueEmail('first') }));
    const eventId = posted.json.eventId as string;
    await expect.poll(() => firstStream.statusesOf(eventId), { timeout: 15_000, interval: 20 }).toContain('delivered');
    // The other owner's stream is polled by the same feed in the same process; had it
    // matched, it would have the rows by now.
    expect(otherStream.changes).toEqual([]);
    await Promise.all([firstStream.close(), otherStream.close()]);

    const anonymous = await fetch(`${scenario.testApp.baseUrl}${endpointAddress(endpoints.stream.flow, { params: { flowType: 'abandoned_cart' } })}`);
    expect(anonymous.status).toBe(401);
    const unknownType = await first.client.call(endpoints.stream.flow, { params: { flowType: 'not_a_flow' } });
    expect(unknownType.status).toBe(400);
  });

  it('resumes a dropped stream from Last-Event-ID without losing a change', async () => {
    const owner = await newOwner();
    const stream = await StreamReader.open(scenario.testApp.baseUrl, owner.client, 'post_purchase');
    const firstPost = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: uniqueEmail('a') }));
    const firstId = firstPost.json.eventId as string;
    await expect.poll(() => stream.statusesOf(firstId), { timeout: 15_000, interval: 20 }).toContain('received');
    await stream.close();
    const resumeFrom = stream.lastEventId!;

    // While the browser is away: the first event goes on, and two more arrive.
    const more = [];
    for (const email of [uniqueEmail('b'), uniqueEmail('c')]) {
      const posted = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email }));
      more.push(posted.json.eventId as string);
    }
    for (const eventId of [firstId, ...more]) await waitForEvent(db(), eventId);

    const resumed = await StreamReader.open(second.baseUrl, owner.client, 'post_purchase', resumeFrom);
    const [afterTx, afterId] = resumeFrom.split('-');
    const { rows } = await db().query<{ change_id: string }>(
      "SELECT tx || '-' || id AS change_id FROM event_changes WHERE flow_id = $1 AND (tx, id) > ($2::xid8, $3::bigint) ORDER BY tx, id",
      [owner.flows.post_purchase.id, afterTx, afterId],
    );
    expect(rows.length).toBeGreaterThanOrEqual(6);
    await expect.poll(() => resumed.changes.map((change) => change.changeId), { timeout: 10_000, interval: 20 }).toEqual(rows.map((row) => row.change_id));
    expect([...stream.changes, ...resumed.changes].map((change) => change.changeId)).toEqual([...new Set([...stream.changes, ...resumed.changes].map((change) => change.changeId))]);
    for (const eventId of more) expect(resumed.statusesOf(eventId)).toEqual(['received', 'generating', 'delivering', 'delivered']);
    // The console reopens a stream the browser gave up on with the id in the query.
    const reopened = await StreamReader.open(scenario.testApp.baseUrl, owner.client, 'post_purchase', resumeFrom, 'query');
    await expect.poll(() => reopened.changes.map((change) => change.changeId), { timeout: 10_000, interval: 20 }).toEqual(rows.map((row) => row.change_id));
    await reopened.close();
    expect([...stream.statusesOf(firstId), ...resumed.statusesOf(firstId)]).toEqual(['received', 'generating', 'delivering', 'delivered']);
    await resumed.close();
  });
});

describe('shutting down', () => {
  it('ends the open streams, so the server can close', async () => {
    const owner = await newOwner();
    const third = await startSecondInstance();
    const stream = await StreamReader.open(third.baseUrl, owner.client, 'abandoned_cart');
    expect(stream.status).toBe(200);
    await third.close();
    await stream.ended();
  });
});

describe('the console test send', () => {
  it('stores the payload as a test event through the same pipeline, and a dry run never reaches Klaviyo', async () => {
    const owner = await newOwner();
    const stream = await StreamReader.open(scenario.testApp.baseUrl, owner.client, 'abandoned_cart');
    const payload = JSON.stringify(sampleTestEvent('abandoned_cart', new Date(), 'evt_console_1'), null, 2);
    const sent = await owner.client.call(endpoints.webhooks.testSend, { params: { flowType: 'abandoned_cart' }, body: { payload } });
    expect(sent.status, sent.text).toBe(202);
    expect(sent.json).toMatchObject({ success: true, status: 'received', duplicate: false });
    await expect.poll(() => stream.statusesOf(sent.json.eventId), { timeout: 15_000, interval: 20 }).toContain('delivered');
    expect(stream.changes[0]).toMatchObject({ source: 'test', payload: JSON.parse(payload) });
    expect(scenario.klaviyo.profiles.get('customer@example.com')).toBeDefined();

    const dryEmail = uniqueEmail('dry');
    const dryPayload = JSON.stringify({ ...sampleTestEvent('abandoned_cart', new Date(), 'evt_console_dry'), properties: { ...sampleTestEvent('abandoned_cart').properties, customer: { email: dryEmail, first_name: 'Dry', last_name: 'Run' } } });
    const dry = await owner.client.call(endpoints.webhooks.testSend, { params: { flowType: 'abandoned_cart' }, body: { payload: dryPayload, dryRun: true } });
    expect(dry.status, dry.text).toBe(202);
    await expect.poll(() => stream.statusesOf(dry.json.eventId), { timeout: 15_000, interval: 20 }).toEqual(['received', 'generating', 'skipped']);
    const ended = stream.changes.find((change) => change.eventId === dry.json.eventId && change.status === 'skipped')!;
    expect(ended).toMatchObject({ dryRun: true, error: dryRunOutcome });
    expect(ended.generations.find((text) => text.klaviyoProperty === 'subject_line1')?.text).toContain('AI(');
    expect(scenario.klaviyo.profiles.get(dryEmail)).toBeUndefined();
    expect(scenario.klaviyo.requests.some((request) => JSON.stringify(request.body ?? '').includes(dryEmail))).toBe(false);
    await stream.close();
  });

  it('refuses invalid JSON and stores nothing', async () => {
    const owner = await newOwner();
    const before = await db().query('SELECT count(*)::int AS n FROM events WHERE user_id = $1', [owner.userId]);
    for (const payload of ['{"event_id": ', '[1, 2]', '"text"']) {
      const sent = await owner.client.call(endpoints.webhooks.testSend, { params: { flowType: 'abandoned_cart' }, body: { payload } });
      expect(sent.status).toBe(400);
      expect(sent.json.message).toBe(webhookConsoleMessages.invalidJson);
    }
    const after = await db().query('SELECT count(*)::int AS n FROM events WHERE user_id = $1', [owner.userId]);
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });
});

describe('the webhook handler page check', () => {
  it('says whether the flow of a webhook URL exists and is active, and nothing more', async () => {
    const owner = await newOwner();
    const ok = await fetch(`${scenario.testApp.baseUrl}${endpointAddress(endpoints.webhooks.status, { params: { flowType: 'abandoned_cart', flowId: owner.flows.abandoned_cart.id } })}`);
    expect(ok.status).toBe(200);
    const body = await ok.json();
    expect(body).toEqual({ success: true, message: webhookHandlerMessages.active, flowType: 'abandoned_cart', flowId: owner.flows.abandoned_cart.id, timestamp: expect.any(String) });
    const inactive = await fetch(`${scenario.testApp.baseUrl}${endpointAddress(endpoints.webhooks.status, { params: { flowType: 'browser_abandonment', flowId: owner.flows.browser_abandonment.id } })}`);
    expect(await inactive.json()).toMatchObject({ success: false, message: webhookHandlerMessages.inactive });
    for (const [flowType, flowId] of [['abandoned_checkout', owner.flows.abandoned_cart.id], ['abandoned_cart', 'nope']] as const) {
      const missing = await fetch(`${scenario.testApp.baseUrl}${endpointAddress(endpoints.webhooks.status, { params: { flowType, flowId } })}`);
      expect(missing.status).toBe(404);
      expect((await missing.json()).message).toBe(webhookHandlerMessages.notFound);
    }
  });

  it("follows the flow's URL key through a rotation: the new URL is known, the old one not once it stops", async () => {
    const owner = await newOwner();
    const rotated = await owner.client.call(endpoints.flows.rotateWebhookUrl, { params: { flowType: 'abandoned_cart' }, body: { graceMinutes: 0 } });
    expect(rotated.status, rotated.text).toBe(200);
    const newKey = new URL(rotated.json.flow.webhookUrl as string).pathname.split('/').at(-1)!;
    const current = await fetch(`${scenario.testApp.baseUrl}${endpointAddress(endpoints.webhooks.status, { params: { flowType: 'abandoned_cart', flowId: newKey } })}`);
    expect(current.status).toBe(200);
    expect(await current.json()).toMatchObject({ success: true, flowId: newKey });
    const old = await fetch(`${scenario.testApp.baseUrl}${endpointAddress(endpoints.webhooks.status, { params: { flowType: 'abandoned_cart', flowId: owner.flows.abandoned_cart.id } })}`);
    expect(old.status).toBe(404);
  });
});
