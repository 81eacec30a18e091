import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  type Credentials,
} from '../../shared/credentials/credential-schemas.ts';
import { credentialCheckMessages, credentialMessages } from '../../shared/credentials/credential-messages.ts';
import { HttpError } from '../platform/http-errors.ts';
import { rateLimited } from '../platform/user-rate-limit.ts';
import { ServiceError } from '../integrations/service-error.ts';
import { listOpenAiModels } from '../integrations/openai/openai-models.ts';
import { offeredModels } from '../integrations/openai/openai-prices.ts';
import { checkCredentials, CREDENTIAL_CHECK_TIMEOUT_MS, KlaviyoKeyCache, type CredentialCheckReport, type CredentialCheckServices, type OAuthConnected } from './credential-checks.ts';
import { hasStoredCredentials } from './credential-queries.ts';
import { checkEncryption, readMaskedCredentials, resolveUnchangedSecrets, saveCredentials, toMaskedCredentials } from './credential-store.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import { registerEndpoint } from '../platform/register-endpoint.ts';

/**
 * The credentials API under /api/credentials, registered in the signed-in context: every
 * query is keyed by `request.user.id`, so no route reaches another owner's record.
 * Secrets come in, are checked live and stored encrypted; they only go out masked.
 */
export const credentialRoutes: FastifyPluginAsyncZod<{
  oauthConnected?: (userId: string) => Promise<OAuthConnected>;
  /** Whether the owner's OAuth tokens decrypt with the current key (the self-check covers them too). */
  oauthTokensDecrypt?: (userId: string) => Promise<boolean>;
}> = async (app, options) => {
  const { pool } = app.database;
  const cipher = app.credentialCipher;
  const services: CredentialCheckServices = {
    openaiBaseUrl: app.appConfig.openaiBaseUrl,
    klaviyoBaseUrl: app.appConfig.klaviyoBaseUrl,
    shopifyBaseUrl: app.appConfig.shopifyBaseUrl,
    clock: app.clock,
    klaviyoKeyCache: new KlaviyoKeyCache(app.clock),
  };

  /** The submitted values with masked ones resolved, and the live check of all three services. */
  async function resolveAndCheck(userId: string, submitted: Credentials, log: FastifyInstance['log']) {
    const resolved = await resolveUnchangedSecrets(pool, cipher, userId, submitted);
    if (Object.keys(resolved.fieldErrors).length > 0) {
      throw new HttpError(apiErrorCodes.validation, Object.values(resolved.fieldErrors)[0]!, { fieldErrors: resolved.fieldErrors as Record<string, string> });
    }
    const connected = options.oauthConnected ? await options.oauthConnected(userId) : { shopifyDomain: null, klaviyo: false };
    const report = await checkCredentials(resolved.credentials, services, connected);
    if (report.problems.length > 0) log.info({ problems: report.problems }, 'credential check found problems');
    return { credentials: resolved.credentials, report };
  }

  function refuse(report: CredentialCheckReport): never {
    const fieldErrors = report.fieldErrors as Record<string, string>;
    if (report.invalid) throw new HttpError(apiErrorCodes.invalid_credentials, credentialMessages.invalidKeys, { fieldErrors });
    throw new HttpError(apiErrorCodes.service_unreachable, credentialMessages.servicesUnreachable, { fieldErrors });
  }

  await registerEndpoint(app, endpoints.credentials.status, { preHandler: rateLimited('read') }, async (request) => ({
    setupComplete: await hasStoredCredentials(pool, request.user.id),
  }));

  await registerEndpoint(app, endpoints.credentials.read, { preHandler: rateLimited('read') }, async (request) => ({
    credentials: await readMaskedCredentials(pool, cipher, request.user.id),
  }));

  await registerEndpoint(app, endpoints.credentials.encryption, { preHandler: rateLimited('read') }, async (request) =>
    checkEncryption(pool, cipher, request.user.id, options.oauthTokensDecrypt));

  await registerEndpoint(app, endpoints.credentials.check, { preHandler: rateLimited('check') }, async (request) => {
    const { report } = await resolveAndCheck(request.user.id, request.body, request.log);
    return { valid: !report.invalid && !report.unreachable, unreachable: report.unreachable, fieldErrors: report.fieldErrors as Record<string, string> };
  });

  // A save checks the keys with each service first, so it counts as a check too.
  await registerEndpoint(app, endpoints.credentials.save, { preHandler: [rateLimited('write'), rateLimited('check')] }, async (request) => {
    const { credentials, report } = await resolveAndCheck(request.user.id, request.body, request.log);
    if (report.invalid || report.unreachable) refuse(report);
    const { row, created } = await saveCredentials(pool, cipher, request.user.id, {
      credentials,
      now: app.clock.now(),
      obtainedShopifyToken: report.obtainedShopifyToken,
    });
    request.log.info({ firstSave: created }, 'credentials saved');
    return { credentials: toMaskedCredentials(cipher, row), firstSave: created };
  });

  // The models a key being typed may use, to offer in the form. A check, so it counts as one.
  await registerEndpoint(app, endpoints.credentials.openaiModels, { preHandler: rateLimited('check') }, async (request) => {
    const { credentials } = await resolveUnchangedSecrets(pool, cipher, request.user.id, {
      ...emptyCredentials,
      openaiApiKey: request.body.openaiApiKey,
    });
    try {
      const models = await listOpenAiModels(services.openaiBaseUrl, credentials.openaiApiKey, AbortSignal.timeout(CREDENTIAL_CHECK_TIMEOUT_MS));
      return { models: offeredModels(models, services.clock.now()) };
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      if (error.reachable) {
        throw new HttpError(apiErrorCodes.invalid_credentials, credentialCheckMessages.openaiKeyInvalid, { fieldErrors: { openaiApiKey: credentialCheckMessages.openaiKeyInvalid } });
      }
      throw new HttpError(apiErrorCodes.service_unreachable, credentialCheckMessages.openaiUnreachable, { fieldErrors: { openaiApiKey: credentialCheckMessages.openaiUnreachable } });
    }
  });
};

/** Only the OpenAI key matters when resolving it alone. */
const emptyCredentials: Credentials = {
  klaviyoAuthMethod: 'api_key',
  klaviyoApiKey: '',
  openaiApiKey: '',
  openaiModel: '',
  shopifyDomain: '',
  shopifyAuthMethod: 'access_token',
  shopifyAccessToken: '',
  shopifyClientId: '',
  shopifyClientSecret: '',
  shopifySigningSecret: '',
};
