import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { E2EServer } from '../support/e2e-server.ts';
import type { E2EWithServices } from '../support/e2e-services.ts';
import { expectNoA11yViolations, expectNoBrowserErrors, openPage, saveScreenshot, E2E_WAIT_MS } from '../support/browser.ts';
import { createSignedInUser } from '../support/e2e-accounts.ts';
import { credentialsInput, defaultAssistants, sampleEvent, shopifySecret } from '../support/engine-scenario.ts';
import { sendShopifyWebhook, shopifyCheckoutPayload } from '../fakes/fake-shopify.ts';
import { processingMessages, setupSteps } from '../../src/shared/dashboard/dashboard-messages.ts';
import { useE2ESuite } from '../support/e2e-suite.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

let services: E2EWithServices;
let server: E2EServer;
let browser: Browser;
useE2ESuite((started) => {
  services = started;
  ({ server, browser } = started);
});

/** A signed-in owner with saved keys and an active abandoned-cart flow, and its webhook URL. */
async function ownerWithActiveCartFlow(context: Parameters<typeof createSignedInUser>[1]) {
  const user = await createSignedInUser(server, context);
  expect((await user.client.call(endpoints.credentials.save, { body: credentialsInput() })).status).toBe(200);
  expect((await user.client.call(endpoints.flows.initialize)).status).toBe(200);
  const saved = await user.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: { isActive: true, assistants: defaultAssistants, klaviyoEventName: null } });
  return { user, webhookUrl: saved.json.flow.webhookUrl as string };
}

