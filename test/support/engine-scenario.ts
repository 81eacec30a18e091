import { createHmac, randomUUID } from 'node:crypto';
import type { DatabaseUpkeepOptions } from '../../src/server/background/database-upkeep.ts';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { startTestApp, type TestApp } from './test-app.ts';
import { uniqueEmail } from './accounts.ts';
import { insertSignedInOwner } from './owner-builder.ts';
import type { HttpClient } from './http-client.ts';
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIOptions } from '../fakes/fake-openai.ts';
import { startFakeKlaviyo, type FakeKlaviyo, type FakeKlaviyoOptions } from '../fakes/fake-klaviyo.ts';
import { startFakeShopify, type FakeShopify, type FakeShopifyOptions } from '../fakes/fake-shopify.ts';
import type { Queryable } from '../../src/server/database/database.ts';
import type { EngineOptions } from '../../src/server/engine/spine/engine.ts';
import type { CredentialsLoader } from '../../src/server/engine/spine/engine-credentials.ts';
import type { FlowType } from '../../src/shared/flows/flow-types.ts';
import type { EventStatus } from '../../src/shared/events/event-statuses.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * The engine's tests and benchmarks share this: the app on real HTTP with fake OpenAI and
 * Klaviyo, owners with configured flows, the sample events of
 * docs/product/specification.md §3, and waiting on the database for events to settle.
 */
export const validOpenAIKey = 'sk-test-valid';
export const validKlaviyoKey = 'pk_test_valid';
export const shopifyToken = 'shpat_engine_test_token_0123456789';
export const shopifySecret = 'shpss_engine_test_secret_0123456789';

/** The service stand-ins a scenario can start; a test names the ones it talks to. */
export type StandIn = 'openai' | 'klaviyo' | 'shopify';
export const allStandIns: readonly StandIn[] = ['openai', 'klaviyo', 'shopify'];
/**
 * Where a service is said to be when its stand-in was not asked for: a port nothing listens
 * on, so a call the test did not expect fails at once instead of reaching the real service.
 */
const unreachable = 'http://127.0.0.1:9';

export interface EngineScenario {
  testApp: TestApp;
  openai: FakeOpenAI;
  klaviyo: FakeKlaviyo;
  shopify: FakeShopify;
  close(): Promise<void>;
}

export async function startEngineScenario(
  options: {
    /** The stand-ins to start (none unless named); a stand-in's options start it too. */
    standIns?: readonly StandIn[];
    openai?: FakeOpenAIOptions;
    klaviyo?: FakeKlaviyoOptions;
    shopify?: FakeShopifyOptions;
    engine?: Partial<EngineOptions>;
    env?: Record<string, string>;
    pixelRateLimitPerMinute?: number;
    loadEngineCredentials?: CredentialsLoader;
    webRoot?: string;
    databaseUpkeep?: Partial<DatabaseUpkeepOptions>;
    /** A real port for the app (test/support/test-app.ts says when a test needs one). */
    listen?: boolean;
    /** An SMTP server for the app's mails. */
    smtp?: boolean;
  } = {},
): Promise<EngineScenario> {
  const wanted = (standIn: StandIn) => Boolean(options.standIns?.includes(standIn) || options[standIn]);
  const openai = wanted('openai') ? await startFakeOpenAI(options.openai) : null;
  const klaviyo = wanted('klaviyo') ? await startFakeKlaviyo(options.klaviyo) : null;
  const shopify = wanted('shopify') ? await startFakeShopify({ accessTokens: [shopifyToken], ...options.shopify }) : null;
  // The deployment's own apps, when the stand-ins have them: the app connects by OAuth, and
  // its callback (known once it listens) is one of the Klaviyo app's redirect URLs.
  const klaviyoApp = options.klaviyo?.oauthApp;
  const shopifyApp = options.shopify?.app;
  const oauthEnv = {
    ...(klaviyoApp ? { KLAVIYO_CLIENT_ID: klaviyoApp.clientId, KLAVIYO_CLIENT_SECRET: klaviyoApp.clientSecret, KLAVIYO_OAUTH_BASE_URL: klaviyo?.baseUrl ?? unreachable } : {}),
    ...(shopifyApp ? { SHOPIFY_API_KEY: shopifyApp.clientId, SHOPIFY_API_SECRET: shopifyApp.clientSecret } : {}),
  };
  const testApp = await startTestApp({
    ...(options.listen ? { listen: true } : {}),
    ...(options.smtp ? { smtp: true } : {}),
    env: {
      OPENAI_BASE_URL: openai?.apiBaseUrl ?? `${unreachable}/v1`,
      KLAVIYO_BASE_URL: klaviyo?.baseUrl ?? unreachable,
      SHOPIFY_BASE_URL: shopify?.baseUrl ?? unreachable,
      ...oauthEnv,
      ...options.env,
    },
    engine: options.engine,
    ...(options.pixelRateLimitPerMinute ? { pixelRateLimitPerMinute: options.pixelRateLimitPerMinute } : {}),
    ...(options.loadEngineCredentials ? { loadEngineCredentials: options.loadEngineCredentials } : {}),
    ...(options.webRoot ? { webRoot: options.webRoot } : {}),
    ...(options.databaseUpkeep ? { databaseUpkeep: options.databaseUpkeep } : {}),
  });
  klaviyoApp?.redirectUris.push(`${testApp.baseUrl}/api/connections/klaviyo/callback`);
  const started = <T>(standIn: StandIn, fake: T | null): T => {
    if (!fake) throw new Error(`this scenario has no ${standIn} stand-in: name it in { standIns: [...] }`);
    return fake;
  };
  return {
    testApp,
    get openai() {
      return started('openai', openai);
    },
    get klaviyo() {
      return started('klaviyo', klaviyo);
    },
    get shopify() {
      return started('shopify', shopify);
    },
    async close() {
      await testApp.close();
      await openai?.close();
      await klaviyo?.close();
      await shopify?.close();
    },
  };
}

