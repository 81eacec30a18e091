import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { HttpClient } from '../support/http-client.ts';
import { insertSignedInOwner } from '../support/owner-builder.ts';
import { postEvent, sampleEvent } from '../support/engine-scenario.ts';
import { findFlowById } from '../../src/server/flows/flow-queries.ts';
import { flowMessages, flowValidationMessages as v } from '../../src/shared/flows/flow-messages.ts';
import { authMessages } from '../../src/shared/messages.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(async () => {
  await testApp?.close();
});

const HOUR_MS = 3_600_000;
/** The webhook intake keeps a flow it looked up for at most this long per process. */
const INTAKE_FLOW_CACHE_MS = 1_000;

const configuration = {
  isActive: true,
  assistants: [{ name: 'Subject Line', klaviyo_property: 'subject_line1', prompt_template: 'Write a subject line for {description}' }],
};

/** An owner whose abandoned cart flow is saved and active: its URL takes events. */
async function ownerWithActiveCartFlow() {
  const { client } = await insertSignedInOwner(testApp);
  expect((await client.call(endpoints.flows.initialize)).status).toBe(200);
  const saved = await client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: configuration });
  expect(saved.status).toBe(200);
  return { client, flow: saved.json.flow as { id: string; webhookUrl: string } };
}

const rotate = (client: HttpClient, graceMinutes: unknown) => client.call(endpoints.flows.rotateWebhookUrl, { params: { flowType: 'abandoned_cart' }, body: { graceMinutes } });

async function send(webhookUrl: string): Promise<number> {
  return (await postEvent(testApp.baseUrl, new URL(webhookUrl).pathname, sampleEvent('abandoned_cart'))).status;
}

const webhookUrlPattern = () => new RegExp(`^${testApp.baseUrl}/api/webhooks/abandoned_cart/[A-Za-z0-9_-]{24}$`);

