/**
 * The module rules of the server, the browser app and what they share, checked by
 * `npm run lint:modules` (and `npm test`). Paths are relative to the folder dependency-cruiser runs in, so
 * test/unit/module-rules.test.ts can run the same rules over a fixture tree laid out
 * like this one.
 *
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'integrations-are-leaves',
      severity: 'error',
      comment:
        'An event travels route → intake → events → jobs → generation → delivery → integrations, with nothing pointing ' +
        'back up. A service client that imports a feature (the database, credentials, the engine) drags that feature ' +
        'into every caller and can no longer be tested against its fake alone; it takes what it needs as arguments ' +
        'and maps failures to its own error codes.',
      from: { path: '^src/server/integrations/' },
      to: { path: '^src/server/', pathNot: '^src/server/integrations/' },
    },
    {
      name: 'browser-imports-no-server',
      severity: 'error',
      comment:
        'The browser bundle must not pull in server code (secrets, pg, Node builtins), and even a type-only import ' +
        'ties the web app to server internals. What both sides need lives in src/shared.',
      from: { path: '^src/web/' },
      to: { path: '^src/server/' },
    },
    {
      name: 'toasts-through-the-app',
      severity: 'error',
      comment:
        'sonner is fetched with the first toast (src/web/app/toast.ts), and its Toaster mounts only then: a page that ' +
        'imports sonner itself puts it back into the first load, and its toasts never show if no toast went through ' +
        'the app first. Raise toasts with src/web/app/toast.ts.',
      from: { path: '^src/web/', pathNot: '^src/web/app/(toast\\.ts|toaster\\.tsx)$' },
      to: { path: 'node_modules/sonner/' },
    },
    {
      name: 'shared-is-shared',
      severity: 'error',
      comment:
        'src/shared is imported by both the server and the browser, so it may depend on neither: anything it took ' +
        'from one side would land in the other.',
      from: { path: '^src/shared/' },
      to: { path: '^src/(server|web)/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'A cycle between server modules makes load order matter and hides which module owns what; the path of an ' +
        'event reads top-down only if nothing points back up.',
      from: { path: '^src/server/' },
      to: { path: '^src/server/', circular: true },
    },
    {
      name: 'tests-not-imported-by-src',
      severity: 'error',
      comment: 'Test support, fakes and benchmarks are not shipped; the app must run without them.',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
  ],
  options: {
    // Type-only imports count too: browser-imports-no-server forbids them.
    tsPreCompilationDeps: true,
    // Imports name their `.ts` files (allowImportingTsExtensions); the tsconfig lets the
    // resolver map them.
    tsConfig: { fileName: 'tsconfig.json' },
    // The app is ES modules throughout; a local function named `require` is not CommonJS.
    moduleSystems: ['es6'],
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^test/fixtures/' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