/**
 * A test file's one engine scenario: started before its tests, closed after them. The
 * handle reads the running scenario, so a file can name it once at the top. With
 * `eachTest`, the failures a test queued at the stand-ins are cleared before the next
 * test, and the app's clock moves on (past per-minute limits and shopper timers).
 */
export function useEngineScenario(
  options: Parameters<typeof startEngineScenario>[0] = {},
  eachTest: { clearFailures?: boolean; advanceClockMs?: number } = {},
): EngineScenario {
  let started: EngineScenario | null = null;
  beforeAll(async () => {
    started = await startEngineScenario(options);
  });
  afterAll(async () => {
    await started?.close();
  });
  const running = (): EngineScenario => {
    if (!started) throw new Error('the engine scenario starts before the first test (beforeAll)');
    return started;
  };
  if (eachTest.clearFailures || eachTest.advanceClockMs) {
    beforeEach(() => {
      if (eachTest.clearFailures) {
        running().openai.clearFailures();
        running().klaviyo.clearFailures();
      }
      if (eachTest.advanceClockMs) running().testApp.clock.advance(eachTest.advanceClockMs);
    });
  }
  return {
    get testApp() {
      return running().testApp;
    },
    get openai() {
      return running().openai;
    },
    get klaviyo() {
      return running().klaviyo;
    },
    get shopify() {
      return running().shopify;
    },
    close: () => running().close(),
  };
}

export interface FlowSetup {
  isActive?: boolean;
  assistants?: Array<{ name: string; klaviyo_property: string; prompt_template: string; model?: string | null; instructions?: string | null }>;
  waitMinutes?: number;
  klaviyoEventName?: string | null;
  /**
   * The generation cache's window (default here: 0, off). Most engine tests send the same
   * sample event many times and count OpenAI calls or make them fail; a text reused from
   * an earlier test's identical request would skip the call they are about. The cache has
   * its own tests.
   */
  reuseWindowHours?: number;
  /** The flex tier for waits of 15 minutes or more (default here: off, like the cache). */
  useFlexTier?: boolean;
}

/** The environment of a `ROLE=worker` process (engine-worker-process.ts) on the scenario's database and fakes. */
export function workerEnvOf(scenario: EngineScenario, credentialsKey: string): Record<string, string> {
  return {
    DATABASE_URL: scenario.testApp.database.connectionString,
    CREDENTIALS_KEY: credentialsKey,
    OPENAI_BASE_URL: scenario.openai.apiBaseUrl,
    KLAVIYO_BASE_URL: scenario.klaviyo.baseUrl,
    SHOPIFY_BASE_URL: scenario.shopify.baseUrl,
    PUBLIC_URL: scenario.testApp.baseUrl,
  };
}

export const defaultAssistants = [
  { name: 'Subject Line', klaviyo_property: 'subject_line1', prompt_template: 'Write a subject line for {description}' },
  { name: 'Body', klaviyo_property: 'body_copy', prompt_template: 'Write an email for {first_name} about {name} at {price} {currency}' },
];

