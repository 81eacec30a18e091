import { reviewRoutes } from './reviews/review-routes.ts';
import { experimentRoutes } from './experiments/experiment-routes.ts';
import { flowAlertRoutes } from './alerts/flow-alert-routes.ts';
import { createFlowAlerts } from './alerts/flow-alerts.ts';
import { serviceConditionRoutes } from './service-conditions/service-condition-routes.ts';
import { createServiceConditions, type ServiceConditions } from './service-conditions/service-conditions.ts';
import { recheckRefusedStores } from './service-conditions/store-recheck.ts';
import path from 'node:path';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import helmet from 'helmet';
import rateLimit from '@fastify/rate-limit';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import type { AppConfig } from './config.ts';
import type { Database } from './database/database.ts';
import type { Mailer } from './mail/mailer.ts';
import { systemClock, type Clock } from './platform/clock.ts';
import { registerErrorHandler } from './platform/error-handler.ts';
import { registerCsrfGuard } from './platform/request-guards.ts';
import { registerJsonBodyParser, registerRequestAddressGuard } from './platform/input-guards.ts';
import { HttpError } from './platform/http-errors.ts';
import { createAuthLibrary, type AuthLibrary, type PasswordHashing } from './auth/auth-library.ts';
import { authRoutes } from './auth/auth-routes.ts';
import { requireSignedIn } from './auth/signed-in.ts';
import { flowRoutes } from './flows/flow-routes.ts';
import { previewRoutes } from './engine/writing/preview-routes.ts';
import { costRoutes } from './engine/limits/cost-routes.ts';
import { flowSignatureRoutes } from './flows/flow-signature-routes.ts';
import { createFlowSignatureCache } from './intake/flow-signature-cache.ts';
import { credentialRoutes } from './credentials/credential-routes.ts';
import { createShopifyInstallations } from './connections/shopify-installations.ts';
import { createKlaviyoConnections } from './connections/klaviyo-connections.ts';
import { connectionCallbackRoutes, connectionRoutes, type ConnectionServices } from './connections/connection-routes.ts';
import { shopifyAppWebhookRoutes } from './connections/shopify-app-webhook-routes.ts';
import { connectionTokensDecrypt } from './connections/connection-key-rotation.ts';
import { loadCredentialCipher, type CredentialCipher } from './platform/credential-cipher.ts';
import { createEngineCredentialsLoader, type OAuthCredentialSources } from './engine/spine/engine-credentials-loader.ts';
import { connectionWords } from './connections/connection-words.ts';
import { createShopifyAccessTokenProvider, type ShopifyAccessTokenProvider } from './credentials/shopify-token-provider.ts';
import { createEngine, type Engine, type EngineOptions } from './engine/spine/engine.ts';
import type { CredentialsLoader } from './engine/spine/engine-credentials.ts';
import { webhookRoutes } from './webhooks/webhook-routes.ts';
import { pixelAddressRoutes } from './webhooks/pixel-address-routes.ts';
import { Intake } from './intake/intake.ts';
import { embeddedBatchLimits, serverBatchLimits } from './intake/intake-batcher.ts';
import { AppMetrics } from './observability/metrics.ts';
import { observabilityRoutes } from './observability/observability-routes.ts';
import { defaultOverloadLimits, registerOverloadGuard, type OverloadLimits } from './observability/overload.ts';
import { registerApiDescription } from './observability/api-description.ts';
import { findEventJobBacklog } from './background/job-queue-queries.ts';
import { findEventsBehind } from './events/event-log-queries.ts';
import { findDatabaseBytes, listLargestTables } from './database/database-size-queries.ts';
import { observeServiceCalls } from './integrations/service-http.ts';
import { eventRoutes } from './events/event-routes.ts';
import { replayRoutes } from './intake/replay-routes.ts';
import { attributionRoutes } from './attribution/attribution-routes.ts';
import { dashboardRoutes } from './dashboard/dashboard-routes.ts';
import { shopifyConnectRoutes } from './shopify-connect/shopify-connect-routes.ts';
import { liveStreamRoutes, testSendRoutes, webhookStatusRoutes } from './realtime/realtime-routes.ts';
import { startSandboxListener } from './sandbox/sandbox-listener.ts';
import { withSandboxServices } from './sandbox/sandbox-credentials.ts';
import { sandboxRoutes } from './sandbox/sandbox-routes.ts';
import { requestMessages } from '../shared/messages.ts';
import { registerWebPages } from './web-pages/web-page-routes.ts';
import { privacyRoutes } from './privacy/privacy-routes.ts';
import { privacyWebhookRoutes } from './privacy/privacy-webhook-routes.ts';
import { retentionRoutes } from './retention/retention-routes.ts';
import { createRetentionJob, type RetentionJob } from './retention/retention.ts';
import { PrivacyWork } from './privacy/privacy-work.ts';
import { ChangeFeed } from './realtime/change-feed.ts';
import { createBackground, type Background } from './background/background.ts';
import { appBackgroundParts } from './background-parts.ts';
import { createDatabaseUpkeep, type DatabaseUpkeep, type DatabaseUpkeepOptions } from './background/database-upkeep.ts';
import { accountDeletionRoutes } from './account/account-deletion-routes.ts';
import { apiErrorCodes } from '../shared/api/error-codes.ts';

