import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import type { E2EServer } from '../support/e2e-server.ts';
import { expectNoBrowserErrors, expectNoSeriousA11yViolations, type BrowserErrors, E2E_WAIT_MS } from '../support/browser.ts';
import type { E2EWithServices } from '../support/e2e-services.ts';
import { useE2ESuite } from '../support/e2e-suite.ts';
import { createSignedInUser } from '../support/e2e-accounts.ts';
import { credentialsInput, defaultAssistants, postEvent, sampleEvent } from '../support/engine-scenario.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * Settings → Privacy in Chromium: the owner finds a shopper, downloads what is kept,
 * erases it, and the audit list shows the erasure.
 */
let services: E2EWithServices;
let server: E2EServer;

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

describe('the privacy page', () => {
  it('finds a shopper, exports what is kept, erases it and lists the erasure', async () => {
    const owner = await createSignedInUser(server, context);
    expect((await owner.client.call(endpoints.credentials.save, { body: credentialsInput() })).status).toBe(200);
    const initialized = await owner.client.call(endpoints.flows.initialize);
    expect(initialized.status).toBe(200);
    const cartFlow = (initialized.json.flows as Array<{ id: string; flowType: string }>).find((candidate) => candidate.flowType === 'abandoned_cart')!;
    const saved = await owner.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: { isActive: true, assistants: defaultAssistants, klaviyoEventName: null } });
    expect(saved.status, saved.text).toBe(200);
    const webhookPath = `/api/webhooks/abandoned_cart/${cartFlow.id}`;
    const shopper = uniqueEmail('privacy-shopper');
    const sent = await postEvent(server.baseUrl, webhookPath, sampleEvent('abandoned_cart', { email: shopper }));
    expect(sent.status, sent.text).toBe(202);
    const eventId = sent.json.eventId as string;
    await expect
      .poll(async () => (await owner.client.call(endpoints.privacy.shopper, { query: { email: shopper } })).json.texts, { timeout: E2E_WAIT_MS, interval: 200 })
      .toBeGreaterThanOrEqual(2);

    await page.goto('/dashboard');
    await page.getByRole('link', { name: 'Privacy', exact: true }).first().click();
    await page.waitForURL('**/settings/privacy');
    await page.getByRole('heading', { level: 1, name: 'Privacy' }).waitFor();
    await page.getByLabel('Shopper’s email').fill(shopper);
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.getByText('Kept about').waitFor();
    await expect.poll(async () => page.getByRole('list', { name: 'Events of this shopper' }).getByRole('listitem').count()).toBe(1);
    await expectNoSeriousA11yViolations(page);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export (JSON)' }).click()]);
    const exported = JSON.parse(await readFile((await download.path())!, 'utf8'));
    expect(exported.shopper).toBe(shopper);
    expect(exported.events.map((event: { id: string }) => event.id)).toEqual([eventId]);

    expect(Object.keys(services.klaviyo.profiles.get(shopper)!.properties).sort()).toEqual(['body_copy', 'subject_line1']);
    await page.getByRole('button', { name: 'Erase', exact: true }).click();
    const confirm = page.getByRole('group', { name: 'Confirm erasure' });
    await confirm.getByLabel("Also remove Flowsmith's properties from the shopper's Klaviyo profile").check();
    await expectNoSeriousA11yViolations(page);
    await confirm.getByRole('button', { name: 'Erase for good' }).click();
    await page.getByText(/Erased \d+ records/).waitFor();
    await page.getByText(`Nothing is kept about ${shopper}.`).waitFor();
    expect(services.klaviyo.profiles.get(shopper)!.properties).toEqual({});

    const audit = page.getByRole('table', { name: 'Privacy requests' });
    // Once erased, the audit list names the shopper only by a masked address.
    const maskedShopper = `${shopper[0]}***@${shopper.split('@')[1]}`;
    await audit.getByRole('row', { name: new RegExp(`Erased by you.*${maskedShopper.replace(/[.+*]/g, '\\$&')}`) }).waitFor();
    await expectNoSeriousA11yViolations(page);

    // Found again from scratch, the shopper is gone.
    await page.reload();
    await page.getByLabel('Shopper’s email').fill(shopper);
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.getByText(`Nothing is kept about ${shopper}.`).waitFor();
    expectNoBrowserErrors(errors);
  });
});
