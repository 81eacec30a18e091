import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Everything `vite build` reads that can change what it writes: the pages and what they
 * share with the server, the build's own configuration, and the exact dependency versions.
 * A file this list misses would let `npm start` serve a stale build, so it errs wide
 * (package.json changes for a new script, say, cost one needless 2-second build).
 */
export const webBuildInputs = [
  'src/web',
  'src/shared',
  'vite.config.ts',
  'scripts/web-build-fingerprint.ts',
  'tsconfig.json',
  'package.json',
  'package-lock.json',
];

/** Written into the build's folder after a build completes; absent while one is under way or after one failed. */
export const fingerprintFileName = '.build-fingerprint';

/**
 * A hash of the inputs' paths and contents. Contents, not modification times: a checkout,
 * `git stash` or an editor's save-without-change must not force a build, and a copied
 * tree with fresh times is still the same tree. About 200 small files: a few milliseconds.
 */
export function computeWebBuildFingerprint(root: string, inputs: readonly string[] = webBuildInputs): string {
  const hash = createHash('sha256');
  for (const input of inputs) {
    for (const file of filesUnder(root, input)) {
      hash.update(`${file}\0`);
      hash.update(readFileSync(path.join(root, file)));
      hash.update('\0');
    }
  }
  return hash.digest('hex');
}

/** True when `outDir` holds a finished build of exactly these inputs. */
export function isWebBuildCurrent(root: string, outDir: string, inputs: readonly string[] = webBuildInputs): boolean {
  const fingerprintFile = path.join(outDir, fingerprintFileName);
  if (!existsSync(fingerprintFile) || !existsSync(path.join(outDir, 'index.html'))) return false;
  return readFileSync(fingerprintFile, 'utf8').trim() === computeWebBuildFingerprint(root, inputs);
}

/** Relative paths (with /) of the files of `input`, sorted so the hash does not depend on directory order; a missing input counts as no files. */
function filesUnder(root: string, input: string): string[] {
  const absolute = path.join(root, input);
  if (!existsSync(absolute)) return [];
  if (!statSync(absolute).isDirectory()) return [input];
  return readdirSync(absolute, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}
