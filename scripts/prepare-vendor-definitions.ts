/**
 * Runs after `npm install` / `npm ci` (the `postinstall` script): brings in the vendors'
 * definitions the service stand-ins are held to (test/contracts/), so no test or
 * benchmark fetches one while it runs. Shopify's Admin schema is the one that comes from
 * the network (an npm tarball, checked against its pinned integrity); fetched while a
 * benchmark's stand-in answered its first request, it once made the app's credential
 * check time out.
 *
 * An install without the development dependencies (a production install) has no
 * stand-ins to feed, so it skips this.
 */
try {
  await import('graphql');
} catch {
  console.log('Vendor definitions: skipped (the development dependencies are not installed).');
  process.exit(0);
}
const { default: prepareVendorDefinitions } = await import('../test/contracts/prepare-definitions.ts');
const started = Date.now();
try {
  prepareVendorDefinitions();
  console.log(`Vendor definitions ready in node_modules/.cache/vendor-definitions (${((Date.now() - started) / 1000).toFixed(1)} s).`);
} catch (error) {
  // The app itself does not need them: an install without the network still starts the
  // app, and the test suite's set-up tries again (and says why it cannot run without them).
  console.warn(`Vendor definitions not prepared: ${(error as Error).message.split('\n')[0]}`);
}
