/**
 * `npm run bench:pages`: what each page costs a first-time visitor. Builds the web app
 * (or reuses a current build, as `npm start` does), starts the real server on a free
 * loopback port with the fake services behind it, and opens each page in a fresh headless
 * Chromium context (empty cache): signed out for the sign-in and sign-up pages, as a
 * signed-in owner with saved credentials for the others.
 *
 * Prints per page the JavaScript and CSS of the first load, compressed (as transferred)
 * and raw, and the Cache-Control and Content-Encoding the server sent per kind of asset.
 * Each page is printed against the target of at most 120 KB of compressed JavaScript on
 * first load, and the run exits 1 when a page is over it (docs/decisions/0052-light-pages.md).
 * The flow pages are weighed as an owner meets them: a flow not yet saved opens on its
 * settings form, a saved one on its overview, and a section opened by its own address
 * (a shared link) loads the page and the section together.
 * `-- --files` lists every file of each page. Stops by itself: everything is torn down after at most three minutes.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../test/support/browser.ts';
import { startE2EServerWithServices, type E2EWithServices } from '../test/support/e2e-services.ts';
import { copySessionCookies, createSignedInUser, type E2EUser } from '../test/support/e2e-accounts.ts';
import { credentialsInput, defaultAssistants } from '../test/support/engine-scenario.ts';
import { measureFirstLoad, type AssetKind, type FirstLoad } from '../test/support/page-weight.ts';
import { flowSectionPath, pageRoutes } from '../src/shared/routes.ts';
import { endpoints } from '../src/shared/api/endpoints.ts';
import { formatNumber } from './bench-support.ts';

const overallLimitMs = 180_000;
const signedOutPages = [pageRoutes.login, pageRoutes.register];
/** The post-purchase flow is saved before the pages are weighed; the abandoned-cart flow is not. */
const savedFlowPage = pageRoutes.postPurchase;
const signedInPages = [
  pageRoutes.dashboard,
  pageRoutes.apiSettings,
  pageRoutes.reviews,
  pageRoutes.privacy,
  pageRoutes.abandonedCart,
  savedFlowPage,
  flowSectionPath(savedFlowPage, 'settings'),
  flowSectionPath(savedFlowPage, 'events'),
  flowSectionPath(savedFlowPage, 'preview'),
  flowSectionPath(savedFlowPage, 'experiment'),
];
/** Compressed JavaScript a page's first load may fetch. */
const TARGET_BYTES = 120 * 1024;

let services: E2EWithServices | null = null;
let browser: Browser | null = null;

async function tearDown(): Promise<void> {
  await browser?.close().catch(() => undefined);
  await services?.stop().catch(() => undefined);
}

const watchdog = setTimeout(() => {
  console.error(`bench:pages did not finish within ${overallLimitMs / 1000} s; stopping.`);
  const forced = setTimeout(() => process.exit(1), 20_000);
  forced.unref();
  void tearDown().finally(() => process.exit(1));
}, overallLimitMs);
watchdog.unref();

async function main(): Promise<void> {
  const root = path.resolve(import.meta.dirname, '..');
  const build = spawnSync(process.execPath, [path.join(root, 'scripts/build-web-if-stale.ts')], { cwd: root, stdio: 'inherit', timeout: 120_000 });
  if (build.status !== 0) throw new Error('building the web app failed');

  services = await startE2EServerWithServices();
  const { server } = services;
  browser = await launchBrowser();
  const results: FirstLoad[] = [];

  for (const pagePath of signedOutPages) {
    const context = await browser.newContext({ baseURL: server.baseUrl });
    results.push(await measureFirstLoad(await context.newPage(), pagePath));
    await context.close();
  }

  let owner: E2EUser | null = null;
  for (const pagePath of signedInPages) {
    const context = await browser.newContext({ baseURL: server.baseUrl });
    if (!owner) {
      owner = await createSignedInUser(server, context);
      const saved = await owner.client.call(endpoints.credentials.save, { body: credentialsInput() });
      if (saved.status !== 200) throw new Error(`saving credentials failed: ${saved.status} ${saved.text}`);
      const initialized = await owner.client.call(endpoints.flows.initialize);
      if (initialized.status !== 200) throw new Error(`creating the flows failed: ${initialized.status} ${initialized.text}`);
      const flowSaved = await owner.client.call(endpoints.flows.update, {
        params: { flowType: 'post_purchase' },
        body: { isActive: true, assistants: defaultAssistants, klaviyoEventName: null },
      });
      if (flowSaved.status !== 200) throw new Error(`saving the flow failed: ${flowSaved.status} ${flowSaved.text}`);
    } else {
      await copySessionCookies(owner.client, context, server.baseUrl);
    }
    results.push(await measureFirstLoad(await context.newPage(), pagePath));
    await context.close();
  }

  printReport(results);
  const over = results.filter((result) => result.js.transferred > TARGET_BYTES);
  if (over.length > 0) {
    console.error(`\n${over.length} page(s) over the target of ${kb(TARGET_BYTES)}: ${over.map((result) => result.path).join(', ')}`);
    process.exitCode = 1;
  }
}

function kb(bytes: number): string {
  return `${formatNumber(bytes / 1024, 1)} KB`;
}

function printReport(results: FirstLoad[]): void {
  const rows = results.map((result) => [
    result.path,
    `${result.js.files}`,
    kb(result.js.transferred),
    result.js.transferred > TARGET_BYTES ? `OVER ${kb(TARGET_BYTES)}` : `within ${kb(TARGET_BYTES)}`,
    kb(result.js.raw),
    `${result.css.files}`,
    kb(result.css.transferred),
    kb(result.css.raw),
  ]);
  const header = ['page (first load)', 'js files', 'js compressed', 'target', 'js raw', 'css files', 'css compressed', 'css raw'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ');
  console.log(`\n${line(header)}`);
  for (const row of rows) console.log(line(row));

  if (process.argv.includes('--files')) {
    for (const result of results) {
      console.log(`\n${result.path}:`);
      for (const asset of [...result.assets].sort((a, b) => b.transferred - a.transferred)) {
        console.log(`  ${kb(asset.transferred).padStart(9)} ${kb(asset.raw).padStart(9)}  ${new URL(asset.url).pathname}`);
      }
    }
  }

  const kinds: AssetKind[] = ['html', 'js', 'css', 'font', 'image'];
  console.log('\nheaders per kind of asset (all pages):');
  for (const kind of kinds) {
    const cacheControl = new Set(results.flatMap((result) => result.cacheControl[kind] ?? []));
    const encodings = new Set(results.flatMap((result) => result.contentEncoding[kind] ?? []));
    if (cacheControl.size === 0) {
      console.log(`  ${kind.padEnd(5)}  none loaded`);
      continue;
    }
    console.log(`  ${kind.padEnd(5)}  Cache-Control: ${[...cacheControl].join(' | ')}; Content-Encoding: ${[...encodings].join(' | ')}`);
  }
}

try {
  await main();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await tearDown();
  clearTimeout(watchdog);
}
