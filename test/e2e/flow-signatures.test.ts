import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import type { E2EServer } from '../support/e2e-server.ts';
import { expectNoBrowserErrors, expectNoSeriousA11yViolations, type BrowserErrors, toastOf, dismissToasts } from '../support/browser.ts';
import { createSignedInUser } from '../support/e2e-accounts.ts';
import { credentialsInput, defaultAssistants, postEvent, postSignedEvent, sampleEvent } from '../support/engine-scenario.ts';
import { curlSignatureComment, curlSignatureNote, flowSignatureMessages as m } from '../../src/shared/flows/flow-signature-messages.ts';
import { maskSecret } from '../../src/server/platform/credential-masking.ts';
import { useE2ESuite } from '../support/e2e-suite.ts';
import { openFlowSection } from '../support/flow-page.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

let server: E2EServer;
let context: BrowserContext;
let page: Page;
let errors: BrowserErrors;
useE2ESuite((started) => ({ server } = started), (opened) => ({ context, page, errors } = opened));

const toast = (text: string) => toastOf(page, text);

describe('Require a signature on a flow page', () => {
  it('turns on, shows the secret once with Copy, masks it after a reload, generates a new one and turns off', async () => {
    const user = await createSignedInUser(server, context);
    expect((await user.client.call(endpoints.credentials.save, { body: credentialsInput() })).status).toBe(200);
    expect((await user.client.call(endpoints.flows.initialize)).status).toBe(200);
    const saved = await user.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_checkout' }, body: { isActive: true, assistants: defaultAssistants, klaviyoEventName: null, waitMinutes: 0 } });
    expect(saved.status, saved.text).toBe(200);
    const webhookUrl = saved.json.flow.webhookUrl as string;
    const webhookPath = new URL(webhookUrl).pathname;

    await page.goto('/flows/abandoned-checkout/store');
    const section = page.getByRole('region', { name: m.title });
    await section.getByText(m.stateOff, { exact: true }).waitFor();
    expect(await section.getByTestId('flow-signature-badge').textContent()).toBe('Not required');

    await section.getByRole('button', { name: m.turnOn }).click();
    await toast(m.turnedOn).waitFor();
    await section.getByText(m.stateOn, { exact: true }).waitFor();
    await section.getByText(m.secretShownOnce, { exact: true }).waitFor();
    const secret = (await section.getByTestId('flow-signing-secret').textContent())!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    // The example names this flow's URL and reads the secret from the environment.
    const example = (await section.getByRole('region', { name: m.exampleLabel }).textContent())!;
    expect(example).toContain(webhookUrl);
    expect(example).toContain('FLOWSMITH_SECRET');
    expect(example).not.toContain(secret);

    await section.getByRole('button', { name: m.copySecret }).click();
    await toast(m.secretCopied).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

    // The copied secret is the one the receiver now wants.
    expect((await postEvent(server.baseUrl, webhookPath, sampleEvent('abandoned_checkout'))).status).toBe(401);
    const signed = await postSignedEvent(server.baseUrl, webhookPath, sampleEvent('abandoned_checkout'), secret, new Date());
    expect(signed.status, signed.text).toBe(202);

    // The console's Copy as cURL says the request must be signed.
    await dismissToasts(page);
    await openFlowSection(page, 'overview');
    await page.getByRole('link', { name: 'Test Webhook' }).click();
    await page.getByTestId('curl-signature-note').getByText(curlSignatureNote, { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Copy as cURL' }).click();
    await toast('cURL command copied to clipboard').waitFor();
    expect((await page.evaluate(() => navigator.clipboard.readText())).split('\n')[0]).toBe(curlSignatureComment);

    await dismissToasts(page);
    await expectNoSeriousA11yViolations(page);

    // After a reload the secret is gone for good: only its mask.
    await page.goto('/flows/abandoned-checkout/store');
    const masked = page.getByRole('region', { name: m.title }).getByTestId('flow-signing-secret-masked');
    await masked.waitFor();
    expect(await masked.textContent()).toBe(maskSecret(secret));
    expect(await page.getByTestId('flow-signing-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
    await expectNoSeriousA11yViolations(page);

    // Generate new secret asks first; Cancel changes nothing.
    const reloaded = page.getByRole('region', { name: m.title });
    await reloaded.getByRole('button', { name: m.generateNew }).click();
    await reloaded.getByText(m.confirmGenerateNew, { exact: true }).waitFor();
    await reloaded.getByRole('button', { name: m.cancel }).click();
    expect(await masked.textContent()).toBe(maskSecret(secret));
    await reloaded.getByRole('button', { name: m.generateNew }).click();
    await reloaded.getByRole('button', { name: m.confirmGenerateNewButton }).click();
    await toast(m.rotated).waitFor();
    const second = (await reloaded.getByTestId('flow-signing-secret').textContent())!;
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(secret);
    await reloaded.getByText(/^The previous secret is still accepted until /).waitFor();
    await dismissToasts(page);
    await expectNoSeriousA11yViolations(page);

    // Turn off, confirmed: unsigned events are accepted again.
    await reloaded.getByRole('button', { name: m.turnOff }).click();
    await reloaded.getByText(m.confirmTurnOff, { exact: true }).waitFor();
    await reloaded.getByRole('button', { name: m.confirmTurnOffButton }).click();
    await toast(m.turnedOff).waitFor();
    await reloaded.getByText(m.stateOff, { exact: true }).waitFor();
    expect(await reloaded.getByTestId('flow-signing-secret').count()).toBe(0);
    expect(await page.getByTestId('curl-signature-note').count()).toBe(0);
    expect((await postEvent(server.baseUrl, webhookPath, sampleEvent('abandoned_checkout'))).status).toBe(202);

    expectNoBrowserErrors(errors);
  });
});