export interface AppDependencies {
  config: AppConfig;
  database: Database;
  mailer: Mailer;
  logger: Logger;
  authSecret: string;
  clock?: Clock;
  /** Folder of the built web app; pages answer 503 with a hint when it is missing. */
  webRoot?: string;
  /** Per-address limit on sign-up, mail and reset requests; tests that sign up many owners raise it. */
  accountRateLimitPerMinute?: number;
  /** Browsing-pixel events accepted per source address and minute (the endpoint is public). */
  pixelRateLimitPerMinute?: number;
  /** Engine tuning: retry delays, concurrency, Klaviyo limits (tests use millisecond delays). */
  engine?: Partial<EngineOptions>;
  /** Reads an owner's decrypted service credentials for the engine and webhook signatures. */
  loadEngineCredentials?: CredentialsLoader;
  /** Encrypts stored credentials; made once at start (main.ts), else from CREDENTIALS_KEY or the key file in DATA_DIR. */
  credentialCipher?: CredentialCipher;
  /** When the app sheds load with 503 (tests set tiny limits). */
  overload?: Partial<OverloadLimits>;
  /** The embedded database's vacuum and checkpoints (tests run passes by hand). */
  databaseUpkeep?: Partial<DatabaseUpkeepOptions>;
  /** Never set in the product (main.ts), which keeps better-auth's scrypt; tests pass a cheaper one. */
  passwordHashing?: PasswordHashing;
}

declare module 'fastify' {
  interface FastifyInstance {
    auth: AuthLibrary;
    clock: Clock;
    /** Sends event jobs; its worker parts process them in the all/worker roles. */
    engine: Engine;
    /** Every background part of this process, started with the app and stopped with it (src/server/background/). */
    background: Background;
    /** Deletes events past their owners' retention (a worker part of the background work). */
    retention: RetentionJob;
    database: Database;
    appConfig: AppConfig;
    /** The one cipher of stored credentials (src/server/platform/credential-cipher.ts). */
    credentialCipher: CredentialCipher;
    /** Admin API tokens per owner, obtained and renewed by the client-credentials grant where needed. */
    shopifyTokens: ShopifyAccessTokenProvider;
    /** Shopify and Klaviyo connected by OAuth (docs/decisions/0048-connect-by-oauth.md). */
    connections: ConnectionServices;
    /** Counters and gauges behind GET /metrics. */
    metrics: AppMetrics;
    /** Vacuum, analyze and checkpoints of the embedded database (nothing on a server). */
    databaseUpkeep: DatabaseUpkeep;
    /** Conditions of the owners' services that every later event meets (docs/decisions/0047-service-conditions.md). */
    serviceConditions: ServiceConditions;
    /** Asks the stores that refused their token again (a worker's schedule; tests run it by hand). */
    recheckRefusedStores(): Promise<number>;
  }
}

