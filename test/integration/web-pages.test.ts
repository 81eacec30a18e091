import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { pageRoutes } from '../../src/shared/routes.ts';

// How pages and their assets are served (docs/decisions/0024-serving-pages.md), on a build
// laid out as `vite build` lays it out: index.html, hashed assets with their Brotli and
// gzip copies, and one asset too small to have copies.
const script = `export const greeting = ${JSON.stringify('Welcome back to Flowsmith. '.repeat(200))};\n`;
const scriptName = 'login-page-B4x9Qz1k.js';
const smallStyleName = 'index-D0c5Vd2e.css';
const indexHtml = `<!doctype html><html><head><script type="module" src="/assets/${scriptName}"></script></head><body><div id="root"></div></body></html>`;
const immutable = 'public, max-age=31536000, immutable';

let webRoot: string;
let testApp: TestApp;
beforeAll(async () => {
  webRoot = await mkdtemp(path.join(os.tmpdir(), 'flowsmith-web-pages-'));
  await mkdir(path.join(webRoot, 'assets'));
  await writeFile(path.join(webRoot, 'index.html'), indexHtml);
  await writeFile(path.join(webRoot, 'assets', scriptName), script);
  await writeFile(path.join(webRoot, 'assets', `${scriptName}.br`), brotliCompressSync(script));
  await writeFile(path.join(webRoot, 'assets', `${scriptName}.gz`), gzipSync(script));
  await writeFile(path.join(webRoot, 'assets', smallStyleName), 'body{margin:0}');
  testApp = await startTestApp({ listen: true, webRoot });
});
afterAll(async () => {
  await testApp?.close();
  if (webRoot) await rm(webRoot, { recursive: true, force: true });
});

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A request with exactly these headers (fetch would add Accept-Encoding and decompress). */
function rawRequest(method: string, pathname: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${testApp.baseUrl}${pathname}`, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

function varyNames(response: RawResponse): string[] {
  return String(response.headers.vary ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase());
}

describe('pages', () => {
  it.each([pageRoutes.login, pageRoutes.dashboard, pageRoutes.abandonedCart])('serves %s as index.html that the browser must revalidate before each use', async (route) => {
    const response = await rawRequest('GET', route, { 'accept-encoding': 'br, gzip' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.body.toString('utf8')).toBe(indexHtml);
  });

  it('answers a revalidation of an unchanged index.html with 304 and no body', async () => {
    const first = await rawRequest('GET', pageRoutes.login);
    const etag = first.headers.etag!;
    expect(etag).toMatch(/^".+"$/);
    const again = await rawRequest('GET', pageRoutes.register, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers['cache-control']).toBe('no-cache');
    const changed = await rawRequest('GET', pageRoutes.register, { 'if-none-match': '"from-an-older-build"' });
    expect(changed.status).toBe(200);
  });

  it('answers HEAD on a page with its headers only', async () => {
    const response = await rawRequest('HEAD', pageRoutes.login);
    expect(response.status).toBe(200);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body.length).toBe(0);
  });
});

describe('hashed assets', () => {
  it('serves the Brotli copy to a browser that accepts it, immutable for a year', async () => {
    const response = await rawRequest('GET', `/assets/${scriptName}`, { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBe('br');
    expect(response.headers['content-type']).toMatch(/^text\/javascript|^application\/javascript/);
    expect(response.headers['cache-control']).toBe(immutable);
    expect(varyNames(response)).toContain('accept-encoding');
    expect(brotliDecompressSync(response.body).toString('utf8')).toBe(script);
    expect(response.body.length).toBeLessThan(script.length / 5);
  });

  it('serves the gzip copy to a browser that accepts gzip but not Brotli', async () => {
    for (const acceptEncoding of ['gzip, deflate', 'br;q=0, gzip']) {
      const response = await rawRequest('GET', `/assets/${scriptName}`, { 'accept-encoding': acceptEncoding });
      expect(response.headers['content-encoding'], acceptEncoding).toBe('gzip');
      expect(response.headers['cache-control']).toBe(immutable);
      expect(varyNames(response)).toContain('accept-encoding');
      expect(gunzipSync(response.body).toString('utf8')).toBe(script);
    }
  });

  it.each([
    ['no Accept-Encoding', {}],
    ['Accept-Encoding: identity', { 'accept-encoding': 'identity' }],
  ])('serves the file as it is with %s, still varying on Accept-Encoding', async (_case, headers) => {
    const response = await rawRequest('GET', `/assets/${scriptName}`, headers);
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.headers['cache-control']).toBe(immutable);
    expect(varyNames(response)).toContain('accept-encoding');
    expect(response.body.toString('utf8')).toBe(script);
  });

  it('serves an asset without compressed copies as it is', async () => {
    const response = await rawRequest('GET', `/assets/${smallStyleName}`, { 'accept-encoding': 'br, gzip' });
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.headers['content-type']).toMatch(/^text\/css/);
    expect(response.headers['cache-control']).toBe(immutable);
    expect(response.body.toString('utf8')).toBe('body{margin:0}');
  });

  it('answers HEAD on an asset with its headers only', async () => {
    const response = await rawRequest('HEAD', `/assets/${scriptName}`, { 'accept-encoding': 'br' });
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBe('br');
    expect(response.headers['cache-control']).toBe(immutable);
    expect(Number(response.headers['content-length'])).toBeGreaterThan(0);
    expect(response.body.length).toBe(0);
  });

  it.each([
    ['an asset of another build', '/assets/login-page-Old0ld00.js'],
    ['a compressed copy by its own name', `/assets/${scriptName}.br`],
  ])('answers %s with 404, not with index.html or a redirect', async (_case, pathname) => {
    for (const method of ['GET', 'HEAD']) {
      const response = await rawRequest(method, pathname, { 'accept-encoding': 'br, gzip' });
      expect(response.status, `${method} ${pathname}`).toBe(404);
      expect(response.headers['content-type'] ?? '').not.toMatch(/html/);
      expect(response.headers.location).toBeUndefined();
      expect(response.headers['cache-control'] ?? '').not.toContain('immutable');
    }
  });
});

describe('while a new build replaces the old one', () => {
  it('answers a page with 503 and Retry-After, not 500, while index.html is missing', async () => {
    const replacedRoot = await mkdtemp(path.join(os.tmpdir(), 'flowsmith-web-pages-rebuild-'));
    await writeFile(path.join(replacedRoot, 'index.html'), indexHtml);
    const rebuilding = await startTestApp({ listen: true, webRoot: replacedRoot });
    try {
      // `vite build` empties the folder first.
      await rm(path.join(replacedRoot, 'index.html'));
      const response = await fetch(`${rebuilding.baseUrl}${pageRoutes.login}`);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      await writeFile(path.join(replacedRoot, 'index.html'), indexHtml);
      expect((await fetch(`${rebuilding.baseUrl}${pageRoutes.login}`)).status).toBe(200);
    } finally {
      await rebuilding.close();
      await rm(replacedRoot, { recursive: true, force: true });
    }
  });
});
