import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { insertSignedInOwner } from '../support/owner-builder.ts';
import { HttpClient } from '../support/http-client.ts';
import { fillRateLimitWindow } from '../support/rate-limit-uses.ts';
import { isBusyError, retryDelayFor, retryWhenBusy, type ApiRequestError } from '../../src/web/app/api-client.ts';
import { userRateLimits } from '../../src/server/platform/user-rate-limit.ts';
import { authMessages, requestMessages } from '../../src/shared/messages.ts';
import { FlowLoadError, loadFlows, type FlowNotifier } from '../../src/web/flows/use-flows.ts';
import { flowMessages } from '../../src/shared/flows/flow-messages.ts';
import { flowTypes } from '../../src/shared/flows/flow-types.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';
import { endpointAddress } from '../../src/shared/api/endpoint.ts';

/**
 * The browser's loading sequence (docs/product/specification.md §4, "Flow
 * configurations") run against the real server: the web code's relative fetches go to the
 * test app as the owner.
 */
let testApp: TestApp;
/** The fetch that reaches the test app: taken once the app is started, which installs it for its origin. */
let realFetch: typeof fetch;
beforeAll(async () => {
  testApp = await startTestApp();
  realFetch = globalThis.fetch;
});
afterAll(async () => {
  await testApp?.close();
});
beforeEach(() => testApp.clock.advance(61_000));
afterEach(() => {
  vi.unstubAllGlobals();
});

/**
 * Runs web code whose same-origin requests go to the test app with the owner's session;
 * `answers` replaces the server's answer to some of them ("POST /api/flows/initialize").
 */
async function asBrowser<T>(client: HttpClient, work: () => Promise<T>, answers: Record<string, () => Response> = {}): Promise<T> {
  vi.stubGlobal('fetch', async (path: string, init: RequestInit = {}) => {
    const answer = answers[`${init.method ?? 'GET'} ${path}`];
    if (answer) return answer();
    return realFetch(`${testApp.baseUrl}${path}`, { ...init, headers: { ...(init.headers as Record<string, string>), cookie: client.cookieHeader() } });
  });
  try {
    return await work();
  } finally {
    vi.unstubAllGlobals();
  }
}

function recordingNotifier() {
  const notes: Array<[string, string, number?]> = [];
  const notifier: FlowNotifier = {
    info: (message, durationMs) => notes.push(['info', message, durationMs]),
    success: (message) => notes.push(['success', message]),
    error: (message) => notes.push(['error', message]),
  };
  return { notes, notifier };
}

async function owner() {
  const { client } = await insertSignedInOwner(testApp);
  return { client, userId: (await client.call(endpoints.account.session)).json.user.id as string };
}

