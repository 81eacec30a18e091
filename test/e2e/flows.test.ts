import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { E2EServer } from '../support/e2e-server.ts';
import { expectNoBrowserErrors, expectNoSeriousA11yViolations, openPage, toastOf, dismissToasts, E2E_WAIT_MS } from '../support/browser.ts';
import { createSignedInUser } from '../support/e2e-accounts.ts';
import { flowTypeDetails, flowTypes } from '../../src/shared/flows/flow-types.ts';
import { flowCapMessages, flowMessages, flowValidationMessages, webhookUrlRotationMessages as rotation } from '../../src/shared/flows/flow-messages.ts';
import { credentialsInput, defaultAssistants, postEvent, sampleEvent } from '../support/engine-scenario.ts';
import { requestMessages } from '../../src/shared/messages.ts';
import { flowPlaceholderTokens, promptPlaceholderTokens } from '../../src/shared/flows/prompt-placeholders.ts';
import { klaviyoPropertyWarnings } from '../../src/shared/flows/klaviyo-property-tags.ts';
import { useE2ESuite } from '../support/e2e-suite.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';
import { openFlowSection } from '../support/flow-page.ts';
import { flowSectionMessages } from '../../src/shared/flows/flow-messages.ts';
import { deferredPartMessages } from '../../src/web/app/deferred-part.tsx';
import { dashboardMessages } from '../../src/shared/dashboard/dashboard-messages.ts';

/** The owner's rate limit, as the server answers it: wait 3 s. */
const rateLimitedAnswer = {
  status: 429,
  headers: { 'retry-after': '3' },
  contentType: 'application/json',
  body: JSON.stringify({ error: 'rate_limited', message: requestMessages.rateLimited, retryAfterSeconds: 3 }),
};

let server: E2EServer;
let browser: Browser;
useE2ESuite((started) => ({ server, browser } = started));

const saveButton = (page: Page) => page.getByRole('button', { name: 'Save Configuration' });
const badge = (page: Page) => page.getByTestId('flow-status-badge');

async function checkAccessibility(page: Page) {
  await dismissToasts(page);
  await expectNoSeriousA11yViolations(page);
}

async function saveAndSeeStatus(page: Page, message: string) {
  await saveButton(page).click();
  await toastOf(page, message).waitFor();
  await page.getByRole('button', { name: 'Configure Flow' }).waitFor();
}

