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
    // Two-way folder dependencies. Folders of src/server that import each other both ways
    // cannot be understood, tested or moved apart one at a time; each was a helper living in
    // the wrong folder or a list of features kept below them. The rules below keep the pairs
    // made one-way (docs/architecture.md, "Module rules") from coming back, one direction each;
    // test/unit/module-rules-folders.test.ts counts the pairs that are left.
    {
      name: 'database-imports-no-feature',
      severity: 'error',
      comment:
        'Every feature imports the database, so the database imports none: what it needs of them (the stored ' +
        'functions the migration runner applies) is listed at the top, in src/server/stored-functions.ts, and handed ' +
        'to openDatabase and runMigrations. It may use config.ts and logger.ts; its upkeep, which runs on a loop, ' +
        'is background work (background/database-upkeep.ts).',
      from: { path: '^src/server/database/' },
      to: { path: '^src/server/', pathNot: '^src/server/(database/|config\\.ts$|logger\\.ts$)' },
    },
    {
      name: 'background-imports-no-feature',
      severity: 'error',
      comment:
        'The features run their loops on src/server/background/, so it imports none of them: the list of every part ' +
        'is src/server/background-parts.ts, beside app.ts, which hands the parts to createBackground. It stands on ' +
        'the database only: the pg-boss job queue (job-queue.ts) and the database upkeep run their statements there.',
      from: { path: '^src/server/background/' },
      to: { path: '^src/server/', pathNot: '^src/server/(background/|database/|config\\.ts$|logger\\.ts$)' },
    },
    {
      name: 'experiments-import-no-engine',
      severity: 'error',
      comment:
        'The engine assigns shoppers to experiments (event-pipeline.ts → experiments/), so experiments take nothing ' +
        'from the engine; what both need (the shopper key, platform/shopper-key.ts) lives below both.',
      from: { path: '^src/server/experiments/' },
      to: { path: '^src/server/engine/' },
    },
    {
      name: 'credentials-import-no-engine',
      severity: 'error',
      comment:
        "The engine asks credentials for tokens (shopify-token-provider.ts), so credentials take nothing from the " +
        "engine: the prices live with OpenAI's client (integrations/openai/openai-prices.ts), and the engine's view " +
        'of the credentials is built in engine/spine/engine-credentials-loader.ts.',
      from: { path: '^src/server/credentials/' },
      to: { path: '^src/server/engine/' },
    },
    {
      name: 'flows-import-no-credentials',
      severity: 'error',
      comment:
        "Credentials' key rotation re-encrypts the flows' signing secrets (flows/flow-signature-queries.ts), so " +
        'flows take nothing from credentials: the cipher and the masking they share live in platform/.',
      from: { path: '^src/server/flows/' },
      to: { path: '^src/server/credentials/' },
    },
    {
      name: 'decisions-are-pure',
      severity: 'error',
      comment:
        'The pipeline core, the timer rules and the intake decisions decide; everything around them looks up and ' +
        'carries out (docs/decisions/0035-pure-pipeline-core.md). Nothing they reach, however indirectly, may query ' +
        '(a *-queries.ts module, the database, pg, pg-boss), call a service (the OpenAI, Klaviyo and Shopify clients), ' +
        'sleep or read the clock (platform/clock.ts, the background loops, node timers), or touch the network or the disk.',
      from: { path: '^src/server/(engine/spine/pipeline-core|engine/timers/timer-rules|intake/intake-decisions)\\.ts$' },
      to: {
        reachable: true,
        path: '(-queries\\.ts$|^src/server/(database|background)/|^src/server/integrations/(openai|klaviyo|shopify)/|^src/server/platform/clock\\.ts$|node_modules/(pg|pg-boss|@electric-sql)/|^(node:)?(fs|net|http|https|timers|child_process|worker_threads)(/|$))',
      },
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