describe('loading flows in the browser', () => {
  it('initialises the defaults for a new owner without any toast', async () => {
    const { client } = await insertSignedInOwner(testApp);
    const { notes, notifier } = recordingNotifier();
    const flows = await asBrowser(client, () => loadFlows(notifier));
    expect(flows.map((flow) => flow.flowType)).toEqual([...flowTypes]);
    expect(notes).toEqual([]);
  });

  it('announces outdated webhook URLs for 5 seconds, fixes them and reports the count', async () => {
    const { client } = await insertSignedInOwner(testApp);
    const flows = await asBrowser(client, () => loadFlows(recordingNotifier().notifier));
    for (const flowType of ['abandoned_cart', 'post_purchase']) {
      const saved = await client.call(endpoints.flows.update, { params: { flowType }, body: { isActive: true, assistants: flows[0]!.assistants } });
      expect(saved.status).toBe(200);
    }
    const cart = flows.find((flow) => flow.flowType === 'abandoned_cart')!;
    const purchase = flows.find((flow) => flow.flowType === 'post_purchase')!;
    await testApp.database.pool.query('UPDATE flows SET webhook_url = $2 WHERE id = $1', [cart.id, `${testApp.baseUrl}/webhooks/abandoned_cart/${cart.id}`]);
    await testApp.database.pool.query('UPDATE flows SET webhook_url = $2 WHERE id = $1', [purchase.id, `${testApp.baseUrl}/api/api/webhooks/post_purchase/${purchase.id}`]);

    const { notes, notifier } = recordingNotifier();
    const loaded = await asBrowser(client, () => loadFlows(notifier));
    expect(notes).toEqual([
      ['info', 'Some webhook URLs need to be updated to the new format. This will be done automatically.', 5000],
      ['success', 'Updated 2 webhook URLs to the correct format'],
    ]);
    expect(loaded.find((flow) => flow.flowType === 'abandoned_cart')!.webhookUrl).toBe(`${testApp.baseUrl}/api/webhooks/abandoned_cart/${cart.id}`);
    expect(loaded.every((flow) => !flow.webhookUrlOutdated)).toBe(true);
  });

  it("says 'Error loading flow configurations: {msg}' when loading is refused", async () => {
    const { notes, notifier } = recordingNotifier();
    const signedOut = new HttpClient(testApp.baseUrl);
    await expect(asBrowser(signedOut, () => loadFlows(notifier))).rejects.toThrow(new FlowLoadError(flowMessages.loadError(authMessages.notSignedIn)));
    expect(notes).toEqual([['error', `Error loading flow configurations: ${authMessages.notSignedIn}`]]);
  });

  it('raises no error while told to wait by the rate limit: the query waits and asks again', async () => {
    const { client, userId } = await owner();
    await fillRateLimitWindow(testApp.database.pool, userId, 'read', userRateLimits.read, testApp.clock.now());
    const { notes, notifier } = recordingNotifier();
    const refusal = await asBrowser(client, () => loadFlows(notifier)).catch((error: unknown) => error);
    expect(isBusyError(refusal)).toBe(true);
    expect((refusal as ApiRequestError).body.retryAfterSeconds).toBe(60);
    expect(retryWhenBusy(0, refusal as ApiRequestError)).toBe(true);
    expect(retryDelayFor(0, refusal as ApiRequestError)).toBe(60_000);
    expect(notes).toEqual([]);
  });

  it("says 'Error initializing flow configurations: {msg}' when the defaults cannot be created", async () => {
    const { client } = await insertSignedInOwner(testApp);
    const { notes, notifier } = recordingNotifier();
    const refused = () => new Response(JSON.stringify({ error: 'internal', message: requestMessages.internal }), { status: 500 });
    const initialize = `${endpoints.flows.initialize.method} ${endpointAddress(endpoints.flows.initialize)}`;
    await expect(asBrowser(client, () => loadFlows(notifier), { [initialize]: refused })).rejects.toThrow(flowMessages.initializeError(requestMessages.internal));
    expect(notes).toEqual([['error', `Error initializing flow configurations: ${requestMessages.internal}`]]);
  });

  it("says 'Error updating flow: {msg}' when the fix-up is refused, and still shows the flows", async () => {
    const { client } = await insertSignedInOwner(testApp);
    const flows = await asBrowser(client, () => loadFlows(recordingNotifier().notifier));
    await client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: { isActive: true, assistants: flows[0]!.assistants } });
    const cart = flows.find((flow) => flow.flowType === 'abandoned_cart')!;
    await testApp.database.pool.query('UPDATE flows SET webhook_url = $2 WHERE id = $1', [cart.id, `${testApp.baseUrl}/webhooks/abandoned_cart/${cart.id}`]);
    const userId = (await client.call(endpoints.account.session)).json.user.id as string;
    await fillRateLimitWindow(testApp.database.pool, userId, 'write', userRateLimits.write, testApp.clock.now());

    const { notes, notifier } = recordingNotifier();
    const loaded = await asBrowser(client, () => loadFlows(notifier));
    expect(loaded).toHaveLength(4);
    expect(notes).toEqual([
      ['info', flowMessages.webhookUrlsNeedUpdate, 5000],
      ['error', 'Error updating flow: Rate limit exceeded'],
    ]);
  });

  it("says 'Failed to load flow configurations' when something unexpected breaks", async () => {
    // The answer arrives, then reading it fails: neither a refusal nor a lost connection.
    const unreadable = { ok: true, status: 200, headers: new Headers(), text: () => Promise.reject(new Error('the body stream broke')) };
    vi.stubGlobal('fetch', () => Promise.resolve(unreadable));
    const { notes, notifier } = recordingNotifier();
    await expect(loadFlows(notifier)).rejects.toThrow(flowMessages.loadFailed);
    expect(notes).toEqual([['error', 'Failed to load flow configurations']]);
  });
});
