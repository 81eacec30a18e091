import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import type { E2EServer } from '../support/e2e-server.ts';
import { dismissToasts, expectNoBrowserErrors, expectNoSeriousA11yViolations, fieldErrorOf, saveScreenshot, toastOf, type BrowserErrors } from '../support/browser.ts';
import { useE2ESuite } from '../support/e2e-suite.ts';
import { openFlowSection } from '../support/flow-page.ts';
import { createSignedInUser } from '../support/e2e-accounts.ts';
import { credentialsInput, postEvent, sampleEvent } from '../support/engine-scenario.ts';
import { uniqueEmail } from '../support/accounts.ts';
import type { HttpClient } from '../support/http-client.ts';
import { experimentArmLabel, experimentMessages } from '../../src/shared/experiments/experiment-messages.ts';
import type { ExperimentsResponse } from '../../src/shared/experiments/experiment-schemas.ts';
import { experimentTexts } from '../../src/web/experiments/experiment-texts.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * An experiment on a flow's page, in Chromium (docs/decisions/0043-experiments.md): the
 * owner sets up two variants and a holdout through the card, shoppers arrive and some
 * order, the results show every group, and promoting a variant by hand makes its prompts
 * the flow's and moves the experiment to the past ones.
 */
let server: E2EServer;
let context: BrowserContext;
let page: Page;
let errors: BrowserErrors;
useE2ESuite(
  (started) => ({ server } = started),
  (opened) => ({ context, page, errors } = opened),
);

const phone = { width: 390, height: 844 };
const desktop = { width: 1280, height: 800 };

const assistants = [
  { name: 'Thank you', klaviyo_property: 'thank_you', prompt_template: 'Thank {first_name} for buying {products}' },
  { name: 'Next purchase', klaviyo_property: 'next_tip', prompt_template: 'Suggest what {first_name} could buy next' },
];
const variantB = {
  thank_you: 'Thank {first_name} warmly for {products}, in one short sentence',
  next_tip: 'Name one product that goes well with {products}, for {first_name}',
};

async function experimentsOf(client: HttpClient): Promise<ExperimentsResponse> {
  const answer = await client.call(endpoints.experiments.list, { params: { flowType: 'post_purchase' } });
  expect(answer.status, answer.text).toBe(200);
  return answer.json as ExperimentsResponse;
}

const total = (experiments: ExperimentsResponse, figure: 'exposures' | 'orders' | 'converted') =>
  (experiments.current?.groups ?? []).reduce((sum, group) => sum + group[figure], 0);

/** A generic order of `email` placed now, with its own order id (the post-purchase flow's event). */
function orderEvent(email: string, orderId: string, amount: number) {
  const event = sampleEvent('post_purchase', { email });
  return { ...event, properties: { ...event.properties, order_id: orderId, total: amount, purchased_at: new Date().toISOString() } };
}

/** A signed-up owner with saved credentials and the post-purchase flow saved with two assistants. */
async function ownerWithPostPurchase(): Promise<{ client: HttpClient; webhookPath: string }> {
  const owner = await createSignedInUser(server, context);
  expect((await owner.client.call(endpoints.credentials.save, { body: credentialsInput() })).status).toBe(200);
  const initialized = await owner.client.call(endpoints.flows.initialize);
  expect(initialized.status, initialized.text).toBe(200);
  const flow = (initialized.json.flows as Array<{ id: string; flowType: string }>).find((candidate) => candidate.flowType === 'post_purchase')!;
  const saved = await owner.client.call(endpoints.flows.update, { params: { flowType: 'post_purchase' }, body: { isActive: true, assistants, klaviyoEventName: null } });
  expect(saved.status, saved.text).toBe(200);
  return { client: owner.client, webhookPath: `/api/webhooks/post_purchase/${flow.id}` };
}

