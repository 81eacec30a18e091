import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterEach, beforeEach, expect } from 'vitest';

/** How long a browser test waits for what it needs (an element, a page, a poll) before it fails. */
export const E2E_WAIT_MS = 30_000;

const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The system's Chromium (`npx playwright install` cannot download here); throws, saying how to get it, when it is missing. */
export function chromiumExecutable(): string {
  const executablePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    throw new Error(`Chromium not found at ${executablePath}: install it with \`apt-get install -y chromium\` or set CHROMIUM_PATH`);
  }
  return executablePath;
}

/** Headless Chromium from the system. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumExecutable(), args: chromiumArgs, headless: true });
}

export interface BrowserErrors {
  /** Uncaught exceptions and console errors of the page, except failed requests (a 401 session check is normal). */
  messages: string[];
}

/**
 * A fresh context (own cookies and storage) for `baseUrl`, with clipboard access for the
 * copy buttons, reduced motion, and the page's uncaught errors collected for `expectNoBrowserErrors`.
 */
export async function openPage(browser: Browser, baseUrl: string): Promise<{ context: BrowserContext; page: Page; errors: BrowserErrors }> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    viewport: { width: 1280, height: 800 },
    permissions: ['clipboard-read', 'clipboard-write'],
    // As an owner who asks for less motion sees it: toasts appear and go without fading
    // (sonner honours the setting), so an accessibility check never catches one mid-fade,
    // half transparent, and fails its contrast by timing alone.
    reducedMotion: 'reduce',
  });
  // Waits as long as the slowest honest run needs: on two shared cores a page's chunk, its
  // data and a worker's event together have taken over 15 s (decision 0052).
  context.setDefaultTimeout(E2E_WAIT_MS);
  const page = await context.newPage();
  const errors: BrowserErrors = { messages: [] };
  page.on('pageerror', (error) => errors.messages.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    if (message.text().startsWith('Failed to load resource')) return;
    errors.messages.push(`console.error: ${message.text()}`);
  });
  return { context, page, errors };
}

export function expectNoBrowserErrors(errors: BrowserErrors): void {
  expect(errors.messages, 'errors in the browser').toEqual([]);
}

/**
 * Saves a full-page screenshot under .tmp/e2e-screenshots (kept out of git), for a look
 * at what the browser showed when a test failed. Returns the file's path.
 */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  const file = path.resolve(import.meta.dirname, '../../.tmp/e2e-screenshots', `${name.replace(/[^\w.-]+/g, '-').slice(0, 120)}.png`);
  await mkdir(path.dirname(file), { recursive: true });
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

const axeSourcePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let axeSource: string | null = null;

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[]; failureSummary?: string }>;
}

/**
 * Runs axe-core on the page as it is now and fails listing every serious or critical
 * violation. axe is evaluated through the DevTools protocol rather than added as a
 * <script> tag: the app's Content-Security-Policy (script-src 'self') rightly refuses
 * inline scripts, and the tests keep that policy on so they would notice it breaking.
 */
export async function expectNoSeriousA11yViolations(page: Page): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate((axeSource ??= readFileSync(axeSourcePath, 'utf8')));
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document): Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run(document)).violations;
  }) as AxeViolation[];
  const serious = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  const report = serious.map(
    (violation) =>
      `${violation.impact} ${violation.id}: ${violation.help}\n${violation.nodes.map((node) => `  at ${JSON.stringify(node.target)}: ${node.failureSummary ?? ''}`).join('\n')}`,
  );
  expect(report, `axe-core violations on ${page.url()}`).toEqual([]);
}

/** The error shown under a labelled field: the text its aria-describedby points at. */
export async function fieldErrorOf(page: Page, label: string): Promise<string> {
  const ids = (await page.getByLabel(label, { exact: true }).getAttribute('aria-describedby')) ?? '';
  const texts = await Promise.all(ids.split(' ').filter((id) => id.endsWith('-error')).map((id) => page.locator(`[id="${id}"]`).textContent()));
  return texts.join(' ');
}

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  errors: BrowserErrors;
}

/**
 * A fresh context and page for every test of the file, handed to `use` so the file keeps
 * its own `page`; a failed test leaves a full-page screenshot, and the context is closed.
 */
export function openPageForEachTest(browser: () => Browser, baseUrl: () => string, use: (opened: OpenedPage) => void): void {
  let current: OpenedPage | null = null;
  beforeEach(async () => {
    current = await openPage(browser(), baseUrl());
    use(current);
  });
  afterEach(async ({ task }) => {
    if (current && task.result?.state === 'fail') {
      const file = await saveScreenshot(current.page, task.name).catch(() => null);
      if (file) console.log(`screenshot of the failed test: ${file}`);
    }
    await current?.context.close();
    current = null;
  });
}

/**
 * Waits until no part of the page shows its loading spinner. A page of several sections
 * grows as each one's data arrives, and a click aimed at a control below a section that is
 * still loading can land where that control was a moment before (a settings page's Save
 * did nothing in one run of many for that alone). Busy buttons are not spinners.
 */
export async function untilSectionsLoaded(page: Page): Promise<void> {
  await page.locator('[role="status"]:has(> .animate-spin)').first().waitFor({ state: 'detached' });
}

/** The first toast showing `text`. */
export function toastOf(page: Page, text: string) {
  return page.locator('[data-sonner-toast]', { hasText: text }).first();
}

/**
 * Closes the open toasts before an accessibility check: the check is about this page, and
 * the shared Toaster's own colours are checked (and reported) separately.
 */
export async function dismissToasts(page: Page): Promise<void> {
  for (;;) {
    const close = page.locator('[data-sonner-toast] button[data-close-button]').first();
    if ((await close.count()) === 0) break;
    await close.click();
    await close.waitFor({ state: 'detached' });
  }
}

/**
 * Like expectNoSeriousA11yViolations, but fails on a violation of any impact: for pages
 * held to the stricter bar (the narrow-screen test checks every page with it).
 */
export async function expectNoA11yViolations(page: Page): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate((axeSource ??= readFileSync(axeSourcePath, 'utf8')));
  const violations = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document): Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run(document)).violations;
  })) as AxeViolation[];
  const report = violations.map(
    (violation) =>
      `${violation.impact} ${violation.id}: ${violation.help}\n${violation.nodes.map((node) => `  at ${JSON.stringify(node.target)}: ${node.failureSummary ?? ''}`).join('\n')}`,
  );
  expect(report, `axe-core violations on ${page.url()}`).toEqual([]);
}
