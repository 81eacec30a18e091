import type { Page, Response } from 'playwright-core';

export type AssetKind = 'html' | 'js' | 'css' | 'font' | 'image';

export interface Weight {
  files: number;
  /** Body bytes as they crossed the network (compressed when the server compressed them). */
  transferred: number;
  /** Body bytes after decompression. */
  raw: number;
}

export interface FirstLoad {
  path: string;
  js: Weight;
  css: Weight;
  /** Each asset kind's distinct Cache-Control values. */
  cacheControl: Partial<Record<AssetKind, string[]>>;
  /** Each asset kind's distinct Content-Encoding values ('identity' when none). */
  contentEncoding: Partial<Record<AssetKind, string[]>>;
  /** Every script and stylesheet loaded, with its sizes. */
  assets: Array<{ url: string; kind: 'js' | 'css'; transferred: number; raw: number }>;
}

/**
 * Opens `path` in `page` (a fresh context, so nothing is cached) and records what its
 * first load fetched: sizes from the browser's own Resource Timing (what the page really
 * transferred), headers from the responses. `ready` is an element the page shows once
 * it has rendered; the load counts as over when no script or stylesheet arrived for
 * `quietMs` after that (an open live stream keeps the network busy, so "network idle"
 * would never come).
 */
export async function measureFirstLoad(page: Page, path: string, options: { ready?: string; quietMs?: number; timeoutMs?: number } = {}): Promise<FirstLoad> {
  const { ready = 'h1', quietMs = 750, timeoutMs = 20_000 } = options;
  const responses: Response[] = [];
  const onResponse = (response: Response) => responses.push(response);
  page.on('response', onResponse);
  try {
    await page.goto(path);
    await page.locator(ready).first().waitFor({ timeout: timeoutMs });
    const deadline = Date.now() + timeoutMs;
    let seen = -1;
    for (;;) {
      const count = await page.evaluate(() => performance.getEntriesByType('resource').filter((entry) => /\.(js|css)(\?|$)/.test(entry.name)).length);
      if (count === seen || Date.now() > deadline) break;
      seen = count;
      await page.waitForTimeout(quietMs);
    }
    const entries = await page.evaluate(() =>
      (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((entry) => ({
        url: entry.name,
        transferred: entry.encodedBodySize,
        raw: entry.decodedBodySize,
      })),
    );
    const assets = entries.flatMap((entry) => {
      const kind = kindOf(new URL(entry.url).pathname);
      return kind === 'js' || kind === 'css' ? [{ ...entry, kind }] : [];
    });
    const cacheControl: FirstLoad['cacheControl'] = {};
    const contentEncoding: FirstLoad['contentEncoding'] = {};
    for (const response of responses) {
      const url = new URL(response.url());
      if (url.origin !== new URL(page.url()).origin || url.pathname.startsWith('/api/')) continue;
      const kind = response.request().resourceType() === 'document' ? 'html' : kindOf(url.pathname);
      if (!kind) continue;
      const headers = await response.allHeaders();
      addDistinct(cacheControl, kind, headers['cache-control'] ?? '(none)');
      addDistinct(contentEncoding, kind, headers['content-encoding'] ?? 'identity');
    }
    return { path, js: total(assets, 'js'), css: total(assets, 'css'), cacheControl, contentEncoding, assets };
  } finally {
    page.off('response', onResponse);
  }
}

function kindOf(pathname: string): AssetKind | null {
  if (/\.m?js$/.test(pathname)) return 'js';
  if (pathname.endsWith('.css')) return 'css';
  if (/\.(woff2?|ttf|otf)$/.test(pathname)) return 'font';
  if (/\.(png|jpe?g|gif|webp|avif|svg|ico)$/.test(pathname)) return 'image';
  if (pathname.endsWith('.html')) return 'html';
  return null;
}

function total(assets: FirstLoad['assets'], kind: 'js' | 'css'): Weight {
  const ofKind = assets.filter((asset) => asset.kind === kind);
  return {
    files: ofKind.length,
    transferred: ofKind.reduce((sum, asset) => sum + asset.transferred, 0),
    raw: ofKind.reduce((sum, asset) => sum + asset.raw, 0),
  };
}

function addDistinct(map: Partial<Record<AssetKind, string[]>>, kind: AssetKind, value: string): void {
  const values = (map[kind] ??= []);
  if (!values.includes(value)) values.push(value);
}
