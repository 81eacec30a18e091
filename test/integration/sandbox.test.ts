import { describe, expect, it } from 'vitest';
import { flowTypes, type FlowType } from '../../src/shared/flows/flow-types.ts';
import { sandboxMessages } from '../../src/shared/sandbox/sandbox-messages.ts';
import type { SampleActivityResult, SandboxProfile } from '../../src/shared/sandbox/sandbox-schemas.ts';
import { sampleProducts } from '../../src/server/sandbox/sample-shop.ts';
import { startSandboxListener } from '../../src/server/sandbox/sandbox-listener.ts';
import { createLogger } from '../../src/server/logger.ts';
import { credentialsInput, useEngineScenario, validOpenAIKey, waitForEvents, allStandIns } from '../support/engine-scenario.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { insertSignedInOwner } from '../support/owner-builder.ts';
import type { HttpClient } from '../support/http-client.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';
import { endpointAddress } from '../../src/shared/api/endpoint.ts';

/**
 * The sandbox (docs/decisions/0026-sandbox.md): an owner without any service account
 * runs the real pipeline against the built-in sample shop, sandbox Klaviyo and sample
 * writer. The configured services here are the recording fakes: the sandbox must send
 * them nothing, except OpenAI calls with a key the owner gave.
 */
const scenario = useEngineScenario({ standIns: allStandIns });

const db = () => scenario.testApp.database.pool;

function requestsToRealServices() {
  return { openai: scenario.openai.requests.length, klaviyo: scenario.klaviyo.requests.length, shopify: scenario.shopify.requests.length };
}

async function sandboxOwner(): Promise<HttpClient> {
  const { client } = await insertSignedInOwner(scenario.testApp, { fullName: 'Sam Sandbox', email: uniqueEmail('sandbox') });
  const started = await client.call(endpoints.sandbox.start);
  expect(started.status, started.text).toBe(200);
  expect(started.json).toMatchObject({ active: true, tried: true, writer: 'sample', canUseRealServices: false });
  return client;
}

async function sendActivity(client: HttpClient, flowType?: FlowType): Promise<SampleActivityResult['events']> {
  scenario.testApp.clock.advance(1_000);
  const sent = await client.call(endpoints.sandbox.activity, { body: flowType ? { flowType } : {} });
  expect(sent.status, sent.text).toBe(200);
  return sent.json.events;
}

async function profilesOf(client: HttpClient): Promise<SandboxProfile[]> {
  const answer = await client.call(endpoints.sandbox.profiles);
  expect(answer.status, answer.text).toBe(200);
  return answer.json.profiles;
}

