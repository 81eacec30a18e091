import { describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { E2EServer } from '../support/e2e-server.ts';
import { expectNoA11yViolations, expectNoBrowserErrors, openPage, saveScreenshot, type BrowserErrors, E2E_WAIT_MS } from '../support/browser.ts';
import { createSignedInUser, type E2EUser } from '../support/e2e-accounts.ts';
import type { FakeKlaviyo } from '../fakes/fake-klaviyo.ts';
import { credentialsInput, defaultAssistants, sampleEvent } from '../support/engine-scenario.ts';
import { flowTypeDetails, flowTypes } from '../../src/shared/flows/flow-types.ts';
import { flowSignatureMessages as signatureMessages } from '../../src/shared/flows/flow-signature-messages.ts';
import { sandboxMessages } from '../../src/shared/sandbox/sandbox-messages.ts';
import { useE2ESuite } from '../support/e2e-suite.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * Every page at a phone's size (390 × 844): nothing makes the page scroll sideways, axe
 * finds nothing, and the main actions are reachable (the navigation through the menu).
 */
const phone = { width: 390, height: 844 };

let server: E2EServer;
let browser: Browser;
let klaviyo: FakeKlaviyo;
useE2ESuite((started) => ({ server, klaviyo, browser } = started));

interface Overflow {
  scrollWidth: number;
  clientWidth: number;
  /** Elements reaching past the viewport's sides, outside any container that scrolls or clips them. */
  offenders: string[];
}

/**
 * What sticks out sideways. An element inside a container with its own horizontal
 * overflow (a code block that scrolls, a truncated line) is that container's business,
 * not the page's, as long as the container itself fits.
 */
async function horizontalOverflow(page: Page): Promise<Overflow> {
  return page.evaluate(() => {
    const root = document.documentElement;
    const width = root.clientWidth;
    const contained = (element: Element) => {
      for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
        if (getComputedStyle(parent).overflowX !== 'visible') return true;
      }
      return false;
    };
    const offenders: string[] = [];
    for (const element of document.body.querySelectorAll('*')) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      if (box.left >= -1 && box.right <= width + 1) continue;
      if (contained(element)) continue;
      const name = `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}.${String(element.getAttribute('class') ?? '').split(' ').slice(0, 4).join('.')}`;
      offenders.push(`${name} [${Math.round(box.left)}, ${Math.round(box.right)}] "${(element.textContent ?? '').trim().slice(0, 40)}"`);
    }
    // A region that scrolls sideways on its own is only meant to where the content is
    // preformatted (JSON, code, a text area); anywhere else it hides part of the page.
    for (const element of document.body.querySelectorAll('*')) {
      if (['PRE', 'TEXTAREA', 'CODE', 'INPUT'].includes(element.tagName)) continue;
      const style = getComputedStyle(element);
      if (!['auto', 'scroll'].includes(style.overflowX)) continue;
      if (element.scrollWidth > element.clientWidth + 1) {
        offenders.push(`${element.tagName.toLowerCase()}.${String(element.getAttribute('class') ?? '').split(' ').slice(0, 4).join('.')} scrolls sideways (${element.scrollWidth} > ${element.clientWidth})`);
      }
    }
    return { scrollWidth: root.scrollWidth, clientWidth: width, offenders };
  });
}

/** Closes the toasts: several stack up on the console, and only the front one is clickable. */
async function closeToasts(page: Page): Promise<void> {
  for (let left = await page.locator('[data-sonner-toast]').count(); left > 0; left = await page.locator('[data-sonner-toast]').count()) {
    await page.locator('[data-sonner-toast][data-front="true"] button[data-close-button]').click();
    await expect.poll(() => page.locator('[data-sonner-toast]').count()).toBeLessThan(left);
  }
}

async function expectFitsThePhone(page: Page, name: string): Promise<void> {
  await closeToasts(page);
  await saveScreenshot(page, `narrow-${name}`);
  const overflow = await horizontalOverflow(page);
  expect(overflow.offenders, `elements wider than the screen on ${name}`).toEqual([]);
  expect(overflow.scrollWidth, `the page scrolls sideways on ${name}`).toBeLessThanOrEqual(overflow.clientWidth);
  expect(overflow.clientWidth).toBe(phone.width);
  await expectNoA11yViolations(page);
}

async function openPhonePage(): Promise<{ context: BrowserContext; page: Page; errors: BrowserErrors }> {
  const opened = await openPage(browser, server.baseUrl);
  await opened.page.setViewportSize(phone);
  return opened;
}

