import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { computeWebBuildFingerprint, fingerprintFileName } from './scripts/web-build-fingerprint.ts';

const root = import.meta.dirname;
const outDir = path.resolve(root, 'dist/web');

export default defineConfig({
  root: path.resolve(root, 'src/web'),
  plugins: [react(), tailwindcss(), finishedBuild()],
  resolve: {
    // Preact's compatibility layer runs the React code in the browser: 58 KB of React and
    // React DOM compressed become 5 KB (docs/decisions/0054-preact-in-the-browser.md).
    alias: [
      { find: /^react$/, replacement: 'preact/compat' },
      { find: /^react-dom$/, replacement: 'preact/compat' },
      { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
      { find: /^react\/jsx-runtime$/, replacement: 'preact/jsx-runtime' },
      { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/jsx-dev-runtime' },
    ],
  },
  build: {
    outDir,
    emptyOutDir: true,
    rolldownOptions: {
      output: {
        // Pages are split by route (src/web/app/router.tsx). These groups keep the code
        // every page needs, or every form needs, in one file each instead of a dozen
        // small ones: fewer requests, and Brotli compresses one file better than its parts.
        codeSplitting: {
          groups: [
            { name: 'framework', test: /node_modules[\\/](preact|react-router|@tanstack)[\\/]/, priority: 2 },
            { name: 'forms', test: /node_modules[\\/](react-hook-form|@hookform)[\\/]/, priority: 2 },
            // Apart from the framework: the sign-in page's first load does without zod (it
            // fetches its checks when the form is first used, src/web/app/deferred-resolver.ts).
            { name: 'validation', test: /node_modules[\\/]zod[\\/]/, priority: 2 },
            // Fetched with the first toast (src/web/app/toast.ts), in no page's first load.
            { name: 'toasts', test: /node_modules[\\/]sonner[\\/]/, priority: 2 },
            { name: 'ui', test: /src[\\/]web[\\/]ui[\\/]|lucide-react[\\/]dist[\\/]esm[\\/](createLucideIcon|Icon|defaultAttributes|context|shared)/, priority: 1 },
          ],
        },
      },
    },
  },
  server: {
    // `npx vite` for working on pages, with the API of `npm run dev` behind it.
    proxy: { '/api': 'http://localhost:3000', '/healthz': 'http://localhost:3000' },
  },
});

/**
 * After the files are written: a Brotli and a gzip copy of each text asset, so the server
 * sends the smallest one the browser accepts without compressing per request (the server
 * part is src/server/web-pages/), then the fingerprint of the inputs the build read,
 * which `npm start` compares to skip building again (scripts/build-web-if-stale.ts).
 * The fingerprint is taken when the build starts: an edit made while it runs then makes
 * the next start build again rather than serve a build that lacks the edit.
 */
function finishedBuild(): Plugin {
  let fingerprint = '';
  return {
    name: 'flowsmith-finished-build',
    apply: 'build',
    buildStart() {
      fingerprint = computeWebBuildFingerprint(root);
    },
    async writeBundle() {
      await precompressAssets(path.join(outDir, 'assets'));
      await writeFile(path.join(outDir, fingerprintFileName), `${fingerprint}\n`);
    },
  };
}

const compressibleAsset = /\.(js|css|svg|json|txt|map)$/;
const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

async function precompressAssets(assetsDir: string): Promise<void> {
  const files = (await readdir(assetsDir)).filter((name) => compressibleAsset.test(name));
  await Promise.all(
    files.map(async (name) => {
      const file = path.join(assetsDir, name);
      const content = await readFile(file);
      const [br, gz] = await Promise.all([
        brotli(content, { params: { [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: content.length } }),
        gzipAsync(content, { level: zlib.Z_BEST_COMPRESSION }),
      ]);
      if (br.length < content.length) await writeFile(`${file}.br`, br);
      if (gz.length < content.length) await writeFile(`${file}.gz`, gz);
    }),
  );
}