describe('Rotate URL', () => {
  it('gives the flow a new URL at once and keeps the old one working until the grace period ends by the app clock', async () => {
    const { client, flow } = await ownerWithActiveCartFlow();
    const oldUrl = flow.webhookUrl;
    expect(await send(oldUrl)).toBe(202);

    const rotatedAt = testApp.clock.now().getTime();
    const rotated = await rotate(client, 60);
    expect(rotated.status).toBe(200);
    const newUrl = rotated.json.flow.webhookUrl as string;
    expect(newUrl).toMatch(webhookUrlPattern());
    expect(newUrl).not.toBe(oldUrl);
    expect(rotated.json.flow).toMatchObject({
      id: flow.id,
      generatedWebhookUrl: newUrl,
      webhookUrlOutdated: false,
      previousWebhookUrlValidUntil: new Date(rotatedAt + HOUR_MS).toISOString(),
    });
    // The replaced URL is not handed out again: only until when it works.
    expect(JSON.stringify(rotated.json)).not.toContain(new URL(oldUrl).pathname);

    expect(await send(newUrl)).toBe(202);
    expect(await send(oldUrl)).toBe(202);
    const listed = (await client.call(endpoints.flows.list)).json.flows.find((candidate: any) => candidate.flowType === 'abandoned_cart');
    expect(listed).toMatchObject({ webhookUrl: newUrl, previousWebhookUrlValidUntil: new Date(rotatedAt + HOUR_MS).toISOString() });

    testApp.clock.advance(HOUR_MS - 1_000);
    expect(await send(oldUrl)).toBe(202);
    testApp.clock.advance(1_000);
    expect(await send(oldUrl)).toBe(404);
    expect(await send(newUrl)).toBe(202);
    const after = (await client.call(endpoints.flows.list)).json.flows.find((candidate: any) => candidate.flowType === 'abandoned_cart');
    expect(after.previousWebhookUrlValidUntil).toBeNull();
  });

  it('stops the old URL at once when asked, within the intake cache second', async () => {
    const { client, flow } = await ownerWithActiveCartFlow();
    const rotated = await rotate(client, 0);
    expect(rotated.status).toBe(200);
    expect(rotated.json.flow.previousWebhookUrlValidUntil).toBeNull();
    expect(await send(flow.webhookUrl)).toBe(404);
    expect(await send(rotated.json.flow.webhookUrl)).toBe(202);

    // A URL this process just looked up stays in its flow cache for at most a second.
    const current = rotated.json.flow.webhookUrl as string;
    expect(await send(current)).toBe(202);
    const again = await rotate(client, 0);
    testApp.clock.advance(INTAKE_FLOW_CACHE_MS);
    expect(await send(current)).toBe(404);
    expect(await send(again.json.flow.webhookUrl)).toBe(202);
  });

  it('replaces a previous URL still in its grace period: only the last two URLs work', async () => {
    const { client, flow } = await ownerWithActiveCartFlow();
    const first = flow.webhookUrl;
    const second = (await rotate(client, 10_080)).json.flow.webhookUrl as string;
    const rotatedAt = testApp.clock.now().getTime();
    const third = await rotate(client, 1_440);
    expect(third.status).toBe(200);
    expect(third.json.flow.previousWebhookUrlValidUntil).toBe(new Date(rotatedAt + 24 * HOUR_MS).toISOString());
    testApp.clock.advance(INTAKE_FLOW_CACHE_MS);

    expect(await send(first)).toBe(404);
    expect(await send(second)).toBe(202);
    expect(await send(third.json.flow.webhookUrl)).toBe(202);
  });

  it('keeps the rotated URL when the flow is saved again or the URLs are fixed up', async () => {
    const { client } = await ownerWithActiveCartFlow();
    const rotatedUrl = (await rotate(client, 60)).json.flow.webhookUrl as string;
    const saved = await client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: configuration });
    expect(saved.json).toMatchObject({ firstSave: false, webhookUrlRewritten: false, flow: { webhookUrl: rotatedUrl, webhookUrlOutdated: false } });
    const fixed = await client.call(endpoints.flows.fixWebhookUrls);
    expect(fixed.json.updated).toBe(0);
    expect(await send(rotatedUrl)).toBe(202);
  });

  it('gives a flow never saved a new key but still no stored URL', async () => {
    const { client } = await insertSignedInOwner(testApp);
    const initialized = (await client.call(endpoints.flows.initialize)).json.flows.find((candidate: any) => candidate.flowType === 'abandoned_cart');
    const rotated = await rotate(client, 0);
    expect(rotated.json.flow.webhookUrl).toBeNull();
    expect(rotated.json.flow.generatedWebhookUrl).toMatch(webhookUrlPattern());
    expect(rotated.json.flow.generatedWebhookUrl).not.toBe(initialized.generatedWebhookUrl);
  });

  it.each([
    ['a grace period outside the offered set', { graceMinutes: 30 }],
    ['a grace period as text', { graceMinutes: '60' }],
    ['no grace period', {}],
  ])('refuses %s with 400 and says what to choose', async (_case, body) => {
    const { client, flow } = await ownerWithActiveCartFlow();
    const response = await client.call(endpoints.flows.rotateWebhookUrl, { params: { flowType: 'abandoned_cart' }, body });
    expect(response.status).toBe(400);
    expect(response.json.fieldErrors.graceMinutes).toBe(v.graceChoice);
    expect((await findFlowById(testApp.database.pool, flow.id))?.webhookKey).toBe(flow.id);
  });

  it("lets no one rotate another owner's URL", async () => {
    const ada = await ownerWithActiveCartFlow();
    const anonymous = await new HttpClient(testApp.baseUrl).call(endpoints.flows.rotateWebhookUrl, { params: { flowType: 'abandoned_cart' }, body: { graceMinutes: 0 } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.message).toBe(authMessages.notSignedIn);

    // Bob addresses flows by type within his own account: he can reach only his.
    const bob = await insertSignedInOwner(testApp);
    const withoutFlows = await rotate(bob.client, 0);
    expect(withoutFlows.status).toBe(404);
    expect(withoutFlows.json.message).toBe(flowMessages.flowNotFound);
    expect((await bob.client.call(endpoints.flows.initialize)).status).toBe(200);
    const bobs = await rotate(bob.client, 0);
    expect(bobs.status).toBe(200);
    expect(bobs.json.flow.id).not.toBe(ada.flow.id);

    const adaFlow = await findFlowById(testApp.database.pool, ada.flow.id);
    expect(adaFlow).toMatchObject({ webhookKey: ada.flow.id, previousWebhookKey: null, webhookUrl: ada.flow.webhookUrl });
    expect(await send(ada.flow.webhookUrl)).toBe(202);
  });
});
