import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startE2EServer, type E2EServer } from '../support/e2e-server.ts';
import { expectNoBrowserErrors, expectNoSeriousA11yViolations, openPage, type BrowserErrors, fieldErrorOf, toastOf, E2E_WAIT_MS } from '../support/browser.ts';
import { createSignedInUser } from '../support/e2e-accounts.ts';
import { HttpClient } from '../support/http-client.ts';
import { strongPassword, uniqueEmail } from '../support/accounts.ts';
import { authMessages, validationMessages } from '../../src/shared/messages.ts';
import { IDLE_SIGN_OUT_MS, LOGIN_LOCKOUT_ATTEMPTS, LOGIN_LOCKOUT_SECONDS } from '../../src/shared/constants.ts';
import { flowTypeDetails, flowTypes } from '../../src/shared/flows/flow-types.ts';
import { accountPageMessages } from '../../src/web/auth/auth-messages.ts';
import { useE2EServerSuite } from '../support/e2e-suite.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

let server: E2EServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let errors: BrowserErrors;
useE2EServerSuite((started) => ({ server, browser } = started), (opened) => ({ context, page, errors } = opened));

const toast = (text: string) => toastOf(page, text);
const field = (label: string) => page.getByLabel(label, { exact: true });
const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true });

const fieldError = (label: string) => fieldErrorOf(page, label);

function signUpThroughApi(email: string, fullName = 'Unconfirmed Owner') {
  return new HttpClient(server.baseUrl).call(endpoints.account.signUp, { body: { fullName, email, password: strongPassword, confirmPassword: strongPassword } });
}