export interface Owner {
  client: HttpClient;
  userId: string;
  flows: Record<FlowType, { id: string; webhookPath: string }>;
}

/** The credentials form as an owner fills it in, checked live against the fakes. */
export function credentialsInput(overrides: Record<string, unknown> = {}) {
  return {
    klaviyoApiKey: validKlaviyoKey,
    openaiApiKey: validOpenAIKey,
    openaiModel: 'gpt-5-mini',
    shopifyDomain: 'test-shop.myshopify.com',
    shopifyAuthMethod: 'access_token',
    shopifyAccessToken: shopifyToken,
    shopifySigningSecret: shopifySecret,
    ...overrides,
  };
}

/** A signed-up owner with saved credentials (unless `withCredentials` is false) and the given flows configured. */
export async function ownerWithFlows(
  scenario: EngineScenario,
  setups: Partial<Record<FlowType, FlowSetup>>,
  options: { withCredentials?: boolean } = {},
): Promise<Owner> {
  const { client, userId } = await insertSignedInOwner(scenario.testApp, { email: uniqueEmail('engine') });
  if (options.withCredentials ?? true) {
    const saved = await client.call(endpoints.credentials.save, { body: credentialsInput() });
    expect(saved.status, saved.text).toBe(200);
  }
  const initialized = await client.call(endpoints.flows.initialize);
  expect(initialized.status).toBe(200);
  const flows = {} as Owner['flows'];
  for (const flow of initialized.json.flows as Array<{ id: string; flowType: FlowType }>) {
    flows[flow.flowType] = { id: flow.id, webhookPath: `/api/webhooks/${flow.flowType}/${flow.id}` };
  }
  for (const [flowType, setup] of Object.entries(setups) as Array<[FlowType, FlowSetup]>) {
    scenario.testApp.clock.advance(61_000);
    const saved = await client.call(endpoints.flows.update, {
      params: { flowType },
      body: {
        isActive: setup.isActive ?? true,
        assistants: setup.assistants ?? defaultAssistants,
        ...(setup.waitMinutes !== undefined && flowType !== 'post_purchase' ? { waitMinutes: setup.waitMinutes } : {}),
        klaviyoEventName: setup.klaviyoEventName ?? null,
      },
    });
    expect(saved.status, saved.text).toBe(200);
    await scenario.testApp.database.pool.query('UPDATE flows SET reuse_window_hours = $2, use_flex_tier = $3 WHERE id = $1', [
      flows[flowType].id,
      setup.reuseWindowHours ?? 0,
      setup.useFlexTier ?? false,
    ]);
  }
  return { client, userId, flows };
}

const sampleEventTypes: Record<FlowType, string> = {
  browser_abandonment: 'product_viewed',
  abandoned_cart: 'cart_abandoned',
  abandoned_checkout: 'checkout_abandoned',
  post_purchase: 'order_completed',
};

/** The sample test event of a flow type (docs/product/specification.md §3), for one shopper. */
export function sampleEvent(flowType: FlowType, customer: { email?: string | null; first_name?: string; last_name?: string } = {}) {
  const shopper = { email: 'shopper@example.com', first_name: 'Sam', last_name: 'Shopper', ...customer };
  const products = [
    { id: 'prod_1', name: 'Trail Shoe', price: 89.5, quantity: 1, description: 'A light trail running shoe' },
    { id: 'prod_2', name: 'Wool Socks', price: 12, quantity: 2, description: 'Merino socks' },
  ];
  const address = { address1: '1 Main St', city: 'Springfield', state: 'IL', zip: '62701', country: 'US' };
  const common = { event_id: `evt_${randomUUID()}`, event_type: sampleEventTypes[flowType], timestamp: new Date().toISOString() };
  switch (flowType) {
    case 'browser_abandonment':
      return {
        ...common,
        properties: {
          customer: shopper,
          product: { id: 'prod_1', name: 'Trail Shoe', price: 89.5, description: 'A light trail running shoe' },
          page_url: 'https://shop.example/products/trail-shoe',
          time_spent: 120,
        },
      };
    case 'abandoned_cart':
      return { ...common, properties: { customer: shopper, cart_id: 'cart_1', products, total: 113.5, currency: 'USD', abandoned_at: new Date().toISOString() } };
    case 'abandoned_checkout':
      return {
        ...common,
        properties: { customer: shopper, checkout_id: 'chk_1', products, shipping_address: address, total: 113.5, currency: 'USD', abandoned_at: new Date().toISOString() },
      };
    case 'post_purchase':
      return {
        ...common,
        properties: { customer: shopper, order_id: 'ord_1', products, shipping_address: address, total: 113.5, currency: 'USD', purchased_at: new Date().toISOString() },
      };
  }
}

