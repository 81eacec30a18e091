import { endpoint } from './endpoint.ts';

/*
 * The feature schema modules, imported when an endpoint's schemas are first needed
 * (endpoint.ts says why). Each names the module once, so the table below reads as routes.
 */
const accountSchemas = () => import('../auth/auth-schemas.ts');
const accountDeletionSchemas = () => import('../auth/account-deletion-schemas.ts');
const flowSchemas = () => import('../flows/flow-schemas.ts');
const flowCostSchemas = () => import('../flows/flow-cost-schemas.ts');
const flowPreviewSchemas = () => import('../flows/flow-preview-schemas.ts');
const flowSignatureSchemas = () => import('../flows/flow-signature-schemas.ts');
const webhookUrlRotationSchemas = () => import('../flows/webhook-url-rotation.ts');
const credentialSchemas = () => import('../credentials/credential-schemas.ts');
const shopifyConnectSchemas = () => import('../shopify-connect/shopify-connect-schemas.ts');
const connectionSchemas = () => import('../connections/connection-schemas.ts');
const pixelSchemas = () => import('../shopify-pixel/pixel-schemas.ts');
const eventSchemas = () => import('../events/event-schemas.ts');
const webhookSchemas = () => import('../webhooks/webhook-schemas.ts');
const dashboardSchemas = () => import('../dashboard/dashboard-schemas.ts');
const attributionSchemas = () => import('../attribution/attribution-schemas.ts');
const sandboxSchemas = () => import('../sandbox/sandbox-schemas.ts');
const privacySchemas = () => import('../privacy/privacy-schemas.ts');
const retentionSchemas = () => import('../retention/retention-schemas.ts');
const reviewSchemas = () => import('../reviews/review-schemas.ts');
const flowAlertSchemas = () => import('../alerts/flow-alert-schemas.ts');
const serviceConditionSchemas = () => import('../service-conditions/service-condition-schemas.ts');
const experimentSchemas = () => import('../experiments/experiment-schemas.ts');

/**
 * Every endpoint of the API the web app calls, in one table: method, path and schemas
 * written once (docs/decisions/0037-http-contract.md). The browser calls them through
 * `callEndpoint` (src/web/app/api-client.ts), which parses every answer with the
 * endpoint's response schema; test/unit/module-rules-http.test.ts keeps `/api/`
 * addresses out of the rest of src/web.
 */