describe('flow pages', () => {
  it('opens each flow from the dashboard, configures assistants and switches a flow on and off', async () => {
    const { context, page, errors } = await openPage(browser, server.baseUrl);
    const user = await createSignedInUser(server, context);
    expect((await user.client.call(endpoints.credentials.save, { body: credentialsInput() })).status).toBe(200);

    // From the dashboard, each of the four pages; a flow without a webhook URL opens in the form.
    for (const flowType of flowTypes) {
      const details = flowTypeDetails[flowType];
      await page.goto('/dashboard');
      await page.getByRole('link', { name: details.title, exact: true }).click();
      await page.waitForURL(`**${details.path}`);
      await page.getByRole('heading', { level: 1, name: details.title }).waitFor();
      await page.getByText(details.tagline, { exact: true }).waitFor();
      // The dashboard's tab title leaves with the dashboard.
      expect(await page.title()).toBe('Flowsmith');
      expect(await page.locator(`header [data-flow-icon="${flowType}"]`).count()).toBe(1);
      await saveButton(page).waitFor();
      expect(await page.getByRole('button', { name: 'Configure Flow' }).count()).toBe(0);
      expect(await page.getByRole('link', { name: 'Back to Dashboard' }).getAttribute('href')).toBe('/dashboard');
      expect(await page.locator('[data-assistant]').count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Remove assistant 1' }).isDisabled()).toBe(true);
    }
    await checkAccessibility(page);

    // Abandoned cart: add a second assistant, insert a placeholder at the cursor, save.
    await page.goto('/dashboard');
    await page.getByRole('link', { name: 'Abandoned Cart', exact: true }).click();
    await saveButton(page).waitFor();
    const webhookUrl = await page.getByLabel('Webhook URL', { exact: true }).inputValue();
    expect(webhookUrl).toMatch(new RegExp(`^${server.baseUrl}/api/webhooks/abandoned_cart/[A-Za-z0-9_-]{24}$`));
    await page.getByRole('button', { name: 'Copy webhook URL' }).click();
    await toastOf(page, flowMessages.webhookUrlCopied).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(webhookUrl);

    await page.getByRole('button', { name: 'Add Assistant' }).click();
    const second = page.locator('[data-assistant="2"]');
    expect(await page.getByRole('button', { name: 'Remove assistant 1' }).isDisabled()).toBe(false);
    await second.getByLabel('Name', { exact: true }).fill('Email Body');
    await second.getByLabel('Klaviyo property', { exact: true }).fill('subject_line1');
    const template = second.getByLabel('Prompt template', { exact: true });
    await template.fill('Write a friendly reminder for  who left items in the cart, in at most eighty words');
    await template.evaluate((element: HTMLTextAreaElement) => element.setSelectionRange(30, 30));
    await second.getByRole('button', { name: /^Insert \{first_name\}/ }).click();
    expect(await template.inputValue()).toBe('Write a friendly reminder for {first_name} who left items in the cart, in at most eighty words');

    // The form refuses what the API would refuse, with the same messages.
    await saveButton(page).click();
    await second.getByText(flowValidationMessages.klaviyoPropertyDuplicate('subject_line1')).waitFor();
    await second.getByLabel('Klaviyo property', { exact: true }).fill('email_body');
    await template.fill(`${await template.inputValue()} {coupon}`);
    await saveButton(page).click();
    await second.getByText(/Unknown placeholder \{coupon\}/).waitFor();
    await template.fill('Write a friendly reminder for {first_name} who left items in the cart, in at most eighty words');
    await checkAccessibility(page);

    await saveAndSeeStatus(page, flowMessages.saved);
    await openFlowSection(page, 'assistants');
    const assistants = page.getByTestId('flow-assistant');
    await assistants.nth(1).waitFor();
    expect(await assistants.count()).toBe(2);
    expect(await assistants.nth(0).locator(':scope > p').allInnerTexts()).toEqual(['Subject Line', 'subject_line1', 'Write a subject line for {description}']);
    // Each with the tag a Klaviyo email reads its text with.
    expect(await assistants.nth(0).getByTestId('klaviyo-tag-text').textContent()).toBe("{{ person|lookup:'subject_line1' }}");
    const [name, property, shown] = await assistants.nth(1).locator(':scope > p').allInnerTexts();
    expect([name, property]).toEqual(['Email Body', 'email_body']);
    const fullTemplate = 'Write a friendly reminder for {first_name} who left items in the cart, in at most eighty words';
    expect(shown!.endsWith('…')).toBe(true);
    expect(shown!.length).toBeLessThan(fullTemplate.length);
    expect(fullTemplate.startsWith(shown!.slice(0, -1))).toBe(true);
    expect(await assistants.nth(1).locator('p').nth(2).getAttribute('title')).toBe(fullTemplate);
    await openFlowSection(page, 'overview');
    expect(await page.getByTestId('flow-webhook-url').innerText()).toBe(webhookUrl);
    expect(await badge(page).innerText()).toBe('Inactive');
    await page.getByText(flowMessages.inactive, { exact: true }).waitFor();
    await checkAccessibility(page);

    // Configure Flow returns to the form, holding what was saved.
    await page.getByRole('button', { name: 'Configure Flow' }).click();
    await saveButton(page).waitFor();
    expect(await page.locator('[data-assistant]').count()).toBe(2);
    expect(await page.locator('[data-assistant="2"]').getByLabel('Name', { exact: true }).inputValue()).toBe('Email Body');

    // Toggle Active: the badge and text change, and stay so after a reload.
    await page.getByLabel('Active', { exact: true }).check();
    await saveAndSeeStatus(page, flowMessages.updated);
    expect(await badge(page).innerText()).toBe('Active');
    await page.reload();
    await page.getByRole('button', { name: 'Configure Flow' }).waitFor();
    expect(await badge(page).innerText()).toBe('Active');
    await page.getByText(flowMessages.active, { exact: true }).waitFor();
    await openFlowSection(page, 'assistants');
    await page.getByTestId('flow-assistant').nth(1).waitFor();
    expect(await page.getByTestId('flow-assistant').count()).toBe(2);
    await openFlowSection(page, 'overview');

    await page.getByRole('button', { name: 'Configure Flow' }).click();
    await page.getByLabel('Active', { exact: true }).uncheck();
    await saveAndSeeStatus(page, flowMessages.updated);
    await page.reload();
    await page.getByRole('button', { name: 'Configure Flow' }).waitFor();
    expect(await badge(page).innerText()).toBe('Inactive');
    await page.getByText(flowMessages.inactive, { exact: true }).waitFor();

    // Test Webhook opens the console's address on the same page and says so.
    await page.getByRole('link', { name: 'Test Webhook' }).click();
    await page.waitForURL('**/flows/abandoned-cart?console=1');
    await toastOf(page, flowMessages.webhookTesterOpened).waitFor();

    // The other flows are untouched: still no URL, so still the form.
    await page.goto('/flows/post-purchase');
    await saveButton(page).waitFor();
    expect(await page.getByLabel('Wait amount').count()).toBe(0);

    expectNoBrowserErrors(errors);
    await context.close();
  });

  it("offers each flow only its placeholders, refuses others, and shows the Klaviyo tag of each property with a copy button", async () => {
    const { context, page, errors } = await openPage(browser, server.baseUrl);
    const user = await createSignedInUser(server, context);
    expect((await user.client.call(endpoints.credentials.save, { body: credentialsInput() })).status).toBe(200);
    const offered = async () => (await page.locator('[data-assistant="1"]').getByRole('button', { name: /^Insert \{/ }).allTextContents()).map((text) => text.trim());

    // Browsing has one product and no cart, checkout or order.
    await page.goto('/flows/browser-abandonment');
    await saveButton(page).waitFor();
    expect(await offered()).toEqual(flowPlaceholderTokens.browser_abandonment);
    await page.goto('/flows/abandoned-cart');
    await saveButton(page).waitFor();
    expect(await offered()).toEqual(flowPlaceholderTokens.abandoned_cart);
    await page.goto('/flows/post-purchase');
    await saveButton(page).waitFor();
    expect(await offered()).toEqual(promptPlaceholderTokens);

    // A placeholder typed by hand that the flow never fills is refused with a message.
    await page.goto('/flows/abandoned-cart');
    const assistant = page.locator('[data-assistant="1"]');
    await assistant.getByLabel('Prompt template', { exact: true }).fill('Come back to {checkout_url}');
    await saveButton(page).click();
    await assistant.getByText(flowValidationMessages.placeholdersNotFilled(['{checkout_url}'], 'Abandoned Cart', flowPlaceholderTokens.abandoned_cart)).waitFor();
    await assistant.getByLabel('Prompt template', { exact: true }).fill('Write a subject line for {description}');

    // The tag that reads the property in a Klaviyo email, copied with a word of thanks.
    const tag = assistant.getByTestId('klaviyo-tag');
    expect(await tag.getByTestId('klaviyo-tag-text').textContent()).toBe("{{ person|lookup:'subject_line1' }}");
    expect(await tag.getByTestId('klaviyo-property-warning').count()).toBe(0);
    await tag.getByRole('button', { name: 'Copy tag' }).click();
    await tag.getByRole('button', { name: 'Copied' }).waitFor();
    await tag.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("{{ person|lookup:'subject_line1' }}");
    await tag.getByRole('button', { name: 'Copy tag' }).waitFor({ timeout: E2E_WAIT_MS });

    // A name Klaviyo can read only through the lookup tag says so.
    await assistant.getByLabel('Klaviyo property', { exact: true }).fill('AI subject-line');
    expect(await tag.getByTestId('klaviyo-tag-text').textContent()).toBe("{{ person|lookup:'AI subject-line' }}");
    expect(await tag.getByTestId('klaviyo-property-warning').textContent()).toBe(klaviyoPropertyWarnings('AI subject-line')[0]);
    await saveAndSeeStatus(page, flowMessages.saved);

    await checkAccessibility(page);
    expectNoBrowserErrors(errors);
    await context.close();
  });

  it('waits out a rate limit with a note and then shows the page, instead of an error', async () => {
    const { context, page, errors } = await openPage(browser, server.baseUrl);
    const user = await createSignedInUser(server, context);
    expect((await user.client.call(endpoints.credentials.save, { body: credentialsInput() })).status).toBe(200);
    expect((await user.client.call(endpoints.flows.initialize)).status).toBe(200);

    // The first setup check and flow load meet the owner's limit, as the server answers it.
    const refusedOnce = new Set<string>();
    await page.route(/\/api\/(credentials\/status|flows)$/, async (route) => {
      const path = new URL(route.request().url()).pathname;
      if (refusedOnce.has(path)) return route.continue();
      refusedOnce.add(path);
      await route.fulfill(rateLimitedAnswer);
    });
    await page.goto('/flows/abandoned-cart');
    const note = page.getByTestId('busy-note');
    await note.waitFor();
    expect(await note.locator('[aria-hidden="true"]').textContent()).toMatch(/^Busy — trying again in [1-3] s…$/);
    await page.getByRole('status').filter({ hasText: requestMessages.busyRetryingSoon }).waitFor();
    await saveButton(page).waitFor({ timeout: E2E_WAIT_MS });
    await note.waitFor({ state: 'detached' });
    expect(refusedOnce.size).toBeGreaterThanOrEqual(1);
    expect(await page.getByText('Your setup could not be checked').count()).toBe(0);
    expect(await page.getByText(requestMessages.rateLimited).count()).toBe(0);
    expect(await page.locator('[data-sonner-toast]').filter({ hasText: requestMessages.rateLimited }).count()).toBe(0);
    await checkAccessibility(page);
    expectNoBrowserErrors(errors);
    await context.close();
  });

  it('counts a wait that begins long after the page opened from when it began', async () => {
    const { context, page, errors } = await openPage(browser, server.baseUrl);
    const user = await createSignedInUser(server, context);
    expect((await user.client.call(endpoints.credentials.save, { body: credentialsInput() })).status).toBe(200);
    expect((await user.client.call(endpoints.flows.initialize)).status).toBe(200);
    // The page's clock is the test's: it stands still, so the note's own tick never comes,
    // and the note shows what it computed when the wait was noted.
    await page.clock.install();
    let flowsAsked: () => void = () => undefined;
    const asked = new Promise<void>((resolve) => (flowsAsked = resolve));
    let answerFlows: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => (answerFlows = resolve));
    await page.route(/\/api\/flows$/, async (route) => {
      flowsAsked();
      await answered;
      await route.fulfill(rateLimitedAnswer);
    });
    await page.goto('/dashboard');
    await asked;
    // Twenty seconds pass with the page open before the limit's answer arrives.
    await page.clock.pauseAt(Date.now() + 20_000);
    answerFlows();
    const note = page.getByTestId('busy-note');
    await note.waitFor();
    // It said "Busy — trying again in 23 s…" until its first tick: seconds counted from the page's opening.
    expect(await note.locator('[aria-hidden="true"]').textContent()).toBe(requestMessages.busyRetrying(3));
    await page.unroute(/\/api\/flows$/);
    await page.clock.resume();
    await note.waitFor({ state: 'detached' });
    expectNoBrowserErrors(errors);
    await context.close();
  });

  it('says that the URL lets anyone send events, rotates it with a grace period and shows until when the old one works', async () => {
    const { context, page, errors } = await openPage(browser, server.baseUrl);
    const user = await createSignedInUser(server, context);
    expect((await user.client.call(endpoints.credentials.save, { body: credentialsInput() })).status).toBe(200);
    expect((await user.client.call(endpoints.flows.initialize)).status).toBe(200);
    const saved = await user.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_checkout' }, body: { isActive: true, assistants: defaultAssistants, klaviyoEventName: null, waitMinutes: 0 } });
    expect(saved.status, saved.text).toBe(200);
    const oldUrl = saved.json.flow.webhookUrl as string;

    await page.goto('/flows/abandoned-checkout');
    await page.getByText(rotation.secretNotice, { exact: true }).waitFor();
    expect(await page.getByTestId('flow-webhook-url').innerText()).toBe(oldUrl);
    // The caps are shown in the status, with their defaults.
    expect(await page.getByTestId('flow-caps').innerText()).toBe(`${flowCapMessages.shopperCooldown(24)} ${flowCapMessages.dailyGenerationCap(2000)}`);

    // Nothing happens before the owner confirms; Cancel leaves the URL as it was.
    await page.getByRole('button', { name: rotation.rotate }).click();
    const dialog = page.getByRole('group', { name: rotation.rotateTitle });
    await dialog.getByText(rotation.graceLegend).waitFor();
    expect(await dialog.getByRole('radio', { name: 'After 24 hours' }).isChecked()).toBe(true);
    await checkAccessibility(page);
    await dialog.getByRole('button', { name: rotation.cancel }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await page.getByTestId('flow-webhook-url').innerText()).toBe(oldUrl);

    await page.getByRole('button', { name: rotation.rotate }).click();
    await dialog.getByRole('radio', { name: 'After 1 hour' }).check();
    const before = Date.now();
    await dialog.getByRole('button', { name: rotation.confirm }).click();
    await toastOf(page, rotation.rotated).waitFor();
    const webhookUrl = page.getByTestId('flow-webhook-url');
    await expect.poll(() => webhookUrl.innerText()).not.toBe(oldUrl);
    const newUrl = await webhookUrl.innerText();
    expect(newUrl).toMatch(new RegExp(`^${server.baseUrl}/api/webhooks/abandoned_checkout/[A-Za-z0-9_-]{24}$`));

    // Until when the old URL works, in the owner's local time, and how to move Shopify's webhooks.
    const previous = page.getByTestId('flow-previous-webhook-url');
    const shown = await previous.innerText();
    const listed = (await user.client.call(endpoints.flows.list)).json.flows.find((flow: any) => flow.flowType === 'abandoned_checkout');
    const validUntil = new Date(listed.previousWebhookUrlValidUntil as string);
    expect(validUntil.getTime() - before).toBeGreaterThan(3_590_000);
    expect(validUntil.getTime() - before).toBeLessThanOrEqual(3_600_000 + 60_000);
    expect(shown).toContain(rotation.previousValidUntil(await page.evaluate((iso) => new Date(iso).toLocaleString(), validUntil.toISOString())));
    expect(shown).toContain(rotation.moveShopifySubscriptions);

    // Both URLs take events during the grace period; the page keeps the new one after a reload.
    expect((await postEvent(server.baseUrl, new URL(newUrl).pathname, sampleEvent('abandoned_checkout'))).status).toBe(202);
    expect((await postEvent(server.baseUrl, new URL(oldUrl).pathname, sampleEvent('abandoned_checkout'))).status).toBe(202);
    await page.reload();
    await page.getByTestId('flow-previous-webhook-url').waitFor();
    expect(await page.getByTestId('flow-webhook-url').innerText()).toBe(newUrl);
    await checkAccessibility(page);

    expectNoBrowserErrors(errors);
    await context.close();
  });

  it('edits the caps in the configuration form with the server\'s rules and messages', async () => {
    const { context, page, errors } = await openPage(browser, server.baseUrl);
    const user = await createSignedInUser(server, context);
    expect((await user.client.call(endpoints.credentials.save, { body: credentialsInput() })).status).toBe(200);
    await page.goto('/flows/post-purchase');
    await saveButton(page).waitFor();
    const cooldown = page.getByLabel(flowCapMessages.shopperCooldownLabel, { exact: true });
    const dailyCap = page.getByLabel(flowCapMessages.dailyGenerationCapLabel, { exact: true });
    expect(await cooldown.inputValue()).toBe('24');
    expect(await dailyCap.inputValue()).toBe('2000');

    await cooldown.fill('721');
    await dailyCap.fill('0');
    await saveButton(page).click();
    await page.getByText(flowValidationMessages.shopperCooldownRange(720), { exact: true }).waitFor();
    await page.getByText(flowValidationMessages.dailyGenerationCapRange(1_000_000), { exact: true }).waitFor();
    await checkAccessibility(page);

    await cooldown.fill('0');
    await dailyCap.fill('150');
    await saveAndSeeStatus(page, flowMessages.saved);
    expect(await page.getByTestId('flow-caps').innerText()).toBe(`${flowCapMessages.shopperCooldownOff} ${flowCapMessages.dailyGenerationCap(150)}`);
    const listed = (await user.client.call(endpoints.flows.list)).json.flows.find((flow: any) => flow.flowType === 'post_purchase');
    expect(listed).toMatchObject({ shopperCooldownHours: 0, dailyGenerationCap: 150 });

    expectNoBrowserErrors(errors);
    await context.close();
  });

  it('opens each part of a saved flow at its own address, goes back to it, and offers a retry when a part cannot be fetched', async () => {
    const { context, page, errors } = await openPage(browser, server.baseUrl);
    const user = await createSignedInUser(server, context);
    expect((await user.client.call(endpoints.credentials.save, { body: credentialsInput() })).status).toBe(200);
    expect((await user.client.call(endpoints.flows.initialize)).status).toBe(200);
    const saved = await user.client.call(endpoints.flows.update, { params: { flowType: 'post_purchase' }, body: { isActive: true, assistants: defaultAssistants, klaviyoEventName: null } });
    expect(saved.status, saved.text).toBe(200);

    // The first view: the state, the last day, and no part below it until it is opened.
    await page.goto('/flows/post-purchase');
    await page.getByRole('button', { name: 'Configure Flow' }).waitFor();
    await page.getByTestId('flow-day').getByText(dashboardMessages.noEvent).waitFor();
    expect(await page.getByRole('heading', { name: 'Event Log' }).count()).toBe(0);
    expect(await page.getByTestId('flow-assistant').count()).toBe(0);

    // Each tab is an address: opened, it lands there; back returns to the page before.
    await openFlowSection(page, 'events');
    await page.waitForURL('**/flows/post-purchase/events');
    await page.getByRole('heading', { name: 'Event Log' }).waitFor();
    await openFlowSection(page, 'assistants');
    await page.waitForURL('**/flows/post-purchase/assistants');
    await page.getByTestId('flow-assistant').first().waitFor();
    await page.goBack();
    await page.waitForURL('**/flows/post-purchase/events');
    await page.getByRole('heading', { name: 'Event Log' }).waitFor();
    await page.goBack();
    await page.getByRole('button', { name: 'Configure Flow' }).waitFor();
    // An address that is no part of the page leads to the dashboard, as any unknown address does.
    await page.goto('/flows/post-purchase/nothing-here');
    await page.waitForURL('**/dashboard');
    await page.goto('/flows/post-purchase');
    await page.getByRole('button', { name: 'Configure Flow' }).waitFor();
    await checkAccessibility(page);

    // A part whose file cannot be fetched (offline, or a newer deployment) says so, and Try again fetches it.
    await page.route(/\/assets\/flow-results-section-[^/]*\.js$/, (route) => route.abort('internetdisconnected'));
    await openFlowSection(page, 'results');
    const failed = page.getByRole('alert').filter({ hasText: deferredPartMessages.failedTitle(flowSectionMessages.label('results')) });
    await failed.waitFor();
    await page.unroute(/\/assets\/flow-results-section-[^/]*\.js$/);
    await failed.getByRole('button', { name: deferredPartMessages.retry }).click();
    await page.getByTestId('revenue-panel').waitFor();
    expect(await failed.count()).toBe(0);

    expectNoBrowserErrors(errors);
    await context.close();
  });
});
