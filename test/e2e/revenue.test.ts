import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { E2EServer } from '../support/e2e-server.ts';
import { dismissToasts, expectNoA11yViolations, expectNoBrowserErrors, fieldErrorOf, openPage, saveScreenshot, toastOf, untilSectionsLoaded } from '../support/browser.ts';
import { createSignedInUser } from '../support/e2e-accounts.ts';
import { credentialsInput, defaultAssistants, sampleEvent, shopifySecret } from '../support/engine-scenario.ts';
import { sendShopifyWebhook } from '../fakes/fake-shopify.ts';
import { attributionMessages } from '../../src/shared/attribution/attribution-messages.ts';
import type { RevenueResponse } from '../../src/shared/attribution/attribution-schemas.ts';
import { useE2ESuite } from '../support/e2e-suite.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

let server: E2EServer;
let browser: Browser;
useE2ESuite((started) => ({ server, browser } = started));

const phone = { width: 390, height: 844 };

describe('revenue recovered', () => {
  it('shows an attributed order on the dashboard, in its currency, and opens the delivery it is credited to', async () => {
    const { context, page, errors } = await openPage(browser, server.baseUrl);
    const user = await createSignedInUser(server, context);
    expect((await user.client.call(endpoints.credentials.save, { body: credentialsInput() })).status).toBe(200);
    expect((await user.client.call(endpoints.flows.initialize)).status).toBe(200);
    const cartFlow = await user.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: { isActive: true, assistants: defaultAssistants, klaviyoEventName: null } });
    const checkoutFlow = await user.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_checkout' }, body: { isActive: true, assistants: defaultAssistants, klaviyoEventName: null } });
    const email = `buyer-${Date.now()}@example.com`;

    // A cart reminder is delivered to the shopper…
    const sent = await fetch(cartFlow.json.flow.webhookUrl as string, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(sampleEvent('abandoned_cart', { email })),
    });
    expect(sent.status).toBe(202);
    const deliveryId = ((await sent.json()) as { eventId: string }).eventId;
    await expect
      .poll(async () => (await user.client.call(endpoints.events.detail, { params: { eventId: deliveryId } })).json?.event?.status, { timeout: 30_000, interval: 250 })
      .toBe('delivered');

    // …who then orders, as the store's order webhook tells (to a flow where it is a signal).
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const order = await sendShopifyWebhook(
      checkoutFlow.json.flow.webhookUrl as string,
      'orders/create',
      {
        id: 7_700_000_000 + Math.floor(Math.random() * 1e6),
        email,
        customer: { email, first_name: 'Kim', last_name: 'Buyer' },
        line_items: [{ title: 'Trail Shoe', price: '64.00', quantity: 1, product_id: 42 }],
        total_price: '64.00',
        currency: 'EUR',
        created_at: new Date().toISOString(),
      },
      shopifySecret,
    );
    expect(order.status, order.text).toBe(202);
    await expect
      .poll(async () => ((await user.client.call(endpoints.revenue.read, { query: { days: 7 } })).json as RevenueResponse).total.attributedOrders, { timeout: 30_000, interval: 250 })
      .toBe(1);

    await page.goto('/dashboard');
    const panel = page.getByTestId('revenue-panel');
    await panel.getByTestId('revenue-amount').filter({ hasText: '€64.00' }).waitFor();
    const attributed = panel.getByTestId('attributed-order');
    expect(await attributed.count()).toBe(1);
    expect(await attributed.textContent()).toContain('Abandoned Cart');
    await panel.getByRole('button', { name: attributionMessages.periods[30] }).click();
    await panel.getByRole('button', { name: attributionMessages.periods[30], pressed: true }).waitFor();
    await panel.getByTestId('revenue-amount').filter({ hasText: '€64.00' }).waitFor();
    await expectNoA11yViolations(page);
    await saveScreenshot(page, 'revenue-dashboard');

    // A phone: the figures and the orders fit without scrolling sideways.
    await page.setViewportSize(phone);
    await panel.getByTestId('revenue-amount').first().waitFor();
    const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    await saveScreenshot(page, 'revenue-dashboard-phone');

    // The order's link opens the delivery in the cart flow's event log.
    await attributed.getByRole('link', { name: attributionMessages.openDelivery }).click();
    await page.waitForURL(`**/flows/abandoned-cart/events?event=${deliveryId}`);
    const drawer = page.getByRole('dialog');
    await drawer.getByText(email).first().waitFor();
    await expectNoA11yViolations(page);
    expectNoBrowserErrors(errors);
    await context.close();
  });

  it("sets the owner's attribution window on the settings page, refusing days outside 1 to 30", async () => {
    const { context, page, errors } = await openPage(browser, server.baseUrl);
    const user = await createSignedInUser(server, context);
    expect((await user.client.call(endpoints.credentials.save, { body: credentialsInput() })).status).toBe(200);
    await page.goto('/settings/api');
    const field = page.getByLabel(attributionMessages.windowLabel);
    // The settings page has other Save buttons (the retention period): this form's own.
    const save = page.locator('form').filter({ has: field }).getByRole('button', { name: attributionMessages.save, exact: true });
    await expect.poll(() => field.inputValue()).toBe('5');
    await untilSectionsLoaded(page);
    await field.fill('31');
    await save.click();
    // The form fetches its checks on the first submit: the message comes when they have.
    await expect.poll(() => fieldErrorOf(page, attributionMessages.windowLabel)).toBe(attributionMessages.windowInvalid);
    await field.fill('12');
    await save.click();
    await toastOf(page, attributionMessages.windowSaved).waitFor();
    expect((await user.client.call(endpoints.revenue.settings)).json).toEqual({ windowDays: 12 });
    await dismissToasts(page);
    await expectNoA11yViolations(page);

    await page.goto('/dashboard');
    await page.getByTestId('revenue-panel').getByText(attributionMessages.intro(12)).waitFor();
    expectNoBrowserErrors(errors);
    await context.close();
  });
});
