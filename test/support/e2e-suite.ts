import { afterAll, beforeAll } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openPageForEachTest, type OpenedPage } from './browser.ts';
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
  let running: { browser: Browser; baseUrl: string; stop(): Promise<void> } | null = null;
  beforeAll(async () => {
    const { started, stop } = await start();
    const browser = await launchBrowser();
    running = { browser, baseUrl: started.server.baseUrl, stop };
    use({ ...started, browser });
  });
  afterAll(async () => {
    await running?.browser.close();
    await running?.stop();
  });
  if (usePage) openPageForEachTest(() => running!.browser, () => running!.baseUrl, usePage);
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