describe('the sandbox', () => {
  it('runs each flow from sample shopper activity to a sample text on a sandbox profile, and sends nothing to the real services', async () => {
    const before = requestsToRealServices();
    const client = await sandboxOwner();
    const events = await sendActivity(client);
    expect(events.map((event) => event.flowType).sort()).toEqual([...flowTypes].sort());
    const settled = await waitForEvents(db(), events.map((event) => event.eventId), { timeoutMs: 20_000 });
    for (const event of events) expect(settled.get(event.eventId), `${event.flowType}: ${settled.get(event.eventId)?.error}`).toMatchObject({ status: 'delivered' });

    const profiles = await profilesOf(client);
    for (const event of events) {
      const profile = profiles.find((candidate) => candidate.email === event.shopperEmail);
      const text = String(profile?.properties.subject_line1 ?? '');
      // The sample writer says what it is, and shows what OpenAI would have been sent:
      // the model and the prompt with the sample shop's product description in it.
      expect(text, event.flowType).toContain(sandboxMessages.sampleTextLabel);
      expect(text).toContain('Model: gpt-5-mini');
      expect(text).toMatch(/Input: Write a subject line for /);
      expect(sampleProducts.some((product) => text.includes(product.description)), text).toBe(true);
    }
    // Names come from the sample shop's orders and checkouts, or the sandbox Klaviyo's list.
    expect(profiles.find((profile) => profile.email === events.find((event) => event.flowType === 'post_purchase')!.shopperEmail)).toMatchObject({ firstName: 'Jonas' });
    expect(requestsToRealServices()).toEqual(before);

    // The event log shows the events, each received within the sandbox period the status names.
    const status = (await client.call(endpoints.sandbox.status)).json;
    expect(status.periods).toHaveLength(1);
    expect(status.periods[0].endedAt).toBeNull();
  });

  it('writes with OpenAI once the owner gives a key, still delivering to the sandbox Klaviyo only', async () => {
    const client = await sandboxOwner();
    const keySaved = await client.call(endpoints.sandbox.openaiKey, { body: { openaiApiKey: validOpenAIKey } });
    expect(keySaved.status, keySaved.text).toBe(200);
    expect(keySaved.json).toMatchObject({ writer: 'openai', sandboxOpenaiKeySet: true });
    const openaiBefore = scenario.openai.responsesRequests().length;
    const klaviyoBefore = scenario.klaviyo.requests.length;
    const shopifyBefore = scenario.shopify.requests.length;

    const [event] = await sendActivity(client, 'abandoned_checkout');
    const settled = await waitForEvents(db(), [event!.eventId], { timeoutMs: 20_000 });
    expect(settled.get(event!.eventId), settled.get(event!.eventId)?.error ?? '').toMatchObject({ status: 'delivered' });

    const calls = scenario.openai.responsesRequests().slice(openaiBefore);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers.authorization).toBe(`Bearer ${validOpenAIKey}`);
    // The standard tier: the sandbox is for seeing texts now (its flows wait 30 minutes, which would otherwise ask for flex).
    expect((calls[0]!.body as { service_tier?: string }).service_tier).toBeUndefined();
    const profile = (await profilesOf(client)).find((candidate) => candidate.email === event!.shopperEmail);
    expect(String(profile?.properties.subject_line1)).toMatch(/^AI\(gpt-5-mini\): Write a subject line for /);
    expect(String(profile?.properties.subject_line1)).not.toContain(sandboxMessages.sampleTextLabel);
    expect(scenario.klaviyo.requests.length).toBe(klaviyoBefore);
    expect(scenario.shopify.requests.length).toBe(shopifyBefore);

    // Taking the key back returns to the sample writer.
    const removed = await client.call(endpoints.sandbox.openaiKey, { body: { openaiApiKey: null } });
    expect(removed.json).toMatchObject({ writer: 'sample', sandboxOpenaiKeySet: false });
  });

  it('keeps every owner to their own sandbox profiles, and signed-out visitors out of the sandbox API', async () => {
    const first = await sandboxOwner();
    const second = await sandboxOwner();
    const events = await sendActivity(first, 'post_purchase');
    await waitForEvents(db(), events.map((event) => event.eventId), { statuses: ['delivered'], timeoutMs: 20_000 });
    expect((await profilesOf(first)).map((profile) => profile.email)).toContain(events[0]!.shopperEmail);
    expect(await profilesOf(second)).toEqual([]);
    // The second owner's sample activity (same sample shoppers) writes their own profiles only.
    const secondEvents = await sendActivity(second, 'post_purchase');
    await waitForEvents(db(), secondEvents.map((event) => event.eventId), { statuses: ['delivered'], timeoutMs: 20_000 });
    expect(await profilesOf(second)).toHaveLength(1);
    expect(await profilesOf(first)).toHaveLength(1);

    // Signed out: no sandbox at all.
    const stranger = await fetch(`${scenario.testApp.baseUrl}${endpointAddress(endpoints.sandbox.profiles)}`);
    expect(stranger.status).toBe(401);
  });

  it('serves the sandbox services on loopback only, to an owner\'s own token only', async () => {
    const listener = await startSandboxListener({ db: db(), clock: scenario.testApp.clock, logger: createLogger('silent') });
    try {
      const { klaviyoBaseUrl, openaiBaseUrl, shopifyShopUrl } = listener.addresses();
      expect(new URL(klaviyoBaseUrl).hostname).toBe('127.0.0.1');
      const first = await sandboxOwner();
      const second = await sandboxOwner();
      const events = await sendActivity(first, 'post_purchase');
      await waitForEvents(db(), events.map((event) => event.eventId), { statuses: ['delivered'], timeoutMs: 20_000 });
      const tokenOf = async (client: HttpClient) => {
        const userId = (await client.call(endpoints.account.session)).json.user.id as string;
        return (await db().query<{ access_token: string }>('SELECT access_token FROM sandbox_accounts WHERE user_id = $1', [userId])).rows[0]!.access_token;
      };
      const lookUp = (token: string) =>
        fetch(`${klaviyoBaseUrl}/api/profiles?filter=${encodeURIComponent(`equals(email,"${events[0]!.shopperEmail}")`)}`, { headers: { authorization: `Klaviyo-API-Key ${token}` } });
      expect(((await (await lookUp(await tokenOf(first))).json()) as { data: unknown[] }).data).toHaveLength(1);
      expect(((await (await lookUp(await tokenOf(second))).json()) as { data: unknown[] }).data).toHaveLength(0);
      expect((await lookUp('sbx_made-up')).status).toBe(401);
      expect((await lookUp('')).status).toBe(401);
      const write = await fetch(`${openaiBaseUrl}/responses`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-someone' }, body: '{"model":"m","input":"x"}' });
      expect(write.status).toBe(401);
      const shop = await fetch(`${shopifyShopUrl}/admin/api/2026-10/graphql.json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ shop { name } }"}' });
      expect(shop.status).toBe(401);
    } finally {
      await listener.close();
    }
  });

  it('switches to the real services in one step once credentials are saved; sandbox events stay in the sandbox', async () => {
    const client = await sandboxOwner();
    const refused = await client.call(endpoints.sandbox.leave);
    expect(refused.status).toBe(409);
    expect(refused.json.message).toBe(sandboxMessages.needCredentials);

    const sandboxEvents = await sendActivity(client, 'post_purchase');
    await waitForEvents(db(), sandboxEvents.map((event) => event.eventId), { statuses: ['delivered'], timeoutMs: 20_000 });
    const saved = await client.call(endpoints.credentials.save, { body: credentialsInput() });
    expect(saved.status, saved.text).toBe(200);
    // In the sandbox with saved credentials: the saved OpenAI key writes, nothing else is real.
    expect((await client.call(endpoints.sandbox.status)).json).toMatchObject({ active: true, writer: 'openai', canUseRealServices: true });

    scenario.testApp.clock.advance(1_000);
    const left = await client.call(endpoints.sandbox.leave);
    expect(left.status, left.text).toBe(200);
    expect(left.json).toMatchObject({ active: false, tried: true });
    const activity = await client.call(endpoints.sandbox.activity, { body: {} });
    expect(activity.status).toBe(409);

    // A sandbox event replayed after the switch still goes to the sandbox Klaviyo.
    const klaviyoBefore = scenario.klaviyo.requests.length;
    scenario.testApp.clock.advance(1_000);
    const replay = await client.call(endpoints.events.replay, { params: { eventId: sandboxEvents[0]!.eventId } });
    expect(replay.status, replay.text).toBeLessThan(300);
    await waitForEvents(db(), [sandboxEvents[0]!.eventId], { statuses: ['delivered'], timeoutMs: 20_000 });
    expect(scenario.klaviyo.requests.length).toBe(klaviyoBefore);

    // A new event now goes to the owner's real Klaviyo (the fake behind KLAVIYO_BASE_URL).
    const flows = (await client.call(endpoints.flows.list)).json.flows as Array<{ flowType: FlowType; webhookUrl: string }>;
    const postPurchase = flows.find((flow) => flow.flowType === 'post_purchase')!;
    scenario.testApp.clock.advance(1_000);
    const body = {
      event_id: `real-${Date.now()}`,
      event_type: 'order_completed',
      timestamp: scenario.testApp.clock.now().toISOString(),
      properties: { customer: { email: 'real.shopper@shop.example', first_name: 'Rita' }, order_id: 'o-1', products: [{ id: 'p-1', name: 'Kettle', price: 20, quantity: 1 }] },
    };
    const posted = await fetch(postPurchase.webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(posted.status).toBe(202);
    const { eventId } = (await posted.json()) as { eventId: string };
    await waitForEvents(db(), [eventId], { statuses: ['delivered'], timeoutMs: 20_000 });
    expect(scenario.klaviyo.requests.slice(klaviyoBefore).some((request) => request.path === '/api/profile-import')).toBe(true);
    expect((await profilesOf(client)).map((profile) => profile.email)).not.toContain('real.shopper@shop.example');
  });
});
