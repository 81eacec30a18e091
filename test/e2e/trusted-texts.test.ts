import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import type { E2EServer } from '../support/e2e-server.ts';
import { dismissToasts, expectNoBrowserErrors, expectNoSeriousA11yViolations, toastOf, type BrowserErrors, E2E_WAIT_MS } from '../support/browser.ts';
import type { E2EWithServices } from '../support/e2e-services.ts';
import { useE2ESuite } from '../support/e2e-suite.ts';
import { createSignedInUser } from '../support/e2e-accounts.ts';
import { credentialsInput, postEvent, sampleEvent } from '../support/engine-scenario.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { reviewMessages } from '../../src/shared/reviews/review-messages.ts';
import { flowPreviewMessages } from '../../src/shared/flows/flow-preview-messages.ts';
import { textCheckNames } from '../../src/shared/text-checks/text-check-messages.ts';
import { flowAlertMessages } from '../../src/shared/alerts/flow-alert-messages.ts';
import type { HttpClient } from '../support/http-client.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * Texts an owner can trust, in Chromium (docs/decisions/0040-texts-checked-before-delivery.md):
 * the review list (approve, edit, reject, approve many, then automatic approval once
 * earned), Preview on the flow page, and the alert when a flow stops writing texts
 * (docs/decisions/0041-flow-alerts.md).
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

const assistant = { name: 'Thank you', klaviyo_property: 'thank_you', prompt_template: 'Thank {first_name} for buying {products}' };

async function ownerWithPostPurchase(textRules: Record<string, unknown>): Promise<{ client: HttpClient; webhookPath: string }> {
  const owner = await createSignedInUser(server, context);
  expect((await owner.client.call(endpoints.credentials.save, { body: credentialsInput() })).status).toBe(200);
  const initialized = await owner.client.call(endpoints.flows.initialize);
  const flow = (initialized.json.flows as Array<{ id: string; flowType: string }>).find((candidate) => candidate.flowType === 'post_purchase')!;
  const saved = await owner.client.call(endpoints.flows.update, { params: { flowType: 'post_purchase' }, body: { isActive: true, assistants: [assistant], klaviyoEventName: null, textRules } });
  expect(saved.status, saved.text).toBe(200);
  return { client: owner.client, webhookPath: `/api/webhooks/post_purchase/${flow.id}` };
}

async function eventStatus(client: HttpClient, eventId: string): Promise<string> {
  return (await client.call(endpoints.events.detail, { params: { eventId } })).json.event.status as string;
}

const reviewOf = (email: string) => page.getByTestId('review').filter({ hasText: email.toLowerCase() });

describe('the review list', () => {
  it('approves, edits, rejects and approves many, and then approves by itself', async () => {
    const { client, webhookPath } = await ownerWithPostPurchase({ requireApproval: true, autoApproveAfter: 2 });
    const shoppers = ['approve', 'edit', 'reject', 'many-a', 'many-b'].map((label) => uniqueEmail(`review-${label}`));
    const eventIds: string[] = [];
    for (const email of shoppers) {
      const sent = await postEvent(server.baseUrl, webhookPath, sampleEvent('post_purchase', { email }));
      expect(sent.status, sent.text).toBe(202);
      eventIds.push(sent.json.eventId as string);
    }
    await expect.poll(async () => (await client.call(endpoints.reviews.count)).json.pending, { timeout: E2E_WAIT_MS, interval: 200 }).toBe(5);
    const [approved, edited, rejected, manyA, manyB] = shoppers as [string, string, string, string, string];

    // The dashboard says texts wait, and leads to them.
    await page.goto('/dashboard');
    await page.getByText(reviewMessages.pendingOnDashboard(5)).waitFor();
    // The navigation names them with their count on every signed-in page.
    const approvals = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^Approvals/ });
    await approvals.getByTestId('pending-review-count').filter({ hasText: '5' }).waitFor();
    expect(await approvals.getAttribute('href')).toBe('/reviews');
    await page.getByRole('link', { name: reviewMessages.openReviewList }).click();
    await page.waitForURL('**/reviews');
    await page.getByRole('heading', { level: 1, name: reviewMessages.pageTitle }).waitFor();
    await reviewOf(manyB).waitFor();
    expect(await page.getByTestId('review').count()).toBe(5);
    // Each text with its prompt and its checks.
    await reviewOf(approved).getByText(`${textCheckNames.amounts}: passed`).waitFor();
    await expectNoSeriousA11yViolations(page);

    await reviewOf(approved).getByRole('button', { name: reviewMessages.approve, exact: true }).click();
    await toastOf(page, reviewMessages.approved(1)).waitFor();
    await expect.poll(() => eventStatus(client, eventIds[0]!), { timeout: E2E_WAIT_MS }).toBe('delivered');

    await reviewOf(edited).getByRole('button', { name: reviewMessages.edit, exact: true }).click();
    await reviewOf(edited).getByRole('textbox', { name: 'Text of Thank you' }).fill('Thanks, Sam! Enjoy your new Trail Shoe.');
    await reviewOf(edited).getByRole('button', { name: reviewMessages.saveAndApprove }).click();
    await expect.poll(() => eventStatus(client, eventIds[1]!), { timeout: E2E_WAIT_MS }).toBe('delivered');
    expect(services.klaviyo.profiles.get(edited.toLowerCase())?.properties.thank_you ?? services.klaviyo.profiles.get(edited)?.properties.thank_you).toBe(
      'Thanks, Sam! Enjoy your new Trail Shoe.',
    );

    await dismissToasts(page);
    await reviewOf(rejected).getByRole('button', { name: reviewMessages.reject, exact: true }).click();
    await toastOf(page, reviewMessages.rejectedToast(1)).waitFor();
    await expect.poll(() => eventStatus(client, eventIds[2]!), { timeout: E2E_WAIT_MS }).toBe('skipped');
    await reviewOf(rejected).waitFor({ state: 'detached' });

    await dismissToasts(page);
    await page.getByRole('checkbox', { name: reviewMessages.select(manyA.toLowerCase()) }).check();
    await page.getByRole('checkbox', { name: reviewMessages.select(manyB.toLowerCase()) }).check();
    await page.getByRole('button', { name: reviewMessages.approveSelected(2) }).click();
    await toastOf(page, reviewMessages.approved(2)).waitFor();
    await expect.poll(() => eventStatus(client, eventIds[3]!), { timeout: E2E_WAIT_MS }).toBe('delivered');
    await expect.poll(() => eventStatus(client, eventIds[4]!), { timeout: E2E_WAIT_MS }).toBe('delivered');
    await page.getByText(reviewMessages.empty).waitFor();

    // Two unchanged approvals in a row (the edit and the rejection broke the run before them):
    // the next order's texts go out without waiting.
    const trusted = uniqueEmail('review-trusted');
    const sent = await postEvent(server.baseUrl, webhookPath, sampleEvent('post_purchase', { email: trusted }));
    await expect.poll(() => eventStatus(client, sent.json.eventId as string), { timeout: E2E_WAIT_MS }).toBe('delivered');
    expect((await client.call(endpoints.reviews.count)).json.pending).toBe(0);
    expectNoBrowserErrors(errors);
  });
});

