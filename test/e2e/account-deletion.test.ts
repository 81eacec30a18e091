import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import type { E2EServer } from '../support/e2e-server.ts';
import { credentialsInput, defaultAssistants } from '../support/engine-scenario.ts';
import { expectNoBrowserErrors, expectNoSeriousA11yViolations, toastOf, untilSectionsLoaded, type BrowserErrors } from '../support/browser.ts';
import { createSignedInUser } from '../support/e2e-accounts.ts';
import { HttpClient } from '../support/http-client.ts';
import { accountDeletionMessages } from '../../src/shared/auth/account-deletion.ts';
import { retentionMessages } from '../../src/shared/retention/retention-messages.ts';
import { useE2ESuite } from '../support/e2e-suite.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/** The settings page's retention period and danger zone (docs/decisions/0029-retention-and-account-deletion.md). */
let server: E2EServer;
let context: BrowserContext;
let page: Page;
let errors: BrowserErrors;
useE2ESuite((started) => ({ server } = started), (opened) => ({ context, page, errors } = opened));

const heading = (name: string) => page.getByRole('heading', { name, exact: true });

describe('API settings', () => {
  it('sets how long events are kept', async () => {
    const user = await createSignedInUser(server, context);
    await page.goto('/settings/api');
    await heading(retentionMessages.sectionTitle).waitFor();
    await untilSectionsLoaded(page);
    const days = page.getByLabel(retentionMessages.daysLabel, { exact: true });
    await expect.poll(() => days.inputValue()).toBe('30');
    await days.fill('400');
    await page.getByRole('region', { name: retentionMessages.sectionTitle }).getByRole('button', { name: 'Save' }).click();
    await page.getByText(retentionMessages.daysInvalid).first().waitFor();
    await days.fill('14');
    await page.getByRole('region', { name: retentionMessages.sectionTitle }).getByRole('button', { name: 'Save' }).click();
    await toastOf(page, retentionMessages.saved).waitFor();
    expect((await user.client.call(endpoints.retention.read)).json).toEqual({ retentionDays: 14 });
    await expectNoSeriousA11yViolations(page);

    // Every flow's event log says it, with the way back here.
    expect((await user.client.call(endpoints.credentials.save, { body: credentialsInput() })).status).toBe(200);
    expect((await user.client.call(endpoints.flows.initialize)).status).toBe(200);
    expect((await user.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: { isActive: true, assistants: defaultAssistants, klaviyoEventName: null } })).status).toBe(200);
    await page.goto('/flows/abandoned-cart/events');
    await page.getByRole('heading', { name: 'Event Log' }).waitFor();
    await page.getByText(retentionMessages.keptFor(14)).waitFor();
    expect(retentionMessages.keptFor(30)).toBe('Events are kept for 30 days.');
    await page.getByRole('link', { name: retentionMessages.change }).click();
    await page.waitForURL('**/settings/api#retention');
    await expect.poll(() => page.getByLabel(retentionMessages.daysLabel, { exact: true }).inputValue()).toBe('14');
    expectNoBrowserErrors(errors);
  });

  it('deletes the account after the password and a tick, signs out, and the account cannot sign in again', async () => {
    const user = await createSignedInUser(server, context, { fullName: 'Dora Leaving' });
    await page.goto('/settings/api');
    const zone = page.getByRole('region', { name: accountDeletionMessages.sectionTitle });
    await zone.waitFor();
    await untilSectionsLoaded(page);
    await expectNoSeriousA11yViolations(page);

    // Without the tick, then with a wrong password: nothing happens to the account.
    await zone.getByLabel(accountDeletionMessages.passwordLabel, { exact: true }).fill(user.password);
    await zone.getByRole('button', { name: accountDeletionMessages.button }).click();
    await zone.getByText(accountDeletionMessages.confirmRequired).waitFor();
    await zone.getByLabel(accountDeletionMessages.confirmLabel).check();
    await zone.getByLabel(accountDeletionMessages.passwordLabel, { exact: true }).fill('Not-my-password-1');
    await zone.getByRole('button', { name: accountDeletionMessages.button }).click();
    await zone.getByText(accountDeletionMessages.wrongPassword).waitFor();
    expect((await user.client.call(endpoints.account.session)).status).toBe(200);

    await zone.getByLabel(accountDeletionMessages.passwordLabel, { exact: true }).fill(user.password);
    await zone.getByRole('button', { name: accountDeletionMessages.button }).click();
    await toastOf(page, accountDeletionMessages.deleted).waitFor();
    await page.waitForURL('**/auth/login');
    await heading('Welcome Back').waitFor();

    // Signed out for real, and the account is gone.
    await page.goto('/settings/api');
    await page.waitForURL('**/auth/login');
    const signIn = await new HttpClient(server.baseUrl).call(endpoints.account.signIn, { body: { email: user.email, password: user.password } });
    expect(signIn.status).toBe(401);
    await server.smtp.waitForMail(user.email, accountDeletionMessages.mailSubject);
    await expectNoSeriousA11yViolations(page);
    expectNoBrowserErrors(errors);
  });
});