describe('sign-up, email verification, sign-out and sign-in', () => {
  it('registers, follows the mailed link to "Email Verified!", lands on the dashboard and signs out and in again', async () => {
    const email = uniqueEmail('e2e');
    await page.goto('/auth/register');
    await heading('Create an Account').waitFor();
    expect(await page.title()).toBe('Create an Account · Flowsmith');
    await expectNoSeriousA11yViolations(page);
    await field('Full name').fill('Grace Hopper');
    await field('Email').fill(email);
    await field('Password').fill(strongPassword);
    await field('Confirm password').fill(strongPassword);
    await page.getByRole('button', { name: 'Create Account' }).click();

    await toast(authMessages.registrationVerify).waitFor();
    await page.waitForURL('**/auth/verification-sent');
    await page.getByText(/expires in 24 hours/).waitFor();
    expect(await field('Email').inputValue()).toBe(email);
    await expectNoSeriousA11yViolations(page);

    const mail = await server.smtp.waitForMail(email, 'Confirm your email');
    const link = server.smtp.linkIn(mail, '/auth/verify');
    expect(link).toMatch(/#access_token=.+&type=signup$/);
    await page.goto(link);
    await heading('Email Verified!').waitFor();
    // The one-time token does not stay in the address bar or the history.
    expect(page.url()).toBe(`${server.baseUrl}/auth/verify`);
    expect(await page.getByRole('link', { name: 'Go to Dashboard' }).getAttribute('href')).toBe('/dashboard');
    await expectNoSeriousA11yViolations(page);

    // The automatic redirect, without clicking.
    await page.waitForURL('**/dashboard', { timeout: E2E_WAIT_MS });
    await heading('Welcome, Grace Hopper').waitFor();
    await expect.poll(() => page.getByRole('banner').textContent()).toContain('Grace Hopper');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await toast(authMessages.loggedOut).waitFor();
    await page.waitForURL('**/auth/login');
    await heading('Welcome Back').waitFor();
    // Signed out for real: the dashboard sends back to the login page.
    await page.goto('/dashboard');
    await page.waitForURL('**/auth/login');

    await field('Email').fill(email);
    await field('Password').fill(strongPassword);
    await field('Remember me').check();
    await page.getByRole('button', { name: 'Sign In' }).click();
    await toast(authMessages.loginSuccess).waitFor();
    await page.waitForURL('**/dashboard');
    await heading('Welcome, Grace Hopper').waitFor();
    const sessionCookie = (await context.cookies()).find((cookie) => cookie.name.includes('session_token'));
    expect(sessionCookie?.expires).toBeGreaterThan(Date.now() / 1000 + 29 * 86_400);
    expectNoBrowserErrors(errors);
  });

  it('shows the dashboard of docs/product/specification.md §2: greeting, four flow cards and getting started', async () => {
    await createSignedInUser(server, context, { fullName: 'Katherine Johnson' });
    await page.goto('/dashboard');
    await heading('Welcome, Katherine Johnson').waitFor();
    expect(await page.title()).toBe('Dashboard · Flowsmith');
    for (const flowType of flowTypes) {
      const { title, path, tagline } = flowTypeDetails[flowType];
      const link = page.getByRole('link', { name: title, exact: true });
      expect(await link.getAttribute('href')).toBe(path);
      await page.getByText(tagline, { exact: true }).waitFor();
    }
    expect(await page.getByRole('link', { name: 'Go to API Settings' }).getAttribute('href')).toBe('/settings/api');
    await expectNoSeriousA11yViolations(page);

    await page.getByRole('link', { name: 'Abandoned Cart', exact: true }).click();
    await page.waitForURL('**/flows/abandoned-cart');
    expectNoBrowserErrors(errors);
  });

  it('sends signed-in owners from the login and register pages to the dashboard, and others from the dashboard to login', async () => {
    await page.goto('/dashboard');
    await page.waitForURL('**/auth/login');
    await createSignedInUser(server, context, { fullName: 'Signed In' });
    for (const path of ['/auth/login', '/auth/register']) {
      await page.goto(path);
      await page.waitForURL('**/dashboard');
      await heading('Welcome, Signed In').waitFor();
    }
    expectNoBrowserErrors(errors);
  });

  it('refuses to sign in an owner whose email is not confirmed, saying why', async () => {
    const email = uniqueEmail('e2e');
    expect((await signUpThroughApi(email)).status).toBe(200);
    await page.goto('/auth/login');
    await field('Email').fill(email);
    await field('Password').fill(strongPassword);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByRole('status').filter({ hasText: authMessages.emailNotVerified }).waitFor();
    expect(page.url()).toBe(`${server.baseUrl}/auth/login`);
    expectNoBrowserErrors(errors);
  });

  it('shows "Verification Failed" for a link without a token and for a bad token, with a way back to login', async () => {
    await page.goto('/auth/verify');
    await heading('Verification Failed').waitFor();
    await page.getByText(authMessages.invalidVerificationLink).waitFor();
    await expectNoSeriousA11yViolations(page);
    await page.getByRole('link', { name: 'Back to Login' }).click();
    await page.waitForURL('**/auth/login');

    await page.goto('/auth/verify#access_token=not-a-real-token&type=signup');
    await heading('Verification Failed').waitFor();
    await page.getByText(authMessages.verificationProblem).waitFor();
    expect(page.url()).toBe(`${server.baseUrl}/auth/verify`);
    expectNoBrowserErrors(errors);
  });
});

describe('password reset', () => {
  it('sends the reset mail, sets the new password from its link and lands signed in on the dashboard', async () => {
    const user = await createSignedInUser(server, context, { fullName: 'Reset Owner' });
    await context.clearCookies();
    await page.goto('/auth/login');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.waitForURL('**/auth/forgot-password');
    await expectNoSeriousA11yViolations(page);
    await field('Email').fill(user.email);
    await page.getByRole('button', { name: 'Send Reset Link' }).click();
    await toast(authMessages.resetSent).waitFor();
    await heading('Check your email').waitFor();
    await expectNoSeriousA11yViolations(page);
    expect(await page.getByRole('link', { name: 'Back to login' }).getAttribute('href')).toBe('/auth/login');

    const mail = await server.smtp.waitForMail(user.email, 'Reset your Flowsmith password');
    const link = server.smtp.linkIn(mail, '/auth/reset-password');
    expect(link).toMatch(/#access_token=.+&type=recovery$/);
    await page.goto(link);
    await heading('Reset Password').waitFor();
    expect(page.url()).toBe(`${server.baseUrl}/auth/reset-password`);
    await expectNoSeriousA11yViolations(page);

    const newPassword = 'Another-path-77';
    await field('New password').fill(newPassword);
    await field('Confirm new password').fill('Another-path-78');
    await page.getByRole('button', { name: 'Update Password' }).click();
    await expect.poll(() => fieldError('Confirm new password')).toBe(validationMessages.passwordsDontMatch);
    await field('Confirm new password').fill(newPassword);
    await page.getByRole('button', { name: 'Update Password' }).click();
    await toast(authMessages.passwordUpdated).waitFor();
    await page.waitForURL('**/dashboard');
    await heading('Welcome, Reset Owner').waitFor();

    // The old password is gone, the new one works.
    const client = new HttpClient(server.baseUrl);
    expect((await client.call(endpoints.account.signIn, { body: { email: user.email, password: user.password } })).status).toBe(401);
    expect((await client.call(endpoints.account.signIn, { body: { email: user.email, password: newPassword } })).status).toBe(200);

    // A used link cannot be used again, and the page says so.
    await context.clearCookies();
    await page.goto(link);
    await field('New password').fill('Third-path-99!');
    await field('Confirm new password').fill('Third-path-99!');
    await page.getByRole('button', { name: 'Update Password' }).click();
    await page.getByRole('alert').filter({ hasText: authMessages.invalidResetLink }).waitFor();
    expectNoBrowserErrors(errors);
  });

  it("shows the specified fallback on each account page when Flowsmith cannot be reached", async () => {
    const accountForms: string[] = [endpoints.account.signUp.path, endpoints.account.signIn.path, endpoints.account.forgotPassword.path, endpoints.account.resetPassword.path];
    await page.route((url) => accountForms.includes(url.pathname), (route) => route.abort('connectionrefused'));
    const unreachable = 'Could not reach Flowsmith';

    await page.goto('/auth/register');
    await field('Full name').fill('Grace Hopper');
    await field('Email').fill(uniqueEmail('offline'));
    await field('Password').fill(strongPassword);
    await field('Confirm password').fill(strongPassword);
    await page.getByRole('button', { name: 'Create Account' }).click();
    await toast(authMessages.signUpFallback).waitFor();

    await page.goto('/auth/login');
    await field('Email').fill(uniqueEmail('offline'));
    await field('Password').fill(strongPassword);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await toast(authMessages.signInFallback).waitFor();

    await page.goto('/auth/forgot-password');
    await field('Email').fill(uniqueEmail('offline'));
    await page.getByRole('button', { name: 'Send Reset Link' }).click();
    await toast(authMessages.passwordResetFallback).waitFor();

    await page.goto('/auth/reset-password#access_token=offline-token&type=recovery');
    await field('New password').fill(strongPassword);
    await field('Confirm new password').fill(strongPassword);
    await page.getByRole('button', { name: 'Update Password' }).click();
    await toast(authMessages.passwordUpdateFallback).waitFor();

    expect(await page.getByText(unreachable).count()).toBe(0);
    expectNoBrowserErrors(errors);
  });

  it('explains what to do when the reset page is opened without the link from the mail', async () => {
    await page.goto('/auth/reset-password');
    await page.getByText(accountPageMessages.missingResetToken).waitFor();
    await page.getByRole('link', { name: 'Request a new link' }).click();
    await page.waitForURL('**/auth/forgot-password');
    expectNoBrowserErrors(errors);
  });
});

describe('validation messages of docs/product/specification.md §5', () => {
  it('shows each message under its field on the register page', async () => {
    await page.goto('/auth/register');
    await page.getByRole('button', { name: 'Create Account' }).click();
    await expect.poll(() => fieldError('Full name')).toBe(validationMessages.fullNameMin);
    expect(await fieldError('Email')).toBe(validationMessages.emailInvalid);
    expect(await fieldError('Password')).toBe(validationMessages.passwordMin);
    // Focus moves to the first field in error, for keyboard and screen-reader users.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('autocomplete'))).toBe('name');

    await field('Full name').fill('A');
    await field('Email').fill('not-an-email');
    await field('Password').fill('abcdefgh!');
    await field('Confirm password').fill('something else');
    await page.getByRole('button', { name: 'Create Account' }).click();
    await expect.poll(() => fieldError('Password')).toBe(validationMessages.passwordNumber);
    expect(await fieldError('Full name')).toBe(validationMessages.fullNameMin);
    expect(await fieldError('Email')).toBe(validationMessages.emailInvalid);
    expect(await fieldError('Confirm password')).toBe(validationMessages.passwordsDontMatch);
    expect(await field('Confirm password').getAttribute('aria-invalid')).toBe('true');

    await field('Password').fill('abcdefgh1');
    await page.getByRole('button', { name: 'Create Account' }).click();
    await expect.poll(() => fieldError('Password')).toBe(validationMessages.passwordSpecial);
    await expectNoSeriousA11yViolations(page);
    // Nothing reached the server: no mail, still on the page.
    expect(page.url()).toBe(`${server.baseUrl}/auth/register`);
    expectNoBrowserErrors(errors);
  });

  it('asks for a valid email and a password on the login and forgot-password pages', async () => {
    await page.goto('/auth/login');
    await page.getByRole('button', { name: 'Sign In' }).click();
    await expect.poll(() => fieldError('Password')).toBe(validationMessages.passwordRequired);
    expect(await fieldError('Email')).toBe(validationMessages.emailInvalid);
    await expectNoSeriousA11yViolations(page);

    await page.goto('/auth/forgot-password');
    await field('Email').fill('nobody@');
    await page.getByRole('button', { name: 'Send Reset Link' }).click();
    await expect.poll(() => fieldError('Email')).toBe(validationMessages.emailInvalid);
    expectNoBrowserErrors(errors);
  });

  it('works with the keyboard alone, and shows the server message in a toast for a wrong password', async () => {
    const user = await createSignedInUser(server, context);
    await context.clearCookies();
    await page.goto('/auth/login');
    await heading('Welcome Back').waitFor();
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('autocomplete') ?? document.activeElement?.textContent);
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('email');
    await page.keyboard.type(user.email);
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('current-password');
    await page.keyboard.type('Wrong-password-1');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    expect(await field('Remember me').isChecked()).toBe(true);
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Forgot password?');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Sign In');
    await page.keyboard.press('Enter');
    await toast(authMessages.invalidCredentials).waitFor();
    expect(await field('Password').isDisabled()).toBe(false);

    // Enter in a field submits too.
    await field('Password').fill(user.password);
    await field('Password').press('Enter');
    await page.waitForURL('**/dashboard');
    expectNoBrowserErrors(errors);
  });
});