describe('Preview on the flow page', () => {
  it('writes the texts for the sample event and for a past event, with every check and the Klaviyo tag, delivering nothing', async () => {
    const { client, webhookPath } = await ownerWithPostPurchase({});
    const shopper = uniqueEmail('preview-past');
    const sent = await postEvent(server.baseUrl, webhookPath, sampleEvent('post_purchase', { email: shopper, first_name: 'Robin' }));
    const pastEventId = sent.json.eventId as string;
    await expect.poll(() => eventStatus(client, pastEventId), { timeout: E2E_WAIT_MS }).toBe('delivered');
    const profilesBefore = services.klaviyo.profiles.size;

    await page.goto('/flows/post-purchase/preview');
    await page.getByRole('heading', { level: 2, name: flowPreviewMessages.title }).waitFor();
    await page.getByRole('button', { name: flowPreviewMessages.run }).click();
    const results = page.getByTestId('flow-preview-results');
    await results.getByText(flowPreviewMessages.sample('Post Purchase')).waitFor();
    const text = results.getByTestId('flow-preview-text');
    await text.getByText(/Thank \{first_name\} for buying \{products\}/).first().waitFor();
    for (const check of Object.values(textCheckNames)) await text.getByText(new RegExp(`^${check}: `)).waitFor();
    expect(await text.getByTestId('klaviyo-tag-text').textContent()).toBe("{{ person|lookup:'thank_you' }}");
    await expectNoSeriousA11yViolations(page);

    await page.getByLabel(flowPreviewMessages.pastEventLabel).fill(pastEventId);
    await page.getByRole('button', { name: flowPreviewMessages.run }).click();
    await results.getByText(new RegExp(`^The event of ${shopper.toLowerCase().replace(/[.+]/g, '\\$&')}`)).waitFor();
    await results.getByText(/"first_name": "Robin"/).first().waitFor();

    await page.getByLabel(flowPreviewMessages.pastEventLabel).fill('no-such-event');
    await page.getByRole('button', { name: flowPreviewMessages.run }).click();
    await page.getByText(flowPreviewMessages.eventNotFound).waitFor();

    // Nothing was delivered by any preview.
    expect(services.klaviyo.profiles.size).toBe(profilesBefore);
    expectNoBrowserErrors(errors);
  });
});

describe('a flow that stops writing texts', () => {
  it('is shown on the dashboard and on the flow page, with the count and the control that lifts it', async () => {
    const { client, webhookPath } = await ownerWithPostPurchase({});
    const capped = await client.call(endpoints.flows.update, { params: { flowType: 'post_purchase' }, body: { isActive: true, assistants: [assistant], klaviyoEventName: null, dailyGenerationCap: 1 } });
    expect(capped.status, capped.text).toBe(200);
    const eventIds: string[] = [];
    for (const label of ['first', 'second', 'third']) {
      const sent = await postEvent(server.baseUrl, webhookPath, sampleEvent('post_purchase', { email: uniqueEmail(`alert-${label}`) }));
      eventIds.push(sent.json.eventId as string);
      await expect.poll(() => eventStatus(client, sent.json.eventId as string), { timeout: E2E_WAIT_MS }).toMatch(/delivered|skipped/);
    }
    const title = flowAlertMessages.title('Post Purchase');
    const said = flowAlertMessages.reason.daily_cap('1', 2);

    await page.goto('/dashboard');
    const onDashboard = page.getByTestId('flow-alerts');
    await onDashboard.getByText(title).waitFor();
    await onDashboard.getByText(said).waitFor();
    await expectNoSeriousA11yViolations(page);

    await page.goto('/flows/post-purchase');
    await page.getByTestId('flow-alerts').getByText(said).waitFor();
    expectNoBrowserErrors(errors);
  });
});
