import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import type { E2EServer } from '../support/e2e-server.ts';
import { expectNoBrowserErrors, expectNoSeriousA11yViolations, toastOf, type BrowserErrors, E2E_WAIT_MS } from '../support/browser.ts';
import type { E2EWithServices } from '../support/e2e-services.ts';
import { useE2ESuite } from '../support/e2e-suite.ts';
import { createSignedInUser } from '../support/e2e-accounts.ts';
import { credentialsInput } from '../support/engine-scenario.ts';
import { strongPassword, uniqueEmail } from '../support/accounts.ts';
import { authMessages } from '../../src/shared/messages.ts';
import { sandboxMessages } from '../../src/shared/sandbox/sandbox-messages.ts';
import { flowTypeDetails, flowTypes } from '../../src/shared/flows/flow-types.ts';
import { sampleShoppers } from '../../src/server/sandbox/sample-shop.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * "Try before connecting": a new owner with no account anywhere signs up, starts the
 * sandbox and sees a text for each of the four flows on the sandbox Klaviyo's profiles.
 * The configured services are the recording fakes: they must hear nothing from the
 * sandbox; once credentials are saved the owner switches to them in one step.
 */
let services: E2EWithServices;
let server: E2EServer;

const requestsToRealServices = () => services.openai.requests.length + services.klaviyo.requests.length + services.shopify.requests.length;

let context: BrowserContext;
let page: Page;
let errors: BrowserErrors;
useE2ESuite(
  (started) => {
    services = started;
    ({ server } = started);
  },
  (opened) => ({ context, page, errors } = opened),
);

const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true });
const field = (label: string) => page.getByLabel(label, { exact: true });
/** The accessibility checks are about the page: the toasts (checked elsewhere) are let go first, by themselves. */
const toastsGone = () => expect.poll(() => page.locator('[data-sonner-toast]').count(), { timeout: E2E_WAIT_MS }).toBe(0);

describe('the sandbox in the browser', () => {
  it('takes a new owner from sign-up to a sample text on a sandbox profile for each of the four flows, with no service key set', async () => {
    const before = requestsToRealServices();
    const email = uniqueEmail('sandbox');
    await page.goto('/auth/register');
    await heading('Create an Account').waitFor();
    await field('Full name').fill('Sandy Shopkeeper');
    await field('Email').fill(email);
    await field('Password').fill(strongPassword);
    await field('Confirm password').fill(strongPassword);
    await page.getByRole('button', { name: 'Create Account' }).click();
    await toastOf(page, authMessages.registrationVerify).waitFor();
    const mail = await server.smtp.waitForMail(email, 'Confirm your email');
    await page.goto(server.smtp.linkIn(mail, '/auth/verify'));
    await page.waitForURL('**/dashboard', { timeout: E2E_WAIT_MS });
    await heading('Welcome, Sandy Shopkeeper').waitFor();

    // The dashboard offers the sandbox to an owner without credentials, and so does the
    // setup screen in front of a flow page, which lets a sandbox owner through.
    await page.getByRole('heading', { name: sandboxMessages.tryTitle }).waitFor();
    await expectNoSeriousA11yViolations(page);
    await page.goto(flowTypeDetails.abandoned_cart.path);
    await heading('Complete Your Setup').waitFor();
    await page.getByRole('button', { name: sandboxMessages.tryButton }).click();
    await toastOf(page, sandboxMessages.started).waitFor();
    await heading(flowTypeDetails.abandoned_cart.title).waitFor();
    await page.getByRole('note').getByText(sandboxMessages.flowBanner).waitFor();
    await page.getByRole('link', { name: 'Dashboard', exact: true }).first().click();
    await page.getByRole('heading', { name: sandboxMessages.activeTitle }).waitFor();
    await expect.poll(() => page.getByText(sandboxMessages.badge, { exact: true }).count()).toBeGreaterThan(0);
    await toastsGone();
    await expectNoSeriousA11yViolations(page);

    await page.getByRole('button', { name: sandboxMessages.sendActivity }).first().click();
    await toastOf(page, sandboxMessages.activitySent(4)).waitFor();
    await page.getByRole('link', { name: sandboxMessages.viewProfiles }).click();
    await page.waitForURL('**/sandbox/profiles');
    await heading(sandboxMessages.profilesTitle).waitFor();

    for (const flowType of flowTypes) {
      const shopper = sampleShoppers[flowType];
      const profile = page.getByRole('article', { name: `Profile ${shopper.email}` });
      await expect.poll(async () => (await profile.count()) > 0 && ((await profile.textContent()) ?? '').includes(sandboxMessages.sampleTextLabel), { timeout: 30_000, interval: 500 }).toBe(true);
      const text = (await profile.textContent()) ?? '';
      expect(text, flowType).toContain('subject_line1');
      expect(text).toContain('Model: gpt-5-mini');
      expect(text).toContain('Write a subject line for');
    }
    await toastsGone();
    await expectNoSeriousA11yViolations(page);

    // The flow pages are open to a sandbox owner and marked as the sandbox; the event
    // log's delivery leads to the sandbox profile.
    for (const flowType of flowTypes) {
      await page.goto(flowTypeDetails[flowType].path);
      await heading(flowTypeDetails[flowType].title).waitFor();
      await page.getByRole('note').getByText(sandboxMessages.flowBanner).waitFor();
      expect(await page.getByRole('heading', { name: 'Complete Your Setup' }).count()).toBe(0);
    }
    await page.goto(`${flowTypeDetails.post_purchase.path}/events`);
    const row = page.getByTestId('event-log-row').filter({ hasText: sampleShoppers.post_purchase.firstName }).first();
    await row.waitFor({ timeout: E2E_WAIT_MS });
    expect(await row.textContent()).toContain(sandboxMessages.badge);
    await row.getByRole('button').first().click();
    await page.getByRole('link', { name: 'Open the sandbox profile' }).click();
    await page.waitForURL(`**/sandbox/profiles?email=${encodeURIComponent(sampleShoppers.post_purchase.email)}`);
    await page.getByRole('article', { name: `Profile ${sampleShoppers.post_purchase.email}` }).waitFor();
    await expectNoSeriousA11yViolations(page);

    expect(requestsToRealServices()).toBe(before);
    expectNoBrowserErrors(errors);
  });

  it('switches a sandbox owner to their real services in one step once credentials are saved', async () => {
    const user = await createSignedInUser(server, context, { fullName: 'Ravi Ready' });
    expect((await user.client.call(endpoints.sandbox.start)).status).toBe(200);
    const saved = await user.client.call(endpoints.credentials.save, { body: credentialsInput() });
    expect(saved.status, saved.text).toBe(200);

    await page.goto(flowTypeDetails.abandoned_checkout.path);
    const banner = page.getByRole('note').filter({ hasText: sandboxMessages.flowBanner });
    await banner.waitFor();
    await expectNoSeriousA11yViolations(page);
    await banner.getByRole('button', { name: sandboxMessages.useRealServices }).click();
    await toastOf(page, sandboxMessages.switchedToReal).waitFor();
    await banner.waitFor({ state: 'detached' });
    await heading(flowTypeDetails.abandoned_checkout.title).waitFor();

    await page.goto('/dashboard');
    await heading('Welcome, Ravi Ready').waitFor();
    expect(await page.getByRole('heading', { name: sandboxMessages.activeTitle }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: sandboxMessages.tryTitle }).count()).toBe(0);
    expect((await user.client.call(endpoints.sandbox.status)).json).toMatchObject({ active: false, tried: true });
    expectNoBrowserErrors(errors);
  });
});