export async function postEvent(baseUrl: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text };
}

/**
 * The X-Flowsmith-Signature a generic sender computes (docs/decisions/0012): written out
 * here as a sender would, not taken from the server's code, so a test of one checks the other.
 */
export function flowsmithSignature(body: string, secret: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

/** Posts a generic event signed with `secret` at `at` (the app's clock in tests). */
export async function postSignedEvent(baseUrl: string, path: string, body: unknown, secret: string, at: Date, headers: Record<string, string> = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return postEvent(baseUrl, path, text, { 'X-Flowsmith-Signature': flowsmithSignature(text, secret, at), ...headers });
}

const settledStatuses: EventStatus[] = ['delivered', 'skipped', 'failed', 'rejected'];

/** Polls the database until every event has one of `statuses` (by default: any final one). */
export async function waitForEvents(db: Queryable, eventIds: string[], options: { statuses?: EventStatus[]; timeoutMs?: number } = {}) {
  const statuses = options.statuses ?? settledStatuses;
  let rows: Array<{ id: string; status: EventStatus; error: string | null; process_after: Date | null }> = [];
  const timeoutMs = options.timeoutMs ?? 15_000;
  try {
    await expect
      .poll(
        async () => {
          rows = (await db.query<(typeof rows)[number]>('SELECT id, status, error, process_after FROM events WHERE id = ANY($1)', [eventIds])).rows;
          return rows.length === eventIds.length && rows.every((row) => statuses.includes(row.status));
        },
        { timeout: timeoutMs, interval: 50 },
      )
      .toBe(true);
  } catch (error) {
    // Where the events stand, so a failure on a busy CI machine can be read from its log.
    const unsettled = rows.filter((row) => !statuses.includes(row.status)).slice(0, 5);
    const described = unsettled.map((row) => `${row.id}: ${row.status}${row.process_after ? ` until ${row.process_after.toISOString()}` : ''}${row.error ? ` (${row.error})` : ''}`);
    throw new Error(`${eventIds.length - rows.length + rows.filter((row) => !statuses.includes(row.status)).length} of ${eventIds.length} events not ${statuses.join('/')} within ${timeoutMs} ms; ${described.join('; ') || 'some not stored'}`, { cause: error });
  }
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * Waits for the events to settle while the app's clock runs 30 s on every 50 ms: for
 * waits the app sleeps through on its own clock (a single write waiting for its rate
 * limit's slot), which the timer sweep of settleOnTheAppClock does not move on.
 */
export async function settleWithClockRunning(scenario: EngineScenario, eventIds: string[], options: { timeoutMs?: number } = {}) {
  const ticking = setInterval(() => scenario.testApp.clock.advance(30_000), 50);
  try {
    return await waitForEvents(scenario.testApp.database.pool, eventIds, { timeoutMs: options.timeoutMs ?? 25_000 });
  } finally {
    clearInterval(ticking);
  }
}

export async function waitForEvent(db: Queryable, eventId: string, options: { statuses?: EventStatus[]; timeoutMs?: number } = {}) {
  return (await waitForEvents(db, [eventId], options)).get(eventId)!;
}

/**
 * Waits for events to settle while moving the app's manual clock on by `stepMs` at a time
 * and running the timer sweep, so scheduled retries (and timers) fall due without any
 * real waiting. Polls the database between steps.
 */
export async function settleOnTheAppClock(
  scenario: EngineScenario,
  eventIds: string[],
  options: { stepMs?: number; timeoutMs?: number; statuses?: EventStatus[] } = {},
) {
  const { testApp } = scenario;
  const statuses = options.statuses ?? settledStatuses;
  let rows: Array<{ id: string; status: EventStatus; error: string | null }> = [];
  await expect
    .poll(
      async () => {
        rows = (await testApp.database.pool.query<{ id: string; status: EventStatus; error: string | null }>('SELECT id, status, error FROM events WHERE id = ANY($1)', [eventIds]))
          .rows;
        if (rows.length === eventIds.length && rows.every((row) => statuses.includes(row.status))) return true;
        if (rows.some((row) => row.status === 'waiting')) {
          testApp.clock.advance(options.stepMs ?? 5_000);
          await testApp.app.engine.fireDueTimers();
        }
        return false;
      },
      { timeout: options.timeoutMs ?? 20_000, interval: 50 },
    )
    .toBe(true);
  return new Map(rows.map((row) => [row.id, row]));
}
