import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { E2EServer } from '../support/e2e-server.ts';
import { expectNoBrowserErrors, expectNoSeriousA11yViolations, openPage, toastOf, E2E_WAIT_MS } from '../support/browser.ts';
import { createSignedInUser } from '../support/e2e-accounts.ts';
import type { HttpClient } from '../support/http-client.ts';
import type { FakeKlaviyo } from '../fakes/fake-klaviyo.ts';
import { credentialsInput, defaultAssistants } from '../support/engine-scenario.ts';
import { sampleTestEvent } from '../../src/shared/webhooks/sample-events.ts';
import { webhookConsoleMessages as m, webhookHandlerMessages } from '../../src/shared/webhooks/webhook-messages.ts';
import { flowMessages } from '../../src/shared/flows/flow-messages.ts';
import { eventLogMessages } from '../../src/shared/events/event-messages.ts';
import { useE2ESuite } from '../support/e2e-suite.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

const run = promisify(execFile);

let server: E2EServer;
let browser: Browser;
let klaviyo: FakeKlaviyo;
useE2ESuite((started) => ({ server, klaviyo, browser } = started));

const entries = (page: Page) => page.getByTestId('webhook-event');
const entry = (page: Page, eventIdInPayload: string) => entries(page).filter({ hasText: eventIdInPayload });

/** Lets the open toasts expire before an accessibility check (the check is about this page). */
async function waitForToastsToExpire(page: Page) {
  await page.mouse.move(0, 0);
  await expect.poll(() => page.locator('[data-sonner-toast]').count(), { timeout: E2E_WAIT_MS, interval: 250 }).toBe(0);
}

/** A sample event of the flow with its own event_id and shopper, as the payload text. */
function payloadText(eventId: string, email: string): string {
  const event = sampleTestEvent('abandoned_cart', new Date(), eventId);
  return JSON.stringify({ ...event, properties: { ...event.properties, customer: { email, first_name: 'Jo', last_name: 'Tester' } } }, null, 2);
}

async function setPayload(page: Page, text: string) {
  await page.getByLabel('Test Payload (JSON)').fill(text);
}

/** The owner's stored events, from the event log API (what the server kept). */
async function storedEvents(client: HttpClient): Promise<Array<{ id: string; status: string; source: string }>> {
  const response = await client.call(endpoints.events.list, { query: { flowType: 'abandoned_cart' } });
  expect(response.status, response.text).toBe(200);
  return response.json.events;
}