export const defaultWebRoot = path.resolve(import.meta.dirname, '../../dist/web');

/** Builds the whole HTTP app (API and web pages) without listening; main.ts starts it. */
export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const { config, database, mailer } = deps;
  const clock = deps.clock ?? systemClock;
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: 1_048_576,
    trustProxy: config.trustProxy,
    // Every GET route answers HEAD too (headers only); the live stream handles it itself.
    exposeHeadRoutes: true,
    // A path the router cannot decode (a stray %) gets the shared error body, not Fastify's.
    frameworkErrors: (_error, _request, reply) => {
      void (reply as FastifyReply).status(400).send({ error: apiErrorCodes.malformed_address, message: requestMessages.malformedAddress });
    },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  registerRequestAddressGuard(app);
  registerJsonBodyParser(app);
  // Both before any route: swagger collects routes as they are added, and load is shed
  // before a request costs anything.
  await registerApiDescription(app);
  await registerOverloadGuard(app, { ...defaultOverloadLimits, ...deps.overload });
  const metrics = new AppMetrics({
    pool: database.pool,
    backlog: () => findEventJobBacklog(database.pool).catch(() => null),
    eventsBehind: () => findEventsBehind(database.pool, clock.now()).catch(() => null),
    databaseBytes: () => findDatabaseBytes(database.pool).catch(() => null),
    largestTables: () => listLargestTables(database.pool).catch(() => null),
  });
  app.decorate('metrics', metrics);

  const auth = createAuthLibrary({
    pool: database.pool,
    publicUrl: config.publicUrl,
    secret: deps.authSecret,
    mailer,
    logger: app.log,
    ...(deps.passwordHashing ? { passwordHashing: deps.passwordHashing } : {}),
  });
  app.decorate('auth', auth);
  app.decorate('clock', clock);
  app.decorate('database', database);
  app.decorate('appConfig', config);
  const credentialCipher = deps.credentialCipher ?? (await loadCredentialCipher(config));
  app.decorate('credentialCipher', credentialCipher);
  const serviceConditions = createServiceConditions({ pool: database.pool, clock, logger: deps.logger });
  app.decorate('serviceConditions', serviceConditions);
  const connections: ConnectionServices = {
    shopify: createShopifyInstallations({
      pool: database.pool,
      cipher: credentialCipher,
      clock,
      logger: deps.logger,
      conditions: serviceConditions,
      app: config.shopifyApp,
      publicUrl: config.publicUrl,
      shopifyBaseUrl: config.shopifyBaseUrl,
    }),
    klaviyo: createKlaviyoConnections({
      pool: database.pool,
      cipher: credentialCipher,
      clock,
      logger: deps.logger,
      conditions: serviceConditions,
      app: config.klaviyoApp,
      publicUrl: config.publicUrl,
      klaviyoBaseUrl: config.klaviyoBaseUrl,
      klaviyoOAuthBaseUrl: config.klaviyoOAuthBaseUrl,
    }),
  };
  app.decorate('connections', connections);
  app.decorate(
    'shopifyTokens',
    createShopifyAccessTokenProvider({ db: database.pool, cipher: credentialCipher, clock, shopifyBaseUrl: config.shopifyBaseUrl, oauth: connections.shopify }),
  );
  // The sandbox services listen on loopback in every process, for the engine to reach
  // them like the real ones; the engine's credentials say which to use per event.
  const sandbox = await startSandboxListener({ db: database.pool, clock, logger: deps.logger });
  const oauthSources: OAuthCredentialSources = {
    shopifyAppSecret: config.shopifyApp?.clientSecret ?? null,
    klaviyoAccess: (userId) => connections.klaviyo.access(userId),
    async connectionProblem(userId, service) {
      const status = service === 'shopify' ? await connections.shopify.status(userId) : await connections.klaviyo.status(userId);
      if (!status) return service === 'shopify' ? connectionWords.shopifyNotConnected : connectionWords.klaviyoNotConnected;
      return status.state === 'connected' ? null : (status.problem ?? (service === 'shopify' ? connectionWords.shopifyNotConnected : connectionWords.klaviyoNotConnected));
    },
  };
  const loadEngineCredentials = withSandboxServices(deps.loadEngineCredentials ?? createEngineCredentialsLoader(credentialCipher, clock, oauthSources), {
    addresses: () => sandbox.addresses(),
    cipher: credentialCipher,
    clock,
    openaiBaseUrl: config.openaiBaseUrl,
  });

  // Security headers on every answer. Helmet's middleware is built once here: the Fastify
  // plugin builds it again for every request (parsing the CSP each time), which cost
  // about 2 % of the CPU of a webhook's answer.
  const securityHeaders = helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        upgradeInsecureRequests: null,
      },
    },
    hsts: config.publicUrl.startsWith('https://'),
  });
  app.addHook('onRequest', (request, reply, done) => securityHeaders(request.raw, reply.raw, (error) => done(error as Error | undefined)));
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) =>
      new HttpError(apiErrorCodes.rate_limited, requestMessages.rateLimited, {
        retryAfterSeconds: Math.ceil(context.ttl / 1000),
      }),
  });
  registerCsrfGuard(app, config.publicUrl);

  await app.register(observabilityRoutes, { metrics, metricsToken: config.metricsToken });

  await app.register(authRoutes, { prefix: '/api/account', auth, pool: database.pool, clock, rateLimitPerMinute: deps.accountRateLimitPerMinute ?? 10 });

  const recheckStores = () => recheckRefusedStores({ pool: database.pool, clock, logger: deps.logger, tokens: app.shopifyTokens, conditions: serviceConditions });
  app.decorate('recheckRefusedStores', recheckStores);
  const engine = createEngine({
    pool: database.pool,
    logger: deps.logger,
    role: config.role,
    openaiBaseUrl: config.openaiBaseUrl,
    klaviyoBaseUrl: config.klaviyoBaseUrl,
    loadCredentials: loadEngineCredentials,
    shopifyTokens: app.shopifyTokens,
    alerts: createFlowAlerts({ pool: database.pool, mailer, publicUrl: config.publicUrl, logger: deps.logger }),
    conditions: serviceConditions,
    options: deps.engine,
    clock,
    observer: metrics,
  });
  app.decorate('engine', engine);
  const stopObservingServiceCalls = observeServiceCalls((call) => metrics.serviceCall(call));
  app.addHook('onClose', async () => stopObservingServiceCalls());
  const retention = createRetentionJob({ pool: database.pool, clock, logger: deps.logger });
  app.decorate('retention', retention);
  const privacyWork = new PrivacyWork({ pool: database.pool, clock, logger: app.log });
  const changeFeed = new ChangeFeed({ pool: database.pool, clientConfig: database.clientConfig, logger: app.log });
  const databaseUpkeep = createDatabaseUpkeep({
    pool: database.pool,
    embedded: database.embedded,
    logger: deps.logger,
    options: deps.databaseUpkeep,
    onStatement: (task, durationMs) => metrics.upkeepStatement(task, durationMs),
  });
  app.decorate('databaseUpkeep', databaseUpkeep);
  // The one place background work starts and stops, each part by this process's role.
  const background = createBackground({
    role: config.role,
    logger: deps.logger,
    parts: appBackgroundParts({ engine, retention, privacyWork, pool: database.pool, changeFeed, databaseUpkeep, clock, recheckStores }),
  });
  app.decorate('background', background);
  app.addHook('onReady', () => background.start());
  app.addHook('onClose', () => background.stop());
  // After the engine: jobs still finishing may be talking to the sandbox.
  app.addHook('onClose', () => sandbox.close());
  // One cache of the generic senders' secrets: the intake reads it, the signature routes
  // drop a flow's entry when they change it.
  const flowSignatures = createFlowSignatureCache(database.intakePool, credentialCipher, clock);
  const intake = new Intake({
    pool: database.intakePool,
    clock,
    logger: deps.logger,
    jobs: engine,
    // On the intake's pool like the rest of a webhook's path: on the main pool, each reload
    // (every 5 s) made every webhook in flight wait behind the worker's queued statements.
    loadShopifySecrets: async (userId) => (await loadEngineCredentials(database.intakePool, userId))?.shopifySigningSecrets ?? [],
    credentialCipher,
    flowSignatures,
    observer: { accepted: (source) => metrics.eventAccepted(source), rejected: (source, reason) => metrics.eventRejected(source, reason) },
    batchLimits: database.embedded ? embeddedBatchLimits : serverBatchLimits,
  });
  await app.register(webhookRoutes, { intake, pixelRateLimitPerMinute: deps.pixelRateLimitPerMinute ?? 120 });
  await app.register(shopifyAppWebhookRoutes, { installations: connections.shopify, pool: database.pool, clock, privacyWork });
  await app.register(connectionCallbackRoutes, { connections, auth });
  await app.register(privacyWebhookRoutes, { work: privacyWork, loadShopifySecrets: async (userId) => (await loadEngineCredentials(database.pool, userId))?.shopifySigningSecrets ?? [] });
  // One context for everything behind sign-in, with its check set once: a feature plugin
  // registered here cannot forget it, and nothing outside is caught by a URL prefix.
  await app.register(async function signedInRoutes(scope) {
    requireSignedIn(scope, auth);
    await scope.register(flowRoutes, { prefix: '/api/flows' });
    await scope.register(previewRoutes, { prefix: '/api/flows' });
    await scope.register(costRoutes, { prefix: '/api/flows' });
    await scope.register(flowSignatureRoutes, { prefix: '/api/flows', flowSignatures });
    await scope.register(credentialRoutes, {
      prefix: '/api/credentials',
      oauthConnected: async (userId) => {
        const [shopify, klaviyo] = await Promise.all([connections.shopify.status(userId), connections.klaviyo.status(userId)]);
        return { shopifyDomain: shopify?.state === 'connected' ? shopify.shopDomain : null, klaviyo: klaviyo?.state === 'connected' };
      },
      oauthTokensDecrypt: (userId) => connectionTokensDecrypt(database.pool, credentialCipher, userId),
    });
    await scope.register(connectionRoutes, { connections });
    await scope.register(shopifyConnectRoutes, { prefix: '/api/shopify' });
    await scope.register(eventRoutes, { prefix: '/api/events' });
    await scope.register(replayRoutes, { prefix: '/api/events', intake });
    await scope.register(dashboardRoutes, { prefix: '/api/dashboard' });
    await scope.register(attributionRoutes, { prefix: '/api/revenue' });
    await scope.register(liveStreamRoutes, { prefix: '/api/stream', feed: changeFeed });
    await scope.register(testSendRoutes, { prefix: '/api/test-webhooks', intake });
    // The pixel's address lives with the pixel: public to the storefront, shown to its owner here.
    await scope.register(pixelAddressRoutes, { prefix: '/api/flows' });
    await scope.register(sandboxRoutes, { prefix: '/api/sandbox', intake });
    await scope.register(privacyRoutes, { prefix: '/api/privacy', loadCredentials: loadEngineCredentials });
    await scope.register(retentionRoutes, { prefix: '/api/retention' });
    await scope.register(reviewRoutes, { prefix: '/api/reviews' });
    await scope.register(flowAlertRoutes, { prefix: '/api/flow-alerts' });
    await scope.register(serviceConditionRoutes, { prefix: '/api/service-conditions', conditions: serviceConditions });
    await scope.register(experimentRoutes, { prefix: '/api/flows' });
    await scope.register(accountDeletionRoutes, {
      prefix: '/api/account',
      auth,
      mailer,
      rateLimitPerMinute: deps.accountRateLimitPerMinute ?? 10,
      // The Klaviyo connection is revoked at Klaviyo, not only deleted with the account.
      beforeDeletion: async (userId) => {
        await connections.klaviyo.disconnect(userId, { reason: 'account_deleted' });
      },
    });
  });
  await app.register(webhookStatusRoutes, { prefix: '/api/webhook-status' });
  await registerWebPages(app, deps.webRoot ?? defaultWebRoot);
  return app;
}