export const endpoints = {
  account: {
    signUp: endpoint('POST', '/api/account/sign-up', async () => {
      const s = await accountSchemas();
      return { body: s.signUpSchema, response: s.messageResponseSchema };
    }),
    signIn: endpoint('POST', '/api/account/sign-in', async () => {
      const s = await accountSchemas();
      return { body: s.signInSchema, response: s.sessionResponseSchema };
    }),
    signOut: endpoint('POST', '/api/account/sign-out', async () => ({ response: (await accountSchemas()).messageResponseSchema })),
    session: endpoint('GET', '/api/account/session', async () => ({ response: (await accountSchemas()).sessionResponseSchema })),
    verifyEmail: endpoint('POST', '/api/account/verify-email', async () => {
      const s = await accountSchemas();
      return { body: s.verifyEmailSchema, response: s.verifyEmailResponseSchema };
    }),
    resendVerification: endpoint('POST', '/api/account/resend-verification', async () => {
      const s = await accountSchemas();
      return { body: s.resendVerificationSchema, response: s.messageResponseSchema };
    }),
    forgotPassword: endpoint('POST', '/api/account/forgot-password', async () => {
      const s = await accountSchemas();
      return { body: s.forgotPasswordSchema, response: s.messageResponseSchema };
    }),
    resetPassword: endpoint('POST', '/api/account/reset-password', async () => {
      const s = await accountSchemas();
      return { body: s.resetPasswordSchema, response: s.sessionResponseSchema };
    }),
    delete: endpoint('POST', '/api/account/delete', async () => {
      const [deletion, account] = await Promise.all([accountDeletionSchemas(), accountSchemas()]);
      return { body: deletion.deleteAccountSchema, response: account.messageResponseSchema };
    }),
  },
  flows: {
    list: endpoint('GET', '/api/flows', async () => ({ response: (await flowSchemas()).flowListResponseSchema })),
    initialize: endpoint('POST', '/api/flows/initialize', async () => ({ response: (await flowSchemas()).initializeFlowsResponseSchema })),
    fixWebhookUrls: endpoint('POST', '/api/flows/fix-webhook-urls', async () => ({ response: (await flowSchemas()).fixWebhookUrlsResponseSchema })),
    update: endpoint('PUT', '/api/flows/:flowType', async () => {
      const s = await flowSchemas();
      return { params: s.flowParamsSchema, body: s.updateFlowSchema, response: s.updateFlowResponseSchema };
    }),
    rotateWebhookUrl: endpoint('POST', '/api/flows/:flowType/webhook-url/rotate', async () => {
      const [flows, rotation] = await Promise.all([flowSchemas(), webhookUrlRotationSchemas()]);
      return { params: flows.flowParamsSchema, body: rotation.rotateWebhookUrlSchema, response: rotation.rotateWebhookUrlResponseSchema };
    }),
    preview: endpoint('POST', '/api/flows/:flowType/preview', async () => {
      const [flows, preview] = await Promise.all([flowSchemas(), flowPreviewSchemas()]);
      return { params: flows.flowParamsSchema, body: preview.flowPreviewRequestSchema, response: preview.flowPreviewResponseSchema };
    }),
    costs: endpoint('GET', '/api/flows/costs', async () => ({ response: (await flowCostSchemas()).flowCostsResponseSchema })),
    pixelAddress: endpoint('GET', '/api/flows/browser_abandonment/pixel', async () => ({ response: (await pixelSchemas()).pixelAddressResponseSchema })),
  },
  experiments: {
    list: endpoint('GET', '/api/flows/:flowType/experiments', async () => {
      const [flows, experiments] = await Promise.all([flowSchemas(), experimentSchemas()]);
      return { params: flows.flowParamsSchema, response: experiments.experimentsResponseSchema };
    }),
    setUp: endpoint('PUT', '/api/flows/:flowType/experiment', async () => {
      const [flows, experiments] = await Promise.all([flowSchemas(), experimentSchemas()]);
      return { params: flows.flowParamsSchema, body: experiments.experimentSetupSchema, response: experiments.experimentChangeResponseSchema };
    }),
    promote: endpoint('POST', '/api/flows/:flowType/experiment/promote', async () => {
      const [flows, experiments] = await Promise.all([flowSchemas(), experimentSchemas()]);
      return { params: flows.flowParamsSchema, body: experiments.promoteArmSchema, response: experiments.experimentChangeResponseSchema };
    }),
    stop: endpoint('POST', '/api/flows/:flowType/experiment/stop', async () => {
      const [flows, experiments] = await Promise.all([flowSchemas(), experimentSchemas()]);
      return { params: flows.flowParamsSchema, response: experiments.experimentChangeResponseSchema };
    }),
  },
  flowAlerts: {
    list: endpoint('GET', '/api/flow-alerts', async () => ({ response: (await flowAlertSchemas()).flowAlertsResponseSchema })),
  },
  serviceConditions: {
    list: endpoint('GET', '/api/service-conditions', async () => ({ response: (await serviceConditionSchemas()).serviceConditionsResponseSchema })),
  },
  reviews: {
    list: endpoint('GET', '/api/reviews', async () => ({ response: (await reviewSchemas()).reviewListResponseSchema })),
    count: endpoint('GET', '/api/reviews/count', async () => ({ response: (await reviewSchemas()).reviewCountResponseSchema })),
    decide: endpoint('POST', '/api/reviews/decide', async () => {
      const s = await reviewSchemas();
      return { body: s.decideReviewsSchema, response: s.decideReviewsResponseSchema };
    }),
    edit: endpoint('POST', '/api/reviews/:eventId/edit', async () => {
      const s = await reviewSchemas();
      return { params: s.editReviewParamsSchema, body: s.editReviewSchema, response: s.decideReviewsResponseSchema };
    }),
  },
  flowSignature: {
    read: endpoint('GET', '/api/flows/:flowType/signature', async () => {
      const [flows, signature] = await Promise.all([flowSchemas(), flowSignatureSchemas()]);
      return { params: flows.flowParamsSchema, response: signature.flowSignatureResponseSchema };
    }),
    require: endpoint('POST', '/api/flows/:flowType/signature', async () => {
      const [flows, signature] = await Promise.all([flowSchemas(), flowSignatureSchemas()]);
      return { params: flows.flowParamsSchema, response: signature.flowSignatureSecretResponseSchema };
    }),
    rotate: endpoint('POST', '/api/flows/:flowType/signature/rotate', async () => {
      const [flows, signature] = await Promise.all([flowSchemas(), flowSignatureSchemas()]);
      return { params: flows.flowParamsSchema, response: signature.flowSignatureSecretResponseSchema };
    }),
    remove: endpoint('DELETE', '/api/flows/:flowType/signature', async () => {
      const [flows, signature] = await Promise.all([flowSchemas(), flowSignatureSchemas()]);
      return { params: flows.flowParamsSchema, response: signature.flowSignatureResponseSchema };
    }),
  },
  credentials: {
    status: endpoint('GET', '/api/credentials/status', async () => ({ response: (await credentialSchemas()).setupStatusResponseSchema })),
    read: endpoint('GET', '/api/credentials', async () => ({ response: (await credentialSchemas()).credentialsResponseSchema })),
    encryption: endpoint('GET', '/api/credentials/encryption', async () => ({ response: (await credentialSchemas()).encryptionCheckResponseSchema })),
    check: endpoint('POST', '/api/credentials/check', async () => {
      const s = await credentialSchemas();
      return { body: s.credentialsInputSchema, response: s.credentialCheckResponseSchema };
    }),
    save: endpoint('PUT', '/api/credentials', async () => {
      const s = await credentialSchemas();
      return { body: s.credentialsInputSchema, response: s.saveCredentialsResponseSchema };
    }),
    openaiModels: endpoint('POST', '/api/credentials/openai-models', async () => {
      const s = await credentialSchemas();
      return { body: s.openaiModelsRequestSchema, response: s.openaiModelsResponseSchema };
    }),
  },
  connections: {
    status: endpoint('GET', '/api/connections', async () => ({ response: (await connectionSchemas()).connectionsResponseSchema })),
    startShopify: endpoint('POST', '/api/connections/shopify/start', async () => {
      const s = await connectionSchemas();
      return { body: s.startShopifyConnectionSchema, response: s.startConnectionResponseSchema };
    }),
    startKlaviyo: endpoint('POST', '/api/connections/klaviyo/start', async () => {
      const s = await connectionSchemas();
      return { body: s.startKlaviyoConnectionSchema, response: s.startConnectionResponseSchema };
    }),
    disconnectKlaviyo: endpoint('POST', '/api/connections/klaviyo/disconnect', async () => ({ response: (await connectionSchemas()).disconnectResponseSchema })),
  },
  shopify: {
    subscriptions: endpoint('GET', '/api/shopify/subscriptions', async () => ({ response: (await shopifyConnectSchemas()).subscriptionsResponseSchema })),
    connect: endpoint('POST', '/api/shopify/connect', async () => ({ response: (await shopifyConnectSchemas()).connectResponseSchema })),
  },
  events: {
    list: endpoint('GET', '/api/events', async () => {
      const s = await eventSchemas();
      return { query: s.eventListQuerySchema, response: s.eventListResponseSchema };
    }),
    activity: endpoint('GET', '/api/events/activity', async () => ({ response: (await eventSchemas()).activitySummaryResponseSchema })),
    detail: endpoint('GET', '/api/events/:eventId', async () => {
      const s = await eventSchemas();
      return { params: s.eventParamsSchema, response: s.eventDetailResponseSchema };
    }),
    replay: endpoint(
      'POST',
      '/api/events/:eventId/replay',
      async () => {
        const s = await eventSchemas();
        return { params: s.eventParamsSchema, response: s.replayResponseSchema };
      },
      202,
    ),
  },
  /** Server-sent events: read with an EventSource (src/web/app/use-event-stream.ts), not the API client. */
  stream: {
    all: endpoint('GET', '/api/stream', async () => ({ query: (await webhookSchemas()).streamQuerySchema })),
    flow: endpoint('GET', '/api/stream/:flowType', async () => {
      const s = await webhookSchemas();
      return { params: s.consoleParamsSchema, query: s.streamQuerySchema };
    }),
  },
  webhooks: {
    testSend: endpoint(
      'POST',
      '/api/test-webhooks/:flowType',
      async () => {
        const s = await webhookSchemas();
        return { params: s.consoleParamsSchema, body: s.testWebhookBodySchema, response: s.testWebhookResponseSchema };
      },
      202,
    ),
    status: endpoint('GET', '/api/webhook-status/:flowType/:flowId', async () => {
      const s = await webhookSchemas();
      return { params: s.webhookStatusParamsSchema, response: s.webhookStatusResponseSchema };
    }),
  },
  dashboard: {
    read: endpoint('GET', '/api/dashboard', async () => ({ response: (await dashboardSchemas()).dashboardResponseSchema })),
  },
  revenue: {
    read: endpoint('GET', '/api/revenue', async () => {
      const s = await attributionSchemas();
      return { query: s.revenueQuerySchema, response: s.revenueResponseSchema };
    }),
    settings: endpoint('GET', '/api/revenue/settings', async () => ({ response: (await attributionSchemas()).attributionSettingsSchema })),
    saveSettings: endpoint('PUT', '/api/revenue/settings', async () => {
      const s = await attributionSchemas();
      return { body: s.attributionSettingsSchema, response: s.attributionSettingsSchema };
    }),
  },
  sandbox: {
    status: endpoint('GET', '/api/sandbox', async () => ({ response: (await sandboxSchemas()).sandboxStatusSchema })),
    start: endpoint('POST', '/api/sandbox/start', async () => ({ response: (await sandboxSchemas()).sandboxStatusSchema })),
    leave: endpoint('POST', '/api/sandbox/leave', async () => ({ response: (await sandboxSchemas()).sandboxStatusSchema })),
    activity: endpoint('POST', '/api/sandbox/activity', async () => {
      const s = await sandboxSchemas();
      return { body: s.sampleActivityRequestSchema, response: s.sampleActivityResultSchema };
    }),
    profiles: endpoint('GET', '/api/sandbox/profiles', async () => ({ response: (await sandboxSchemas()).sandboxProfilesSchema })),
    openaiKey: endpoint('PUT', '/api/sandbox/openai-key', async () => {
      const s = await sandboxSchemas();
      return { body: s.sandboxOpenaiKeyRequestSchema, response: s.sandboxStatusSchema };
    }),
  },
  privacy: {
    endpoint: endpoint('GET', '/api/privacy/endpoint', async () => ({ response: (await privacySchemas()).privacyEndpointSchema })),
    requests: endpoint('GET', '/api/privacy/requests', async () => ({ response: (await privacySchemas()).privacyRequestListSchema })),
    /** A download: the address a request's `exportLocation` names. */
    requestExport: endpoint('GET', '/api/privacy/requests/:id/export', async () => ({ params: (await privacySchemas()).privacyRequestParamsSchema })),
    shopper: endpoint('GET', '/api/privacy/shoppers', async () => {
      const s = await privacySchemas();
      return { query: s.shopperQuerySchema, response: s.shopperSummarySchema };
    }),
    /** A download: linked to, not called. */
    shopperExport: endpoint('GET', '/api/privacy/shoppers/export', async () => ({ query: (await privacySchemas()).shopperQuerySchema })),
    eraseShopper: endpoint('POST', '/api/privacy/shoppers/erase', async () => {
      const s = await privacySchemas();
      return { body: s.shopperEraseInputSchema, response: s.shopperEraseResultSchema };
    }),
  },
  retention: {
    read: endpoint('GET', '/api/retention', async () => ({ response: (await retentionSchemas()).retentionSettingsSchema })),
    save: endpoint('PUT', '/api/retention', async () => {
      const s = await retentionSchemas();
      return { body: s.retentionSettingsSchema, response: s.retentionSettingsSchema };
    }),
  },
} as const;