describe('idle sign-out', () => {
  it('signs out after an hour without activity, but not while the owner is active', async () => {
    await page.clock.install();
    const user = await createSignedInUser(server, context, { fullName: 'Idle Owner' });
    await page.goto('/dashboard');
    await heading('Welcome, Idle Owner').waitFor();

    const signOutRequests: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith(endpoints.account.signOut.path)) signOutRequests.push(request.url());
    });
    await page.clock.fastForward(IDLE_SIGN_OUT_MS - 60_000);
    await page.mouse.move(200, 200);
    await page.mouse.move(220, 240);
    await page.clock.fastForward(120_000);
    // The sign-out request would start inside the timer that just ran; a round trip to the
    // page afterwards guarantees its request event would have arrived by now.
    await page.evaluate(() => document.title);
    expect(signOutRequests).toEqual([]);
    expect(page.url()).toBe(`${server.baseUrl}/dashboard`);
    expect((await user.client.call(endpoints.account.session)).status).toBe(200);

    await page.clock.fastForward(IDLE_SIGN_OUT_MS);
    await page.waitForURL('**/auth/login');
    await toast(accountPageMessages.idleSignedOut).waitFor();
    // The browser's session was the client's: it ended on the server too.
    await expect.poll(async () => (await user.client.call(endpoints.account.session)).status).toBe(401);
    expectNoBrowserErrors(errors);
  });
});

