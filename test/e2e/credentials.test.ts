import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import type { E2EServer } from '../support/e2e-server.ts';
import { useE2ESuite } from '../support/e2e-suite.ts';
import { expectNoBrowserErrors, expectNoSeriousA11yViolations, type BrowserErrors, fieldErrorOf, toastOf, dismissToasts } from '../support/browser.ts';
import { createSignedInUser } from '../support/e2e-accounts.ts';
import type { FakeOpenAI } from '../fakes/fake-openai.ts';
import type { FakeKlaviyo } from '../fakes/fake-klaviyo.ts';
import { maskSecret } from '../../src/server/platform/credential-masking.ts';
import { credentialCheckMessages, credentialMessages, credentialValidationMessages } from '../../src/shared/credentials/credential-messages.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

const keys = {
  klaviyo: 'pk_live_e2e_klaviyo_0123456789',
  openai: 'sk-proj-e2e-openai-0123456789',
  openaiNext: 'sk-proj-e2e-rotated-9876543210',
  clientId: 'e2e-client-id-0123',
  clientSecret: 'e2e-client-secret-0123456789',
};

let openai: FakeOpenAI;
let klaviyo: FakeKlaviyo;
let server: E2EServer;
let context: BrowserContext;
let page: Page;
let errors: BrowserErrors;
useE2ESuite(
  (started) => ({ server, openai, klaviyo } = started),
  (opened) => ({ context, page, errors } = opened),
  {
    openai: { validKeys: [keys.openai, keys.openaiNext], models: ['gpt-5-mini', 'gpt-5', 'text-embedding-3-small'] },
    klaviyo: { validKeys: [keys.klaviyo] },
    shopify: { clientId: keys.clientId, clientSecret: keys.clientSecret },
  },
);

const toast = (text: string) => toastOf(page, text);
const field = (label: string) => page.getByLabel(label, { exact: true });
const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true });

const fieldError = (label: string) => fieldErrorOf(page, label);

describe('connecting the three services', () => {
  it('sends a new owner to setup, checks the keys live, lands on the dashboard, and shows and updates them masked in API settings', async () => {
    const user = await createSignedInUser(server, context, { fullName: 'Setup Owner' });

    // A page that needs setup shows the setup screen instead.
    await page.goto('/flows/abandoned-cart');
    await heading('Complete Your Setup').waitFor();

    await page.goto('/setup');
    await heading('Complete Your Setup').waitFor();
    await expectNoSeriousA11yViolations(page);

    // Required fields, checked in the browser before anything is sent.
    await page.getByRole('button', { name: 'Save and Continue' }).click();
    await expect.poll(() => fieldError('Klaviyo API Key')).toBe(credentialValidationMessages.klaviyoApiKeyRequired);
    expect(await fieldError('OpenAI API Key')).toBe(credentialValidationMessages.openaiApiKeyRequired);
    expect(await fieldError('OpenAI Model')).toBe(credentialValidationMessages.openaiModelRequired);
    expect(await fieldError('Shopify Client ID')).toBe(credentialValidationMessages.shopifyClientIdRequired);

    // The app's access scopes are asked for by name, as Flowsmith uses them (test/unit/shopify-scopes.test.ts).
    expect(await page.getByText(credentialMessages.shopifyScopesHint, { exact: false }).count()).toBe(1);

    await field('Klaviyo API Key').fill(keys.klaviyo);
    await field('OpenAI API Key').fill('sk-proj-e2e-wrong-0123456789');
    await field('OpenAI Model').fill('asst_abc123');
    await field('Shopify Store Domain').fill('https://test-shop.myshopify.com/');
    await field('Shopify Client ID').fill(keys.clientId);
    await field('Shopify Client Secret').fill(keys.clientSecret);
    await page.getByRole('button', { name: 'Save and Continue' }).click();
    await expect.poll(() => fieldError('OpenAI Model')).toBe(credentialValidationMessages.assistantIdRetired);

    // A key OpenAI refuses: its field says so, with the specified toast, and nothing is
    // saved.
    await field('OpenAI Model').fill('gpt-5-mini');
    await page.getByRole('button', { name: 'Save and Continue' }).click();
    await toast(credentialMessages.invalidKeys).waitFor();
    await expect.poll(() => fieldError('OpenAI API Key')).toBe(credentialCheckMessages.openaiKeyInvalid);
    expect((await user.client.call(endpoints.credentials.status)).json).toEqual({ setupComplete: false });

    // Leaving the key field offers the models that key can use.
    await field('OpenAI API Key').fill(keys.openai);
    await field('OpenAI Model').focus();
    await page.getByText('2 models available for this key. Pick one or type a model id.').waitFor();
    await page.getByRole('button', { name: 'Save and Continue' }).click();
    await toast(credentialMessages.setupCompleted).waitFor();
    await page.waitForURL('**/dashboard');
    expect((await user.client.call(endpoints.credentials.status)).json).toEqual({ setupComplete: true });
    await page.goto('/setup');
    await page.waitForURL('**/dashboard');

    await page.getByRole('link', { name: 'API Settings' }).first().click();
    await heading('API Settings').waitFor();
    await page.getByText(maskSecret(keys.klaviyo)!, { exact: true }).waitFor();
    await page.getByText(maskSecret(keys.openai)!, { exact: true }).waitFor();
    await page.getByText(maskSecret(keys.clientSecret)!, { exact: true }).waitFor();
    await page.getByText('test-shop.myshopify.com', { exact: true }).waitFor();
    await page.getByText(credentialMessages.footer).waitFor();
    expect(await page.getByText(credentialMessages.encryptionWarningTitle).count()).toBe(0);
    const html = await page.content();
    for (const secret of [keys.klaviyo, keys.openai, keys.clientSecret]) expect(html).not.toContain(secret);
    await expectNoSeriousA11yViolations(page);

    // Update one key; the others go back masked and keep their stored values.
    await page.getByRole('button', { name: 'Update Credentials' }).click();
    expect(await field('Klaviyo API Key').inputValue()).toBe(maskSecret(keys.klaviyo));
    await field('OpenAI API Key').fill(keys.openaiNext);
    await page.getByRole('button', { name: 'Save Credentials' }).click();
    await toast(credentialMessages.updated).waitFor();
    await page.getByText(maskSecret(keys.openaiNext)!, { exact: true }).waitFor();
    await page.getByText(maskSecret(keys.klaviyo)!, { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Update Credentials' }).isVisible()).toBe(true);
    // The check is about the page: a toast still fading in fails contrast by its timing alone.
    await dismissToasts(page);
    await expectNoSeriousA11yViolations(page);

    const generated = openai.requests.filter((request) => request.headers.authorization === `Bearer ${keys.openaiNext}`);
    expect(generated.length).toBeGreaterThan(0);
    expect(klaviyo.requests.every((request) => request.headers.authorization === `Klaviyo-API-Key ${keys.klaviyo}`)).toBe(true);
    expect(server.output()).not.toContain(keys.openaiNext);
    expectNoBrowserErrors(errors);
  });
});