describe('at 390 × 844', () => {
  it('fits the signed-out pages', async () => {
    const { context, page, errors } = await openPhonePage();
    const paths = ['/auth/login', '/auth/register', '/auth/forgot-password', '/auth/reset-password', '/auth/verification-sent', '/auth/verify'];
    for (const path of paths) {
      await page.goto(path);
      await page.waitForURL(`**${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      // The verification page settles on its error (no token in the address).
      if (path === '/auth/verify') await page.getByRole('heading', { level: 1, name: 'Verification Failed' }).waitFor();
      await expectFitsThePhone(page, path);
    }
    // A form's errors must fit as well.
    await page.goto('/auth/register');
    await page.locator('form button[type="submit"]').click();
    await page.getByText('Full name must be at least 2 characters').waitFor();
    await expectFitsThePhone(page, 'register-errors');
    expectNoBrowserErrors(errors);
    await context.close();
  });

  it('fits setup, the dashboard and the settings, and reaches each through the menu, Sign out included', async () => {
    const { context, page, errors } = await openPhonePage();

    // Before the keys are saved: the setup page.
    const user = await createSignedInUser(server, context, { fullName: 'Maximiliana Wolkenstein-Okonkwo' });
    await page.goto('/setup');
    await page.getByRole('heading', { level: 1, name: 'Complete Your Setup' }).waitFor();
    await expectFitsThePhone(page, 'setup');
    await ownerWithAnEvent(user, 'dashboard');

    // The dashboard: the checklist (store and pixel still to do), the flows' figures, the costs.
    await page.goto('/dashboard');
    await page.getByRole('heading', { level: 1, name: 'Welcome, Maximiliana Wolkenstein-Okonkwo' }).waitFor();
    await page.getByTestId('setup-checklist').waitFor();
    await page.locator('[data-testid="flow-state"][data-flow="abandoned_cart"] [data-testid="flow-deliveries"]').filter({ hasText: '1' }).waitFor();
    await page.getByTestId('cost-row').first().waitFor();
    await expectFitsThePhone(page, 'dashboard');

    // The menu: closed, it hides the navigation; open, it navigates and offers Sign out.
    const menu = page.getByRole('button', { name: 'Menu' });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByRole('link', { name: 'API Settings', exact: true }).count()).toBe(0);
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await expectFitsThePhone(page, 'menu-open');
    await page.getByRole('link', { name: 'API Settings', exact: true }).click();
    await page.waitForURL('**/settings/api');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    await page.getByRole('heading', { level: 1, name: 'API Settings' }).waitFor();
    await expectFitsThePhone(page, 'settings');
    await page.getByRole('button', { name: 'Update Credentials' }).click();
    await page.getByRole('button', { name: /Save/ }).first().waitFor();
    await expectFitsThePhone(page, 'settings-form');

    await menu.click();
    await page.getByRole('link', { name: 'Dashboard', exact: true }).click();
    await page.waitForURL('**/dashboard');
    await page.getByRole('link', { name: flowTypeDetails.abandoned_cart.title, exact: true }).click();
    await page.waitForURL(`**${flowTypeDetails.abandoned_cart.path}`);

    await menu.click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/auth/login');
    expectNoBrowserErrors(errors);
    await context.close();
  });

  // A second owner: every page makes reads of the owner's 60 a minute
  // (docs/product/specification.md §9).
  it('fits the flow pages with their forms, the event log and its drawer, the console, a signature and the handler page', async () => {
    const { context, page, errors } = await openPhonePage();
    const user = await createSignedInUser(server, context);
    const urls = await ownerWithAnEvent(user, 'flows');

    for (const flowType of flowTypes) {
      const details = flowTypeDetails[flowType];
      await page.goto(details.path);
      await page.getByRole('heading', { level: 1, name: details.title }).waitFor();
      if (flowType === 'post_purchase') {
        // Never saved: it opens in the form, with its assistant fields.
        await page.getByRole('button', { name: 'Save Configuration' }).waitFor();
      } else {
        await page.getByRole('button', { name: 'Configure Flow' }).waitFor();
      }
      await expectFitsThePhone(page, details.path);
    }

    // Each section of a saved flow, at its own address.
    await page.goto('/flows/browser-abandonment/store');
    await page.getByText('pixel', { exact: false }).first().waitFor();
    await expectFitsThePhone(page, 'store');
    for (const [section, ready] of [
      ['settings', page.getByRole('button', { name: 'Save Configuration' })],
      ['assistants', page.getByTestId('flow-assistant').first()],
      ['preview', page.getByRole('heading', { level: 2, name: 'Preview' })],
      ['experiment', page.getByTestId('experiment-card')],
      ['results', page.getByTestId('revenue-panel')],
    ] as const) {
      await page.goto(`/flows/abandoned-cart/${section}`);
      await ready.waitFor();
      await expectFitsThePhone(page, section);
    }

    // A signature switched on shows its secret and a signing example once: long lines to fit.
    await page.goto('/flows/abandoned-checkout/store');
    const signature = page.getByRole('region', { name: signatureMessages.title });
    await signature.getByRole('button', { name: signatureMessages.turnOn }).click();
    await signature.getByTestId('flow-signing-secret').waitFor();
    await expectFitsThePhone(page, 'signature-on');

    // The event log of abandoned cart: its row keeps the Status in sight, and the drawer fits.
    await page.goto('/flows/abandoned-cart/events');
    const row = page.getByTestId('event-log-row').first();
    await row.getByText('Delivered').waitFor();
    expect(await row.getByText('Delivered').isVisible()).toBe(true);
    await expectFitsThePhone(page, 'event-log');
    await row.getByRole('button').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Event details' }).waitFor();
    await dialog.getByText('Bartholomew', { exact: false }).first().waitFor();
    await expectFitsThePhone(page, 'event-drawer');
    expect(await dialog.getByRole('button', { name: 'Replay' }).isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Close event details' }).click();

    // The form with its assistant fields, and the webhook console with an event in it.
    await page.goto('/flows/abandoned-cart');
    await page.getByRole('button', { name: 'Configure Flow' }).click();
    await page.getByRole('button', { name: 'Save Configuration' }).waitFor();
    await page.getByRole('button', { name: 'Add Assistant' }).click();
    await expectFitsThePhone(page, 'flow-form');
    await page.goto('/flows/abandoned-cart');
    await page.getByRole('link', { name: 'Test Webhook' }).click();
    await page.getByTestId('webhook-console').waitFor();
    await page.getByRole('button', { name: 'Start Listening' }).click();
    await page.getByRole('button', { name: 'Send Test Webhook' }).click();
    await page.getByTestId('webhook-event').first().waitFor();
    await expectFitsThePhone(page, 'console');

    // The webhook handler page, public like the URL it shows.
    await page.goto(new URL(urls.abandoned_cart).pathname);
    await page.getByRole('heading', { name: 'Webhook Processed' }).waitFor({ timeout: E2E_WAIT_MS });
    await expectFitsThePhone(page, 'webhook-handler');
    expect(await page.getByRole('link', { name: 'Return to Dashboard' }).isVisible()).toBe(true);
    expectNoBrowserErrors(errors);
    await context.close();
  });

  // A third owner: the privacy page with a shopper found, and the sandbox Klaviyo's profiles.
  it('fits the privacy page with a shopper found, and the sandbox profiles', async () => {
    const { context, page, errors } = await openPhonePage();
    const user = await createSignedInUser(server, context);
    await ownerWithAnEvent(user, 'privacy');
    await page.goto('/settings/privacy');
    await page.getByRole('heading', { level: 1, name: 'Privacy' }).waitFor();
    await page.getByLabel('Shopper’s email').fill('a.very.long.shopper.address.for.narrow.screens.privacy@example-shop.com');
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.getByText('Kept about').waitFor();
    await expectFitsThePhone(page, 'privacy');

    expect((await user.client.call(endpoints.sandbox.start)).status).toBe(200);
    expect((await user.client.call(endpoints.sandbox.activity, { body: {} })).status).toBe(200);
    // This owner's keys are saved, so the sandbox's texts come from (the fake) OpenAI: long lines all the same.
    await expect.poll(async () => JSON.stringify((await user.client.call(endpoints.sandbox.profiles)).json), { timeout: 30_000, interval: 500 }).toContain('subject_line1');
    await page.goto('/sandbox/profiles');
    await page.getByRole('heading', { level: 1, name: sandboxMessages.profilesTitle }).waitFor();
    await page.getByText('subject_line1', { exact: false }).first().waitFor();
    await expectFitsThePhone(page, 'sandbox-profiles');
    expectNoBrowserErrors(errors);
    await context.close();
  });
});

/**
 * Saved keys, three saved flows (post purchase left unsaved, so its page opens in the
 * form) and one delivered event of a shopper with long names and a long address.
 */
async function ownerWithAnEvent(user: E2EUser, tag: string): Promise<{ abandoned_cart: string }> {
  expect((await user.client.call(endpoints.credentials.save, { body: credentialsInput() })).status).toBe(200);
  expect((await user.client.call(endpoints.flows.initialize)).status).toBe(200);
  const urls: Record<string, string> = {};
  for (const flowType of ['browser_abandonment', 'abandoned_cart', 'abandoned_checkout'] as const) {
    const saved = await user.client.call(endpoints.flows.update, { params: { flowType }, body: { isActive: true, assistants: defaultAssistants, klaviyoEventName: null } });
    expect(saved.status, saved.text).toBe(200);
    urls[flowType] = saved.json.flow.webhookUrl as string;
  }
  const email = `a.very.long.shopper.address.for.narrow.screens.${tag}@example-shop.com`;
  const sent = await fetch(urls.abandoned_cart!, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(sampleEvent('abandoned_cart', { email, first_name: 'Bartholomew', last_name: 'Featherstonehaugh' })),
  });
  expect(sent.status).toBeLessThan(300);
  await expect.poll(() => klaviyo.profiles.get(email)?.properties?.subject_line1, { timeout: E2E_WAIT_MS }).toBeTruthy();
  return { abandoned_cart: urls.abandoned_cart! };
}