describe('an experiment on the flow page', () => {
  it('starts variants A and B with a holdout, shows every group with its shoppers and orders, and promotes B', async () => {
    const { client, webhookPath } = await ownerWithPostPurchase();

    // Nothing runs yet: the card explains and offers the form, variant A with the flow's prompts.
    await page.goto('/flows/post-purchase/experiment');
    const card = page.getByTestId('experiment-card');
    await card.getByRole('heading', { level: 2, name: experimentTexts.title }).waitFor();
    const form = card.getByRole('form', { name: experimentTexts.formLabel });
    const variantAGroup = form.getByRole('group', { name: experimentTexts.variant('A') });
    expect(await variantAGroup.getByLabel('Thank you', { exact: true }).inputValue()).toBe(assistants[0]!.prompt_template);
    expect(await variantAGroup.getByLabel('Next purchase', { exact: true }).inputValue()).toBe(assistants[1]!.prompt_template);
    expect(await form.getByLabel(experimentTexts.holdoutLabel).inputValue()).toBe('10');
    expect(await form.getByRole('button', { name: experimentTexts.removeVariant('A') }).count()).toBe(0);
    await expectNoSeriousA11yViolations(page);

    // Variant B starts as a copy of A; its prompts are rewritten, and the holdout refused out of range first.
    await form.getByRole('button', { name: experimentTexts.addVariant }).click();
    const variantBGroup = form.getByRole('group', { name: experimentTexts.variant('B') });
    expect(await variantBGroup.getByLabel('Thank you', { exact: true }).inputValue()).toBe(assistants[0]!.prompt_template);
    await variantBGroup.getByLabel('Thank you', { exact: true }).fill(variantB.thank_you);
    await variantBGroup.getByLabel('Next purchase', { exact: true }).fill(variantB.next_tip);
    // B writes without what is known of the shopper, to measure what that adds.
    expect(await variantBGroup.getByLabel(experimentMessages.shopperContextLabel).isChecked()).toBe(true);
    await variantBGroup.getByLabel(experimentMessages.shopperContextLabel).uncheck();
    await form.getByLabel(experimentTexts.holdoutLabel).fill('60');
    await form.getByRole('button', { name: experimentTexts.start }).click();
    await expect.poll(() => fieldErrorOf(page, experimentTexts.holdoutLabel)).toBe(experimentMessages.holdoutRange);
    await form.getByLabel(experimentTexts.holdoutLabel).fill('20');
    await form.getByRole('button', { name: experimentTexts.start }).click();
    await toastOf(page, experimentMessages.started).waitFor();

    const started = await experimentsOf(client);
    expect(started.current).toMatchObject({ status: 'running', holdoutPercent: 20, split: 'fixed', autoPromote: false, objective: 'conversion', objectiveCurrency: null });
    expect(started.current!.arms).toEqual([
      { key: 'A', prompts: { thank_you: assistants[0]!.prompt_template, next_tip: assistants[1]!.prompt_template }, shopperContext: true },
      { key: 'B', prompts: variantB, shopperContext: false },
    ]);
    await card.getByTestId('experiment-current').waitFor();
    await card.getByTestId('experiment-group-holdout').waitFor();
    await card.getByTestId('experiment-group-B').getByText(experimentTexts.variant(experimentArmLabel('B', false))).waitFor();
    // The flow's own form says its prompts wait while the experiment runs.
    await openFlowSection(page, 'settings');
    await page.getByRole('form', { name: 'Flow configuration' }).getByText(experimentMessages.promptsWaitTitle).waitFor();
    await page.getByRole('form', { name: 'Flow configuration' }).getByRole('button', { name: 'Cancel' }).click();
    await openFlowSection(page, 'experiment');
    await card.getByTestId('experiment-current').waitFor();

    // Eight shoppers buy (each one exposure); then four of them order again, which the experiment credits.
    const shoppers = Array.from({ length: 8 }, (_, index) => uniqueEmail(`experiment-${index}`));
    for (const [index, email] of shoppers.entries()) {
      const sent = await postEvent(server.baseUrl, webhookPath, orderEvent(email, `ord_first_${index}_${Date.now()}`, 50));
      expect(sent.status, sent.text).toBe(202);
    }
    await expect.poll(async () => total(await experimentsOf(client), 'exposures'), { timeout: 30_000, interval: 500 }).toBe(shoppers.length);
    const buyers = shoppers.slice(0, 4);
    for (const [index, email] of buyers.entries()) {
      const sent = await postEvent(server.baseUrl, webhookPath, orderEvent(email, `ord_again_${index}_${Date.now()}`, 40 + index));
      expect(sent.status, sent.text).toBe(202);
    }
    await expect.poll(async () => total(await experimentsOf(client), 'orders'), { timeout: 30_000, interval: 500 }).toBe(buyers.length);
    const results = await experimentsOf(client);
    expect(total(results, 'exposures')).toBe(shoppers.length);
    expect(total(results, 'converted')).toBe(buyers.length);

    // The page, read again: a row per group, their shoppers adding up, the summary said plainly.
    await page.reload();
    await card.getByTestId('experiment-current').waitFor();
    const shown: Record<string, number> = {};
    for (const key of ['A', 'B', 'holdout']) {
      const row = card.getByTestId(`experiment-group-${key}`);
      await row.waitFor();
      shown[key] = Number((await row.locator(`td[data-label="${experimentTexts.columns.exposures}"]`).innerText()).replace(/\D/g, ''));
      const expected = results.current!.groups.find((group) => group.key === key)!;
      expect(shown[key], `shoppers of ${key}`).toBe(expected.exposures);
    }
    expect(Object.values(shown).reduce((sum, count) => sum + count, 0)).toBe(shoppers.length);
    const summary = card.getByTestId('experiment-summary');
    expect(results.current!.summary.length).toBeGreaterThan(0);
    for (const sentence of results.current!.summary) await summary.getByText(sentence, { exact: true }).waitFor();
    await dismissToasts(page);
    await expectNoSeriousA11yViolations(page);
    await saveScreenshot(page, 'experiment-results');

    // A phone: the results become a list of cards, and nothing makes the page scroll sideways.
    await page.setViewportSize(phone);
    await card.getByTestId('experiment-group-B').waitFor();
    const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    await expectNoSeriousA11yViolations(page);
    await saveScreenshot(page, 'experiment-results-phone');
    await page.setViewportSize(desktop);

    // Promote B by hand: asked first, then its prompts are the flow's and the experiment is past.
    await card.getByRole('button', { name: experimentTexts.promoteVariant('B') }).click();
    await card.getByText(experimentTexts.confirmPromote('B')).waitFor();
    await card.getByRole('button', { name: experimentTexts.confirmPromoteButton('B') }).click();
    await toastOf(page, experimentMessages.promoted('B')).waitFor();
    await card.getByTestId('experiment-current').waitFor({ state: 'detached' });
    const after = await experimentsOf(client);
    expect(after.current).toBeNull();
    expect(after.past[0]).toMatchObject({ status: 'ended', endReason: 'promoted', winner: 'B' });

    // A new experiment would start from the promoted prompts.
    const newForm = card.getByRole('form', { name: experimentTexts.formLabel });
    await expect
      .poll(() => newForm.getByRole('group', { name: experimentTexts.variant('A') }).getByLabel('Thank you', { exact: true }).inputValue())
      .toBe(variantB.thank_you);

    // The past experiments, folded: the reason it ended and its results.
    const past = card.getByTestId('past-experiments');
    await past.getByText(experimentTexts.pastHeading(1)).click();
    const pastExperiment = past.getByTestId('past-experiment').first();
    await pastExperiment.getByText(experimentMessages.endReason.promoted('B')).waitFor();
    await pastExperiment.getByTestId('experiment-group-B').waitFor();
    await pastExperiment.getByTestId('experiment-group-holdout').waitFor();

    // The flow's own form shows B's prompts.
    await openFlowSection(page, 'settings');
    const flowForm = page.getByRole('form', { name: 'Flow configuration' });
    const templates = flowForm.getByLabel('Prompt template', { exact: true });
    await expect.poll(() => templates.nth(0).inputValue()).toBe(variantB.thank_you);
    expect(await templates.nth(1).inputValue()).toBe(variantB.next_tip);
    expect(await flowForm.getByText(experimentMessages.promptsWaitTitle).count()).toBe(0);

    await dismissToasts(page);
    await expectNoSeriousA11yViolations(page);
    expectNoBrowserErrors(errors);
  });

  it('reopens the form from the running experiment, starts a new one when the holdout changes, and ends it without a winner', async () => {
    const { client } = await ownerWithPostPurchase();
    const set = await client.call(endpoints.experiments.setUp, { params: { flowType: 'post_purchase' }, body: {
      arms: [{ prompts: { thank_you: assistants[0]!.prompt_template, next_tip: assistants[1]!.prompt_template } }, { prompts: variantB }],
      holdoutPercent: 10,
      split: 'adaptive',
      minExposures: 50,
      autoPromote: true,
    } });
    expect(set.status, set.text).toBe(200);

    await page.goto('/flows/post-purchase/experiment');
    const card = page.getByTestId('experiment-card');
    await card.getByTestId('experiment-current').waitFor();
    // Nobody has arrived yet: every figure says so.
    await card.getByTestId('experiment-group-A').getByText(experimentMessages.notEnoughData).first().waitFor();
    await card.getByTestId('experiment-summary').getByText(experimentMessages.summary.waiting).waitFor();

    await card.getByRole('button', { name: experimentTexts.changeVariants }).click();
    const form = card.getByRole('form', { name: experimentTexts.changeFormLabel });
    await form.getByText(experimentTexts.changeNote).waitFor();
    expect(await form.getByRole('group', { name: experimentTexts.variant('B') }).getByLabel('Next purchase', { exact: true }).inputValue()).toBe(variantB.next_tip);
    expect(await form.getByLabel(experimentTexts.splitOptions.adaptive).isChecked()).toBe(true);
    expect(await form.getByLabel(experimentTexts.autoPromoteLabel).isChecked()).toBe(true);
    expect(await form.getByLabel(experimentTexts.minExposuresLabel).inputValue()).toBe('50');
    await expectNoSeriousA11yViolations(page);
    // On a phone the form fits too.
    await page.setViewportSize(phone);
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await page.setViewportSize(desktop);

    // Cancel keeps the experiment as it was; a setting alone changes it in place; a new holdout starts a new one.
    await form.getByRole('button', { name: experimentTexts.cancel }).click();
    await card.getByTestId('experiment-current').waitFor();
    const firstId = (await experimentsOf(client)).current!.id;
    await card.getByRole('button', { name: experimentTexts.changeVariants }).click();
    await form.getByLabel(experimentTexts.autoPromoteLabel).uncheck();
    // Judged by revenue per shopper: the currency appears, filled in (this shop has no revenue yet: USD); emptied, it is asked for.
    expect(await form.getByLabel(experimentMessages.objectiveCurrencyLabel).count()).toBe(0);
    await form.getByLabel(experimentMessages.objectiveLabel).selectOption('revenue_per_exposure');
    const currency = form.getByLabel(experimentMessages.objectiveCurrencyLabel);
    expect(await currency.inputValue()).toBe('USD');
    await currency.fill('');
    await form.getByRole('button', { name: experimentTexts.saveChanges }).click();
    await expect.poll(() => fieldErrorOf(page, experimentMessages.objectiveCurrencyLabel)).toBe(experimentMessages.currencyRequired);
    await currency.fill('eur');
    await form.getByRole('button', { name: experimentTexts.saveChanges }).click();
    await page.locator('[data-sonner-toast]').first().waitFor();
    const updated = await experimentsOf(client);
    // The variants' prompts are as they were (only their properties' order in storage may differ).
    expect(updated.current?.id, 'a change of settings alone keeps the running experiment').toBe(firstId);
    expect(updated.current).toMatchObject({ autoPromote: false, split: 'adaptive', objective: 'revenue_per_exposure', objectiveCurrency: 'EUR' });
    await card.getByTestId('experiment-settings').getByText(experimentMessages.objectiveName('revenue_per_exposure', 'EUR')).waitFor();
    expect(updated.past).toEqual([]);
    await toastOf(page, experimentMessages.updated).waitFor();
    await dismissToasts(page);
    await card.getByTestId('experiment-current').waitFor();
    await card.getByRole('button', { name: experimentTexts.changeVariants }).click();
    await form.getByLabel(experimentTexts.holdoutLabel).fill('30');
    await form.getByRole('button', { name: experimentTexts.saveChanges }).click();
    await toastOf(page, experimentMessages.restarted).waitFor();
    await card.getByTestId('experiment-current').waitFor();
    await card.getByTestId('experiment-current').getByTestId('experiment-settings').getByText('30 %').waitFor();
    const past = card.getByTestId('past-experiments');
    await past.getByText(experimentTexts.pastHeading(1)).click();
    await past.getByText(experimentMessages.endReason.changed).waitFor();

    // End experiment asks first, then the flow keeps its prompts and the form is back.
    await card.getByRole('button', { name: experimentTexts.endExperiment }).click();
    await card.getByText(experimentTexts.confirmEnd).waitFor();
    await card.getByRole('button', { name: experimentTexts.confirmEndButton }).click();
    await toastOf(page, experimentMessages.stopped).waitFor();
    await card.getByRole('form', { name: experimentTexts.formLabel }).waitFor();
    await past.getByText(experimentTexts.pastHeading(2)).waitFor();
    await past.getByText(experimentMessages.endReason.stopped).waitFor();
    const after = await experimentsOf(client);
    expect(after.current).toBeNull();
    expect(after.past.map((experiment) => experiment.endReason)).toEqual(['stopped', 'changed']);
    const flows = await client.call(endpoints.flows.list);
    const flow = (flows.json.flows as Array<{ flowType: string; assistants: Array<{ prompt_template: string }> }>).find((candidate) => candidate.flowType === 'post_purchase')!;
    expect(flow.assistants.map((assistant) => assistant.prompt_template)).toEqual(assistants.map((assistant) => assistant.prompt_template));

    await dismissToasts(page);
    await expectNoSeriousA11yViolations(page);
    expectNoBrowserErrors(errors);
  });
});
