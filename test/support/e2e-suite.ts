import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Browser } from 'playwright-core';
import { chromiumExecutable, launchBrowser, openPageForEachTest, saveScreenshot, type OpenedPage } from './browser.ts';
import { startE2EServer, type E2EServer } from './e2e-server.ts';
import { startE2EServerWithServices, type E2EServicesOptions, type E2EWithServices } from './e2e-services.ts';

/**
 * The browser tests' one set-up. Before a file's tests: the real server and headless
 * Chromium; after them, both stopped. What was started is handed to `use`, so the file
 * keeps its own `server`, `browser` and services; with `usePage`, each test also gets a
 * fresh context and page (browser.ts's `openPageForEachTest`).
 */
function useSuite<Started extends { server: E2EServer }>(
  start: () => Promise<{ started: Started; stop(): Promise<void> }>,
  use: (started: Started & { browser: Browser }) => void,
  usePage?: (opened: OpenedPage) => void,
): void {
  let running: { browser: Browser; baseUrl: string; output(): string; stop(): Promise<void> } | null = null;
  beforeAll(async () => {
    // Chromium and the server start side by side: each takes one to three seconds on a busy
    // machine, for each of the twenty files. When one fails the other is stopped again, so
    // nothing started outlives the run (afterAll sees no `running`). A machine without
    // Chromium fails first, with nothing started.
    chromiumExecutable();
    const [browserStart, serverStart] = await Promise.allSettled([launchBrowser(), start()]);
    if (browserStart.status === 'rejected' || serverStart.status === 'rejected') {
      if (browserStart.status === 'fulfilled') await browserStart.value.close();
      if (serverStart.status === 'fulfilled') await serverStart.value.stop();
      throw browserStart.status === 'rejected' ? browserStart.reason : (serverStart as PromiseRejectedResult).reason;
    }
    const browser = browserStart.value;
    const { started, stop } = serverStart.value;
    running = { browser, baseUrl: started.server.baseUrl, output: () => started.server.output(), stop };
    use({ ...started, browser });
  });
  afterAll(async () => {
    await Promise.all([running?.browser.close(), running?.stop()]);
  });
  if (usePage) openPageForEachTest(() => running!.browser, () => running!.baseUrl, usePage);
  // What a failed test left on screen and in the server's log, printed: a failure that
  // happens only on a busy CI machine is read from the run's output, not from its disk.
  // Registered after the page hook, so it runs first, while the test's pages are open.
  afterEach(async ({ task }) => {
    if (!running || task.result?.state !== 'fail') return;
    const pages = running.browser.contexts().flatMap((context) => context.pages());
    for (const [index, page] of pages.entries()) {
      const file = await saveScreenshot(page, `${task.name}-${index}`).catch(() => null);
      const text = await page.locator('body').innerText({ timeout: 2_000 }).catch((error: Error) => `(unreadable: ${error.message})`);
      console.log(`page ${index} of the failed test at ${page.url()}${file ? ` (screenshot ${file})` : ''}:\n${text.slice(0, 2_000)}`);
    }
    console.log(`the server's warnings and errors:\n${serverProblems(running.output())}`);
  });
}

/** The server's log lines at warn level or above (pino levels 40+), the last 30. */
function serverProblems(output: string): string {
  const lines = output.split('\n').filter((line) => {
    const level = /"level":(\d+)/.exec(line)?.[1];
    return level === undefined ? line.trim() !== '' : Number(level) >= 40;
  });
  return lines.slice(-30).join('\n') || '(none)';
}

/** The server with the stand-in OpenAI, Klaviyo and Shopify behind it: what every page past setup needs. */
export function useE2ESuite(
  use: (started: E2EWithServices & { browser: Browser }) => void,
  usePage?: (opened: OpenedPage) => void,
  services: E2EServicesOptions = {},
): void {
  useSuite(
    async () => {
      const started = await startE2EServerWithServices(services);
      return { started, stop: () => started.stop() };
    },
    use,
    usePage,
  );
}

/** The server alone (its pages up to setup need no service). */
export function useE2EServerSuite(use: (started: { server: E2EServer; browser: Browser }) => void, usePage?: (opened: OpenedPage) => void): void {
  useSuite(
    async () => {
      const server = await startE2EServer();
      return { started: { server }, stop: () => server.stop() };
    },
    use,
    usePage,
  );
}
