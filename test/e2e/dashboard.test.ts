import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { E2EServer } from '../support/e2e-server.ts';
import { startE2EServerWithServices, type E2EWithServices } from '../support/e2e-services.ts';
import { expectNoA11yViolations, expectNoBrowserErrors, launchBrowser, openPage, saveScreenshot } from '../support/browser.ts';
import { createSignedInUser } from '../support/e2e-accounts.ts';
import { credentialsInput, defaultAssistants, sampleEvent, shopifySecret } from '../fakes/engine-scenario.ts';
import { sendShopifyWebhook, shopifyCheckoutPayload } from '../fakes/fake-shopify.ts';
import { setupSteps } from '../../src/shared/dashboard/dashboard-messages.ts';

let services: E2EWithServices;
let server: E2EServer;
let browser: Browser;
beforeAll(async () => {
  services = await startE2EServerWithServices();
  ({ server } = services);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await services?.stop();
});

describe('the dashboard', () => {
  it('lists what is left to set up with links to where it is done, follows events live without a reload, and drops the list once all is done', async () => {
    const { context, page, errors } = await openPage(browser, server.baseUrl);
    const user = await createSignedInUser(server, context);
    expect((await user.client.put('/api/credentials', credentialsInput())).status).toBe(200);
    expect((await user.client.post('/api/flows/initialize')).status).toBe(200);
    const saved = await user.client.put('/api/flows/abandoned_cart', { isActive: true, assistants: defaultAssistants, klaviyoEventName: null });
    const webhookUrl = saved.json.flow.webhookUrl as string;

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
    const checkout = await user.client.put('/api/flows/abandoned_checkout', { isActive: true, assistants: defaultAssistants, klaviyoEventName: null });
    const fromStore = await sendShopifyWebhook(checkout.json.flow.webhookUrl as string, 'checkouts/update', shopifyCheckoutPayload('store@example.com'), shopifySecret);
    expect(fromStore.status).toBe(202);
    const pixelUrl = (await user.client.get('/api/flows/browser_abandonment/pixel')).json.pixelUrl as string;
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
});