// The lock also binds the client address 127.0.0.1, so this runs against its own server.
describe('login lockout', () => {
  let lockoutServer: E2EServer;
  beforeAll(async () => {
    lockoutServer = await startE2EServer();
  });
  afterAll(async () => {
    await lockoutServer?.stop();
  });

  it('locks the form after five wrong passwords and unlocks it after the lock ends, while the server keeps enforcing it', async () => {
    await context.close();
    ({ context, page, errors } = await openPage(browser, lockoutServer.baseUrl));
    await page.clock.install();
    const user = await createSignedInUser(lockoutServer, context);
    await context.clearCookies();
    await page.goto('/auth/login');
    await field('Email').fill(user.email);

    const submit = async (password: string) => {
      await field('Password').fill(password);
      const answered = page.waitForResponse((response) => response.url().endsWith(endpoints.account.signIn.path));
      await page.getByRole('button', { name: 'Sign In' }).click();
      return (await answered).status();
    };
    for (let attempt = 1; attempt < LOGIN_LOCKOUT_ATTEMPTS; attempt += 1) {
      expect(await submit(`Wrong-password-${attempt}`)).toBe(401);
    }
    expect(await submit('Wrong-password-5')).toBe(429);

    const lockMessage = page.getByRole('alert').filter({ hasText: authMessages.lockout });
    await lockMessage.waitFor();
    for (const label of ['Email', 'Password', 'Remember me']) expect(await field(label).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Sign In' }).isDisabled()).toBe(true);
    await expectNoSeriousA11yViolations(page);

    // The browser unlocks by itself when the server's lock ends.
    await page.clock.fastForward(LOGIN_LOCKOUT_SECONDS * 1000);
    await lockMessage.waitFor({ state: 'detached' });
    expect(await field('Password').isDisabled()).toBe(false);
    expect(await page.getByRole('button', { name: 'Sign In' }).isDisabled()).toBe(false);

    // The browser's clock is not the server's: the real lock still holds, even for the
    // right password, and the form locks again.
    expect(await submit(user.password)).toBe(429);
    await lockMessage.waitFor();
    expectNoBrowserErrors(errors);
  });
});
