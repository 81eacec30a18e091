import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { E2EServer } from '../support/e2e-server.ts';
import type { E2EWithServices } from '../support/e2e-services.ts';
import { expectNoSeriousA11yViolations, openPage, E2E_WAIT_MS } from '../support/browser.ts';
import { createSignedInUser } from '../support/e2e-accounts.ts';
import type { FakeKlaviyo } from '../fakes/fake-klaviyo.ts';
import { credentialsInput, defaultAssistants, sampleEvent } from '../support/engine-scenario.ts';
import { estimatedCostNote, estimatedCostReason } from '../../src/shared/flows/flow-costs.ts';
import { useE2ESuite } from '../support/e2e-suite.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

let services: E2EWithServices;
let server: E2EServer;
let browser: Browser;
let klaviyo: FakeKlaviyo;
useE2ESuite((started) => {
  services = started;
  ({ server, klaviyo, browser } = started);
});

describe('event log and dashboard figures', () => {
  it('shows a delivered event with what each assistant wrote, and counts it on the dashboard', async () => {
    const { context, page } = await openPage(browser, server.baseUrl);
    const user = await createSignedInUser(server, context);
    expect((await user.client.call(endpoints.credentials.save, { body: credentialsInput() })).status).toBe(200);
    expect((await user.client.call(endpoints.flows.initialize)).status).toBe(200);
    const saved = await user.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: { isActive: true, assistants: defaultAssistants, klaviyoEventName: null } });
    const webhookUrl = saved.json.flow.webhookUrl as string;

    const event = sampleEvent('abandoned_cart', { email: 'shopper@example.com', first_name: 'Sam', last_name: 'Shopper' });
    const sent = await fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event) });
    expect(sent.status).toBeLessThan(300);
    await expect.poll(() => klaviyo.profiles.get('shopper@example.com')?.properties?.subject_line1, { timeout: E2E_WAIT_MS }).toBeTruthy();

    await page.goto('/flows/abandoned-cart/events');
    await page.getByRole('heading', { name: 'Event Log' }).waitFor();
    const row = page.getByTestId('event-log-row').first();
    await row.getByText('Delivered', { exact: false }).waitFor();
    expect(await row.textContent()).toContain('Sam');
    await row.getByRole('button').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Event details' }).waitFor();
    const subjectLine = String(klaviyo.profiles.get('shopper@example.com')!.properties.subject_line1);
    await dialog.getByText(subjectLine.slice(0, 30), { exact: false }).first().waitFor();
    await expectNoSeriousA11yViolations(page);
    await dialog.getByRole('button', { name: 'Close event details' }).click();

    await page.goto('/dashboard');
    // The flow's card: working, its delivered last event, one delivery and no failure today.
    const cartState = page.locator('[data-testid="flow-state"][data-flow="abandoned_cart"]');
    await cartState.getByTestId('flow-health').filter({ hasText: 'Working' }).waitFor();
    expect(await cartState.getByTestId('flow-last-event').textContent()).toContain('Delivered');
    expect(await cartState.getByTestId('flow-deliveries').textContent()).toBe('1');
    expect(await cartState.getByTestId('flow-failures').textContent()).toBe('0');
    expect(await page.locator('[data-testid="flow-state"][data-flow="post_purchase"]').getByTestId('flow-health').textContent()).toBe('No events yet');
    // What the text cost, in dollars, today and over the week, with the one call it took.
    await page.getByRole('heading', { name: 'OpenAI cost' }).waitFor();
    const costRow = page.getByTestId('cost-row').filter({ hasText: 'Abandoned Cart' });
    const costs = await costRow.locator('td').allTextContents();
    expect(costs[0]).toMatch(/^\$0\.\d{2,4}$/);
    expect(costs[0]).not.toBe('$0.00');
    expect(costs[2]).toBe('1');
    await expectNoSeriousA11yViolations(page);
    await context.close();
  });

  it('marks the cost of a model without a known price as an estimate, in the event and on the dashboard', async () => {
    services.openai.models.add('gpt-9-preview');
    const { context, page } = await openPage(browser, server.baseUrl);
    const user = await createSignedInUser(server, context);
    expect((await user.client.call(endpoints.credentials.save, { body: credentialsInput() })).status).toBe(200);
    expect((await user.client.call(endpoints.flows.initialize)).status).toBe(200);
    const assistants = defaultAssistants.map((assistant) => ({ ...assistant, model: 'gpt-9-preview' }));
    const saved = await user.client.call(endpoints.flows.update, { params: { flowType: 'post_purchase' }, body: { isActive: true, assistants, klaviyoEventName: null } });
    const event = sampleEvent('post_purchase', { email: 'unpriced@example.com', first_name: 'Uma', last_name: 'Unpriced' });
    const sent = await fetch(saved.json.flow.webhookUrl as string, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event) });
    expect(sent.status).toBeLessThan(300);
    await expect.poll(() => klaviyo.profiles.get('unpriced@example.com')?.properties?.subject_line1, { timeout: E2E_WAIT_MS }).toBeTruthy();

    await page.goto('/flows/post-purchase/events');
    const row = page.getByTestId('event-log-row').first();
    await row.getByText('Delivered', { exact: false }).waitFor();
    await row.getByRole('button').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(`estimate: ${estimatedCostReason}`, { exact: false }).first().waitFor();
    expect(await dialog.getByText('gpt-9-preview', { exact: false }).first().textContent()).toMatch(/≈ \$0\.\d{4}/);
    await dialog.getByRole('button', { name: 'Close event details' }).click();

    await page.goto('/dashboard');
    const costRow = page.getByTestId('cost-row').filter({ hasText: 'Post Purchase' });
    await costRow.waitFor();
    const costs = await costRow.locator('td').allTextContents();
    expect(costs[0]).toMatch(/^≈ \$\d+\.\d{2,4}$/);
    expect(await page.getByTestId('costs-estimate-note').textContent()).toBe(estimatedCostNote);
    await expectNoSeriousA11yViolations(page);
    await context.close();
  });
});
