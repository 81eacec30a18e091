import { openFlowSection } from '../support/flow-page.ts';
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import type { E2EServer } from '../support/e2e-server.ts';
import { expectNoBrowserErrors, expectNoSeriousA11yViolations, type BrowserErrors } from '../support/browser.ts';
import { useE2EServerSuite } from '../support/e2e-suite.ts';
import { createSignedInUser, type E2EUser } from '../support/e2e-accounts.ts';
import { flowTypeDetails } from '../../src/shared/flows/flow-types.ts';
import { recommendationMessages } from '../../src/shared/flows/flow-messages.ts';
import { flowPreviewMessages } from '../../src/shared/flows/flow-preview-messages.ts';
import { sandboxMessages } from '../../src/shared/sandbox/sandbox-messages.ts';
import { sampleProducts } from '../../src/server/sandbox/sample-shop.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * The shopper in the prompt, in the browser (docs/decisions/0049 and 0050): in the
 * sandbox, an owner adds the shopper's placeholders and the shop's recommendations to an
 * assistant, Preview writes for a sample shopper's checkout with the prompt filled in,
 * and the next sample checkout puts the recommendations on the sandbox profile as a list.
 */
let server: E2EServer;
let context: BrowserContext;
let page: Page;
let errors: BrowserErrors;
useE2EServerSuite(
  (started) => ({ server } = started),
  (opened) => ({ context, page, errors } = opened),
);

const sampleTitles = sampleProducts.map((product) => product.title);

/** Sends the sandbox's sample checkout and answers its event once it has been delivered. */
async function sampleCheckout(user: E2EUser): Promise<{ eventId: string; email: string }> {
  const sent = await user.client.call(endpoints.sandbox.activity, { body: { flowType: 'abandoned_checkout' } });
  expect(sent.status, sent.text).toBe(200);
  const eventId = (sent.json.events as Array<{ eventId: string }>)[0]!.eventId;
  await expect
    .poll(async () => (await user.client.call(endpoints.events.detail, { params: { eventId } })).json.event?.status, { timeout: 30_000, interval: 300 })
    .toBe('delivered');
  const detail = await user.client.call(endpoints.events.detail, { params: { eventId } });
  return { eventId, email: detail.json.event.shopperEmail as string };
}

describe('the shopper and the shop in the prompt', () => {
  it('adds context placeholders to an assistant, previews the filled prompt for a sample shopper, and puts the recommendations on the sandbox profile', async () => {
    const user = await createSignedInUser(server, context, { fullName: 'Cora Context' });
    expect((await user.client.call(endpoints.sandbox.start)).status).toBe(200);
    const first = await sampleCheckout(user);

    const checkout = flowTypeDetails.abandoned_checkout;
    await page.goto(checkout.path);
    await page.getByRole('heading', { level: 1, name: checkout.title, exact: true }).waitFor();
    await page.getByRole('button', { name: 'Configure Flow' }).click();
    const assistant = page.locator('[data-assistant="1"]');
    await assistant.getByLabel('Prompt template', { exact: true }).fill('Remind a {shopper_status} about {name}; ');
    await assistant.getByRole('button', { name: /^Insert \{recommendations\}/ }).click();
    const recommendations = page.getByTestId('recommendation-fields');
    await recommendations.getByRole('heading', { name: recommendationMessages.sectionTitle }).or(recommendations.getByText(recommendationMessages.sectionTitle, { exact: true })).first().waitFor();
    await recommendations.getByLabel(recommendationMessages.propertyLabel, { exact: true }).fill('recommended_products');
    await expectNoSeriousA11yViolations(page);
    await page.getByRole('button', { name: 'Save Configuration' }).click();
    await page.getByRole('button', { name: 'Configure Flow' }).waitFor();

    // Preview writes for the sample shopper's checkout: the prompt shows what is known of them.
    await openFlowSection(page, 'preview');
    await page.getByRole('heading', { level: 2, name: flowPreviewMessages.title }).waitFor();
    await page.getByLabel(flowPreviewMessages.pastEventLabel).fill(first.eventId);
    await page.getByRole('button', { name: flowPreviewMessages.run }).click();
    const results = page.getByTestId('flow-preview-results');
    const prompt = results.getByTestId('flow-preview-prompt').first();
    await prompt.waitFor({ timeout: 30_000 });
    const promptText = (await prompt.textContent()) ?? '';
    expect(promptText).toContain('"shopper_status": "new customer"');
    expect(promptText).toMatch(/"recommendations": "[^"]+ \(\d+\.\d{2} EUR\)/);
    await results.getByText(flowPreviewMessages.recommendationsTitle).waitFor();
    await results.getByText(flowPreviewMessages.recommendationsProperty('recommended_products')).waitFor();
    const previewed = await results.getByRole('link').allTextContents();
    expect(previewed.length).toBeGreaterThanOrEqual(1);
    for (const title of previewed) expect(sampleTitles.some((sample) => title.includes(sample))).toBe(true);
    await expectNoSeriousA11yViolations(page);

    // The next sample checkout writes the list to the sandbox profile.
    const second = await sampleCheckout(user);
    await page.goto(`/sandbox/profiles?email=${encodeURIComponent(second.email)}`);
    await page.getByRole('heading', { level: 1, name: sandboxMessages.profilesTitle }).waitFor();
    const profile = page.getByRole('article', { name: `Profile ${second.email}` });
    await profile.getByText('recommended_products', { exact: true }).waitFor();
    const listed = await profile.getByRole('listitem').allTextContents();
    expect(listed.length).toBeGreaterThanOrEqual(1);
    for (const item of listed) expect(item).toMatch(new RegExp(`^(${sampleTitles.join('|')}) · \\d+\\.\\d{2} EUR$`));
    await expectNoSeriousA11yViolations(page);
    expectNoBrowserErrors(errors);
  });
});
