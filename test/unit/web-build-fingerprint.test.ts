import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { computeWebBuildFingerprint, fingerprintFileName, isWebBuildCurrent, webBuildInputs } from '../../scripts/web-build-fingerprint.ts';

// `npm start` skips `vite build` exactly when isWebBuildCurrent says so: a wrong "current"
// serves a stale app, a wrong "stale" costs a build on every start.
const inputs = ['src/web', 'src/shared', 'vite.config.ts', 'package-lock.json'];
let root: string;
let outDir: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'flowsmith-fingerprint-'));
  outDir = path.join(root, 'dist/web');
  await write('src/web/main.tsx', 'render(<App />);');
  await write('src/web/auth/login-page.tsx', 'export function LoginPage() {}');
  await write('src/shared/routes.ts', "export const login = '/auth/login';");
  await write('vite.config.ts', 'export default {};');
  await write('package-lock.json', '{"lockfileVersion": 3}');
  await write('src/server/main.ts', 'listen();');
  await write('dist/web/index.html', '<!doctype html>');
  await stampBuild();
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function write(file: string, content: string): Promise<void> {
  await mkdir(path.dirname(path.join(root, file)), { recursive: true });
  await writeFile(path.join(root, file), content);
}

async function stampBuild(): Promise<void> {
  await writeFile(path.join(outDir, fingerprintFileName), `${computeWebBuildFingerprint(root, inputs)}\n`);
}

it('reuses the build when no input changed, even if files were rewritten with the same content', async () => {
  expect(isWebBuildCurrent(root, outDir, inputs)).toBe(true);
  await write('src/web/main.tsx', 'render(<App />);');
  expect(isWebBuildCurrent(root, outDir, inputs)).toBe(true);
});

it('reuses the build when only files outside the inputs changed', async () => {
  await write('src/server/main.ts', 'listen(3000);');
  await write('dist/web/assets/extra.js', '1');
  expect(isWebBuildCurrent(root, outDir, inputs)).toBe(true);
});

it.each([
  ['a page edited', () => write('src/web/auth/login-page.tsx', 'export function LoginPage() { return null; }')],
  ['a page added', () => write('src/web/auth/register-page.tsx', 'export function RegisterPage() {}')],
  ['a page removed', () => rm(path.join(root, 'src/web/auth/login-page.tsx'))],
  ['a page renamed', async () => {
    await rm(path.join(root, 'src/web/auth/login-page.tsx'));
    await write('src/web/auth/sign-in-page.tsx', 'export function LoginPage() {}');
  }],
  ['a shared module edited', () => write('src/shared/routes.ts', "export const login = '/sign-in';")],
  ['the build configuration edited', () => write('vite.config.ts', 'export default { base: "/app/" };')],
  ['a dependency upgraded', () => write('package-lock.json', '{"lockfileVersion": 3, "packages": {}}')],
])('rebuilds after %s', async (_change, change) => {
  await change();
  expect(isWebBuildCurrent(root, outDir, inputs)).toBe(false);
});

it('rebuilds when the build carries no fingerprint (never finished, or built before fingerprints)', async () => {
  await rm(path.join(outDir, fingerprintFileName));
  expect(isWebBuildCurrent(root, outDir, inputs)).toBe(false);
});

it('rebuilds when the build folder lost its index.html', async () => {
  await rm(path.join(outDir, 'index.html'));
  expect(isWebBuildCurrent(root, outDir, inputs)).toBe(false);
});

it('does not depend on where the tree lives', async () => {
  const copy = await mkdtemp(path.join(os.tmpdir(), 'flowsmith-fingerprint-copy-'));
  try {
    for (const [file, content] of [
      ['src/web/main.tsx', 'render(<App />);'],
      ['src/web/auth/login-page.tsx', 'export function LoginPage() {}'],
      ['src/shared/routes.ts', "export const login = '/auth/login';"],
      ['vite.config.ts', 'export default {};'],
      ['package-lock.json', '{"lockfileVersion": 3}'],
    ] as const) {
      await mkdir(path.dirname(path.join(copy, file)), { recursive: true });
      await writeFile(path.join(copy, file), content);
    }
    expect(computeWebBuildFingerprint(copy, inputs)).toBe(computeWebBuildFingerprint(root, inputs));
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
});

it('fingerprints by default what the build reads: the pages, shared code, build configuration and locked dependencies', () => {
  expect(webBuildInputs).toEqual(expect.arrayContaining(['src/web', 'src/shared', 'vite.config.ts', 'package-lock.json', 'scripts/web-build-fingerprint.ts']));
});