describe('the webhook test console', () => {
  it('listens, shows test and cURL events live, stores the list, clears it, refuses bad JSON and dry-runs without Klaviyo', async () => {
    const { context, page, errors } = await openPage(browser, server.baseUrl);
    const user = await createSignedInUser(server, context);
    expect((await user.client.call(endpoints.credentials.save, { body: credentialsInput() })).status).toBe(200);
    expect((await user.client.call(endpoints.flows.initialize)).status).toBe(200);
    const saved = await user.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: { isActive: true, assistants: defaultAssistants, klaviyoEventName: null } });
    expect(saved.status, saved.text).toBe(200);

    await page.goto('/flows/abandoned-cart');
    await page.getByRole('link', { name: 'Test Webhook' }).click();
    await toastOf(page, flowMessages.webhookTesterOpened).waitFor();
    const consoleCard = page.getByTestId('webhook-console');
    await consoleCard.waitFor();
    await page.getByText(m.statusInactive).waitFor();
    await page.getByText(m.emptyInactive).waitFor();
    expect(await page.getByRole('button', { name: 'Clear' }).isDisabled()).toBe(true);
    // The default payload is this flow's sample event (docs/product/specification.md §3).
    const defaultPayload = JSON.parse(await page.getByLabel('Test Payload (JSON)').inputValue());
    expect(defaultPayload).toMatchObject({ event_type: 'cart_abandoned', properties: { currency: 'USD', customer: { email: expect.any(String) } } });
    expect(Object.keys(defaultPayload.properties).sort()).toEqual(['abandoned_at', 'cart_id', 'currency', 'customer', 'products', 'total']);

    // Listen, send the default payload, see it arrive and its processing finish.
    await page.getByRole('button', { name: 'Start Listening' }).click();
    await toastOf(page, m.listening).waitFor();
    await page.getByText(m.statusListening).waitFor();
    await page.getByText(m.emptyListening).waitFor();
    await page.getByRole('button', { name: 'Send Test Webhook' }).click();
    await toastOf(page, m.sent).waitFor();
    // The send renewed the sample's event_id and timestamp; the box shows what was sent.
    const sentPayload = JSON.parse(await page.getByLabel('Test Payload (JSON)').inputValue());
    expect(sentPayload).toMatchObject({ ...defaultPayload, event_id: expect.stringMatching(/^test_/), timestamp: expect.any(String) });
    expect(sentPayload.event_id).not.toBe(defaultPayload.event_id);
    const first = entry(page, sentPayload.event_id);
    await first.waitFor();
    await toastOf(page, m.received).waitFor();
    await first.getByText(m.entryReceived).waitFor();
    await first.getByTestId('webhook-event-status').filter({ hasText: 'delivered' }).waitFor();
    expect(await first.getByTestId('webhook-event-json').textContent()).toBe(JSON.stringify(sentPayload, null, 2));
    expect(klaviyo.profiles.get(sentPayload.properties.customer.email)).toBeDefined();

    // The copied cURL command, run from a terminal, delivers to the flow too.
    await setPayload(page, payloadText('evt_from_curl', 'curl@example.com'));
    await page.getByRole('button', { name: 'Copy as cURL' }).click();
    await toastOf(page, m.curlCopied).waitFor();
    const command = await page.evaluate(() => navigator.clipboard.readText());
    expect(command).toContain(saved.json.flow.webhookUrl);
    await run('sh', ['-c', command]);
    const fromCurl = entry(page, 'evt_from_curl');
    await fromCurl.getByTestId('webhook-event-status').filter({ hasText: 'delivered' }).waitFor();
    expect(await entries(page).count()).toBe(2);
    expect(await entries(page).first().getAttribute('data-event-id')).toBe(await fromCurl.getAttribute('data-event-id'));

    // Not listening: a send is stored and processed, but not captured.
    await page.getByRole('button', { name: 'Stop Listening' }).click();
    await toastOf(page, m.stopped).waitFor();
    await page.getByText(m.statusInactive).waitFor();
    await setPayload(page, payloadText('evt_not_listening', 'quiet@example.com'));
    await page.getByRole('button', { name: 'Send Test Webhook' }).click();
    await expect.poll(async () => (await storedEvents(user.client)).length, { timeout: E2E_WAIT_MS, interval: 500 }).toBe(3);
    await expect.poll(() => klaviyo.profiles.has('quiet@example.com'), { timeout: E2E_WAIT_MS, interval: 100 }).toBe(true);
    expect(await entries(page).count()).toBe(2);

    // The list is kept in this browser and reloaded with the page.
    await page.reload();
    await consoleCard.waitFor();
    await entry(page, 'evt_from_curl').waitFor();
    expect(await entries(page).count()).toBe(2);
    await page.getByRole('button', { name: 'Show Details' }).click();
    await page.getByTestId('webhook-debug').waitFor();
    await page.getByRole('button', { name: 'Hide Details' }).click();

    // Clear empties the list and what is stored.
    await page.getByRole('button', { name: 'Clear' }).click();
    await toastOf(page, m.cleared).waitFor();
    await page.getByText(m.emptyInactive).waitFor();
    expect(await page.getByRole('button', { name: 'Clear' }).isDisabled()).toBe(true);
    await page.reload();
    await page.getByText(m.emptyInactive).waitFor();

    // Invalid JSON: the message inline and as a toast, and nothing is sent.
    await setPayload(page, '{"event_id": "broken", ');
    await page.getByRole('button', { name: 'Copy as cURL' }).click();
    await toastOf(page, m.curlCopied).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(m.curlInvalidHint);
    await page.getByRole('button', { name: 'Send Test Webhook' }).click();
    await consoleCard.getByRole('alert').filter({ hasText: m.invalidJson }).waitFor();
    await toastOf(page, m.invalidJson).waitFor();
    expect((await storedEvents(user.client)).length).toBe(3);

    // Dry run: the texts are generated and shown; Klaviyo hears nothing of this shopper.
    // The first stream request gets a 503 (a proxy while the server restarts, say): the
    // browser's EventSource gives up on that, and the console opens the stream again.
    let refused = 0;
    await page.route(`**${endpoints.stream.all.path}/**`, async (route) => {
      if (refused++ === 0) await route.fulfill({ status: 503, contentType: 'text/plain', body: 'restarting' });
      else await route.continue();
    });
    await page.getByRole('button', { name: 'Start Listening' }).click();
    await toastOf(page, m.listening).waitFor();
    expect(refused).toBe(2);
    await page.unroute(`**${endpoints.stream.all.path}/**`);
    await page.getByText(m.statusListening).waitFor();
    await setPayload(page, payloadText('evt_dry_run', 'dry@example.com'));
    await page.getByLabel(m.dryRunLabel).check();
    await page.getByRole('button', { name: 'Send Test Webhook' }).click();
    const dry = entry(page, 'dry@example.com');
    await dry.getByTestId('webhook-event-status').filter({ hasText: 'skipped' }).waitFor();
    const texts = dry.getByTestId('webhook-event-texts');
    await texts.waitFor();
    expect(await texts.textContent()).toContain('AI(');
    expect(klaviyo.profiles.has('dry@example.com')).toBe(false);
    expect(klaviyo.requests.some((request) => JSON.stringify(request.body ?? '').includes('dry@example.com'))).toBe(false);

    await waitForToastsToExpire(page);
    await expectNoSeriousA11yViolations(page);
    expectNoBrowserErrors(errors);
    await context.close();
  });

  it('makes each send a new event, brings the result into view with focus, and says so when a resend is kept as a duplicate', async () => {
    const { context, page, errors } = await openPage(browser, server.baseUrl);
    const user = await createSignedInUser(server, context);
    expect((await user.client.call(endpoints.credentials.save, { body: credentialsInput() })).status).toBe(200);
    expect((await user.client.call(endpoints.flows.initialize)).status).toBe(200);
    expect((await user.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: { isActive: true, assistants: defaultAssistants, klaviyoEventName: null } })).status).toBe(200);

    await page.goto('/flows/abandoned-cart?console=1');
    await page.getByTestId('webhook-console').waitFor();
    await page.getByRole('button', { name: 'Start Listening' }).click();
    await page.getByText(m.statusListening).waitFor();
    const results = page.getByRole('region', { name: m.resultsHeading });
    const focused = () => results.evaluate((element) => element === document.activeElement);
    const inView = () =>
      results.evaluate((element) => {
        const box = element.getBoundingClientRect();
        return box.top >= 0 && box.top < window.innerHeight;
      });

    // Two sends of the sample as it stands: two events, each with its own event_id.
    for (const sends of [1, 2]) {
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.getByRole('button', { name: 'Send Test Webhook' }).click();
      await results.getByRole('status').filter({ hasText: m.sent }).waitFor();
      await expect.poll(focused).toBe(true);
      await expect.poll(inView).toBe(true);
      await expect.poll(async () => (await storedEvents(user.client)).length, { timeout: E2E_WAIT_MS, interval: 250 }).toBe(sends);
      await expect.poll(() => entries(page).count()).toBe(sends);
    }
    const ids = await entries(page).evaluateAll((items) => items.map((item) => JSON.parse(item.querySelector('pre')!.textContent!).event_id as string));
    expect(new Set(ids).size).toBe(2);

    // Resending the same event_id on purpose: the page says it was kept once, not "sent".
    await page.getByLabel(m.freshIdentityLabel).uncheck();
    await page.getByRole('button', { name: 'Send Test Webhook' }).click();
    await results.getByRole('status').filter({ hasText: m.duplicate }).waitFor();
    await toastOf(page, m.duplicate).waitFor();
    expect(await results.getByRole('status').filter({ hasText: m.sent }).count()).toBe(0);
    await expect.poll(focused).toBe(true);
    expect((await storedEvents(user.client)).length).toBe(2);
    expect(await entries(page).count()).toBe(2);

    await waitForToastsToExpire(page);
    await expectNoSeriousA11yViolations(page);
    expectNoBrowserErrors(errors);
    await context.close();
  });

  it("updates the flow page's event log as events arrive and move on, without a reload", async () => {
    const { context, page, errors } = await openPage(browser, server.baseUrl);
    const user = await createSignedInUser(server, context);
    expect((await user.client.call(endpoints.credentials.save, { body: credentialsInput() })).status).toBe(200);
    expect((await user.client.call(endpoints.flows.initialize)).status).toBe(200);
    const saved = await user.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: { isActive: true, assistants: defaultAssistants, klaviyoEventName: null } });
    expect(saved.status, saved.text).toBe(200);

    await page.goto('/flows/abandoned-cart/events');
    await page.getByText(eventLogMessages.noEvents).waitFor();
    const sent = await fetch(saved.json.flow.webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: payloadText('evt_live_log', 'live@example.com') });
    expect(sent.status).toBe(202);
    // Before the list's 15-second interval refresh would have shown it, with room for a
    // busy machine: only the live stream brings it this soon.
    const row = page.getByTestId('event-log-row').first();
    await row.waitFor({ timeout: 12_000 });
    await row.getByText('Delivered').waitFor({ timeout: E2E_WAIT_MS });

    await expectNoSeriousA11yViolations(page);
    expectNoBrowserErrors(errors);
    await context.close();
  });

  it('shows the handler page of a webhook URL from a real check of it', async () => {
    const { context, page } = await openPage(browser, server.baseUrl);
    const user = await createSignedInUser(server, context);
    expect((await user.client.call(endpoints.flows.initialize)).status).toBe(200);
    const saved = await user.client.call(endpoints.flows.update, { params: { flowType: 'post_purchase' }, body: { isActive: true, assistants: defaultAssistants, klaviyoEventName: null } });
    const webhookUrl = saved.json.flow.webhookUrl as string;

    const opened = Date.now();
    await page.goto(webhookUrl);
    await page.getByRole('heading', { name: webhookHandlerMessages.processing }).waitFor();
    await page.getByRole('heading', { name: webhookHandlerMessages.processed }).waitFor();
    // docs/product/specification.md §2: the result shows after about 2 seconds of
    // "Processing Webhook".
    expect(Date.now() - opened).toBeGreaterThanOrEqual(1_900);
    const result = page.getByTestId('webhook-result');
    expect(await result.textContent()).toContain(webhookHandlerMessages.active);
    expect(await result.textContent()).toContain(webhookUrl.split('/').pop());
    await expectNoSeriousA11yViolations(page);

    await page.goto(webhookUrl.replace('post_purchase', 'abandoned_cart'));
    await page.getByRole('heading', { name: webhookHandlerMessages.error }).waitFor();
    await page.getByRole('alert').getByText(`Error: ${webhookHandlerMessages.notFound}`).waitFor();
    await page.getByRole('link', { name: 'Return to Dashboard' }).click();
    await page.waitForURL('**/dashboard');
    await context.close();
  });
});
