/**
 * `npm start`'s first step: builds the web app only when its inputs changed since the
 * build in dist/web (vite.config.ts stamps each finished build with the fingerprint of
 * what it read), so a restart serves the current build at once instead of rebuilding it.
 */
import path from 'node:path';
import { isWebBuildCurrent } from './web-build-fingerprint.ts';

const root = path.resolve(import.meta.dirname, '..');
const outDir = path.join(root, 'dist/web');

if (isWebBuildCurrent(root, outDir)) {
  process.stdout.write('The web app in dist/web is current; not rebuilding it.\n');
} else {
  process.stdout.write('Building the web app…\n');
  // Loaded only when needed: importing Vite alone takes a tenth of a second.
  const { build } = await import('vite');
  await build({ configFile: path.join(root, 'vite.config.ts'), logLevel: 'warn' });
}
