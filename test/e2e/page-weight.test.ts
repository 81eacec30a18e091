import { expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { type E2EServer } from '../support/e2e-server.ts';
import { expectNoBrowserErrors, fieldErrorOf, openPage } from '../support/browser.ts';
import { measureFirstLoad } from '../support/page-weight.ts';
import { pageRoutes } from '../../src/shared/routes.ts';
import { validationMessages } from '../../src/shared/messages.ts';
import { pageFrameMessages } from '../../src/web/app/page-frame.tsx';
import { useE2EServerSuite } from '../support/e2e-suite.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * What the sign-in page costs a first-time visitor, measured in the browser as
 * `npm run bench:pages` measures it: at most 120 KB of compressed JavaScript. zod comes
 * when the form is first used and sonner with the first toast, so neither is part of it
 * (docs/decisions/0024-serving-pages.md).
 */
const signInPageJsBudgetBytes = 120 * 1024;

let server: E2EServer;
let browser: Browser;
useE2EServerSuite((started) => ({ server, browser } = started));

it('loads the sign-in page with compressed JavaScript within its budget, and no other page\'s code', async () => {
  const { context, page, errors } = await openPage(browser, server.baseUrl);
  try {
    const load = await measureFirstLoad(page, pageRoutes.login);
    await page.getByRole('heading', { level: 1, name: 'Welcome Back' }).waitFor();
    expect(load.js.transferred, load.assets.map((asset) => `${asset.transferred} ${asset.url}`).join('\n')).toBeLessThanOrEqual(signInPageJsBudgetBytes);
    // Compressed on the wire: far fewer bytes crossed than were run.
    expect(load.js.transferred).toBeLessThan(load.js.raw / 2);
    expect(load.contentEncoding.js).toContain('br');
    expect(load.cacheControl.js).toEqual(['public, max-age=31536000, immutable']);
    expect(load.cacheControl.html).toEqual(['no-cache']);
    const loaded = load.assets.map((asset) => new URL(asset.url).pathname);
    expect(loaded.filter((pathname) => /\/(flow-page|dashboard-page|app-shell|register-page|api-settings-page)-/.test(pathname))).toEqual([]);
    expect(loaded.filter((pathname) => /\/(validation|toasts|sign-in-checks)-/.test(pathname))).toEqual([]);
    expectNoBrowserErrors(errors);
  } finally {
    await context.close();
  }
});

it('checks the sign-in form with the shared schema\'s messages once its checks arrive', async () => {
  const { context, page, errors } = await openPage(browser, server.baseUrl);
  try {
    await page.goto(pageRoutes.login);
    await page.getByRole('heading', { level: 1, name: 'Welcome Back' }).waitFor();
    // A slow network: the first submit waits for the checks rather than sending unchecked input.
    await page.route(/\/assets\/(validation|sign-in-checks)-[\w-]+\.js$/, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 500));
      await route.continue();
    });
    const signIns: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === endpoints.account.signIn.path) signIns.push(request.url());
    });
    await page.getByLabel('Email', { exact: true }).fill('not an email');
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByText(validationMessages.passwordRequired).waitFor();
    expect(await fieldErrorOf(page, 'Email')).toBe(validationMessages.emailInvalid);
    expect(await fieldErrorOf(page, 'Password')).toBe(validationMessages.passwordRequired);
    expect(signIns).toEqual([]);
    expectNoBrowserErrors(errors);
  } finally {
    await context.close();
  }
});

it('fetches the next page\'s chunk when moving to it, and shows that page', async () => {
  const { context, page, errors } = await openPage(browser, server.baseUrl);
  try {
    await page.goto(pageRoutes.login);
    await page.getByRole('heading', { level: 1, name: 'Welcome Back' }).waitFor();
    // A slow network: the chunk takes a moment, and meanwhile the sign-in page stays as it
    // was (no blank screen or full-page spinner in between).
    let chunkRequested!: () => void;
    const requested = new Promise<void>((resolve) => (chunkRequested = resolve));
    await page.route(/\/assets\/register-page-[\w-]+\.js$/, async (route) => {
      chunkRequested();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await route.continue();
    });
    const registerChunk = page.waitForResponse((response) => /\/assets\/register-page-[\w-]+\.js$/.test(new URL(response.url()).pathname));
    // Awaited below; a failed check before then closes the page and must not add an unhandled rejection.
    registerChunk.catch(() => undefined);
    await page.getByRole('link', { name: 'Sign up' }).click();
    await requested;
    expect(await page.getByRole('heading', { level: 1, name: 'Welcome Back' }).isVisible()).toBe(true);
    expect(await page.getByText(pageFrameMessages.loading).count()).toBe(0);
    expect((await registerChunk).status()).toBe(200);
    await page.getByRole('heading', { level: 1, name: 'Create an Account' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(pageRoutes.register);
    expectNoBrowserErrors(errors);
  } finally {
    await context.close();
  }
});

it('offers a reload when a page\'s chunk cannot be fetched (as after a deploy), and the reload shows the page', async () => {
  const { context, page } = await openPage(browser, server.baseUrl);
  try {
    await page.goto(pageRoutes.login);
    await page.getByRole('heading', { level: 1, name: 'Welcome Back' }).waitFor();
    // What a tab opened before a deploy meets: its build's chunk is gone, the server says 404.
    await page.route(/\/assets\/register-page-[\w-]+\.js$/, (route) => route.fulfill({ status: 404, contentType: 'application/json', body: '{"error":"not_found"}' }));
    await page.getByRole('link', { name: 'Sign up' }).click();
    const alert = page.getByRole('alert').filter({ hasText: pageFrameMessages.chunkFailedTitle });
    await alert.waitFor();
    await page.unroute(/\/assets\/register-page-[\w-]+\.js$/);
    await alert.getByRole('button', { name: pageFrameMessages.reload }).click();
    await page.getByRole('heading', { level: 1, name: 'Create an Account' }).waitFor();
  } finally {
    await context.close();
  }
});