describe('the dashboard', () => {
  it('shows the flow cards where they stay: nothing above them arrives later and pushes them down under the pointer', async () => {
    const { context, page, errors } = await openPage(browser, server.baseUrl);
    await ownerWithActiveCartFlow(context);
    // The dashboard's figures (and with them the checklist above the cards) answer late.
    await page.route(`**${endpoints.dashboard.read.path}`, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await route.continue();
    });
    await page.goto('/dashboard');
    const card = page.getByRole('link', { name: 'Abandoned Cart', exact: true });
    await card.waitFor();
    const shownAt = await card.boundingBox();
    await page.getByTestId('setup-checklist').waitFor();
    expect(await card.boundingBox()).toEqual(shownAt);
    await page.unroute(`**${endpoints.dashboard.read.path}`);
    // And a click on it as soon as it shows opens the flow.
    await page.reload();
    await card.click();
    await page.waitForURL('**/flows/abandoned-cart');
    expectNoBrowserErrors(errors);
    await context.close();
  });

  it('lists what is left to set up with links to where it is done, follows events live without a reload, and drops the list once all is done', async () => {
    const { context, page, errors } = await openPage(browser, server.baseUrl);
    const { user, webhookUrl } = await ownerWithActiveCartFlow(context);

    await page.goto('/dashboard');
    const checklist = page.getByTestId('setup-checklist');
    await checklist.waitFor();
    expect(await checklist.locator('[data-step]').evaluateAll((items) => items.map((item) => [item.getAttribute('data-step'), item.getAttribute('data-done')]))).toEqual([
      ['keys', 'true'],
      ['store', 'false'],
      ['pixel', 'false'],
      ['event', 'false'],
    ]);
    for (const id of ['store', 'pixel', 'event'] as const) {
      expect(await checklist.getByRole('link', { name: setupSteps[id].action }).getAttribute('href')).toBe(setupSteps[id].path);
    }
    const cart = page.locator('[data-testid="flow-state"][data-flow="abandoned_cart"]');
    expect(await cart.getByTestId('flow-health').textContent()).toBe('No events yet');
    await expectNoA11yViolations(page);

    // An event arrives while the page is open: its figures and the checklist follow.
    const sent = await fetch(webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(sampleEvent('abandoned_cart', { email: 'live@example.com' })),
    });
    expect(sent.status).toBeLessThan(300);
    // The first change refreshes at once, the delivery up to the 10-second throttle later.
    await cart.getByTestId('flow-deliveries').filter({ hasText: '1' }).waitFor({ timeout: 30_000 });
    expect(await cart.getByTestId('flow-health').textContent()).toBe('Working');
    await checklist.locator('[data-step="event"][data-done="true"]').waitFor();
    await saveScreenshot(page, 'dashboard-desktop');

    // The store's first signed webhook and the pixel's first view: nothing is left, and the
    // checklist goes, while the page stays open.
    const checkout = await user.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_checkout' }, body: { isActive: true, assistants: defaultAssistants, klaviyoEventName: null } });
    const fromStore = await sendShopifyWebhook(checkout.json.flow.webhookUrl as string, 'checkouts/update', shopifyCheckoutPayload('store@example.com'), shopifySecret);
    expect(fromStore.status).toBe(202);
    const pixelUrl = (await user.client.call(endpoints.flows.pixelAddress)).json.pixelUrl as string;
    const view = await fetch(pixelUrl, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: JSON.stringify({
        name: 'product_viewed',
        id: `sh-${randomUUID()}`,
        timestamp: new Date().toISOString(),
        clientId: `client-${randomUUID()}`,
        customer: { email: 'viewer@example.com', firstName: 'Pia', lastName: 'Viewer' },
        cartToken: null,
        url: 'https://shop.example/products/shoe',
        product: { id: '8801', title: 'Trail Shoe', url: 'https://shop.example/products/shoe', price: '89.50', currencyCode: 'USD', quantity: 1 },
      }),
    });
    expect(view.status).toBe(202);
    await checklist.waitFor({ state: 'detached', timeout: 30_000 });
    await page.getByRole('heading', { name: 'Getting Started' }).waitFor();
    expectNoBrowserErrors(errors);
    await context.close();
  });

  it('says plainly when nothing is behind, counts an event while it is processed, and past five minutes warns with what to do, at phone width too', async () => {
    const { context, page, errors } = await openPage(browser, server.baseUrl);
    const { webhookUrl } = await ownerWithActiveCartFlow(context);

    await page.goto('/dashboard');
    const processing = page.getByTestId('processing');
    await processing.waitFor();
    const figure = (id: string) => processing.getByTestId(`processing-${id}`);
    expect(await processing.getAttribute('data-late')).toBe('false');
    expect(await figure('summary').textContent()).toBe(processingMessages.nothingBehind);
    expect(await figure('behind').textContent()).toBe('0');
    expect(await figure('oldest').textContent()).toBe(processingMessages.noOldest);
    expect(await figure('arrived').textContent()).toBe('0');
    expect(await figure('finished').textContent()).toBe('0');
    expect(await figure('database-size').textContent()).toMatch(/^\d+(\.\d)? (KB|MB|GB) \(embedded\)$/);
    expect(await processing.getByRole('alert').count()).toBe(0);

    // OpenAI answers slowly: the event is behind while its texts are written, then done.
    services.openai.setLatency(10_000);
    try {
      const sent = await fetch(webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(sampleEvent('abandoned_cart', { email: 'behind@example.com' })),
      });
      expect(sent.status).toBeLessThan(300);
      await figure('behind').filter({ hasText: /^1$/ }).waitFor({ timeout: E2E_WAIT_MS });
      expect(await figure('summary').textContent()).toMatch(/^1 event is due and not finished; the oldest has waited \d+ s\.$/);
      expect(await figure('arrived').textContent()).toBe('1');
      expect(await processing.getAttribute('data-late')).toBe('false');
    } finally {
      services.openai.setLatency(0);
    }
    // Delivered: refreshed by the live stream, at most 10 seconds after the change.
    await figure('finished').filter({ hasText: /^1$/ }).waitFor({ timeout: 40_000 });
    expect(await figure('behind').textContent()).toBe('0');
    expect(await figure('summary').textContent()).toBe(processingMessages.nothingBehind);

    // Past five minutes, which a test cannot sit through: the server's own answer, with
    // the oldest event's wait moved to 20 minutes.
    await page.route(`**${endpoints.dashboard.read.path}`, async (route) => {
      const response = await route.fetch();
      const body = await response.json();
      await route.fulfill({ response, json: { ...body, processing: { ...body.processing, behind: 3, oldestBehindSeconds: 20 * 60 } } });
    });
    await page.reload();
    await page.locator('[data-testid="processing"][data-late="true"]').waitFor();
    const warning = processing.getByRole('alert');
    expect(await warning.textContent()).toBe(`${processingMessages.lateTitle}${processingMessages.lateAdvice.embedded}`);
    expect(await figure('summary').textContent()).toBe('3 events are due and not finished; the oldest has waited 20 min.');
    expect(await figure('oldest').textContent()).toBe('20 min');
    expect(await figure('oldest').getAttribute('class')).toContain('text-amber-800');
    await expectNoA11yViolations(page);
    await saveScreenshot(page, 'dashboard-processing-late');

    // At a phone's width the section, warning included, fits without scrolling sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    const fits = await page.evaluate(() => {
      const section = document.querySelector('[data-testid="processing"]')!.getBoundingClientRect();
      return { page: document.documentElement.scrollWidth <= document.documentElement.clientWidth, section: section.left >= 0 && section.right <= document.documentElement.clientWidth };
    });
    expect(fits).toEqual({ page: true, section: true });
    await saveScreenshot(page, 'dashboard-processing-late-phone');
    await page.unroute(`**${endpoints.dashboard.read.path}`);
    expectNoBrowserErrors(errors);
    await context.close();
  });
});
