import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { shopifyConnectMessages as m } from '../../shared/shopify-connect/shopify-connect-messages.ts';
import { HttpError } from '../platform/http-errors.ts';
import { rateLimited } from '../platform/user-rate-limit.ts';
import { ServiceError } from '../integrations/service-error.ts';
import { listFlowsForUser } from '../flows/flow-queries.ts';
import type { ShopifyConnection } from '../credentials/shopify-token-provider.ts';
import { connectStore, listFlowSubscriptions, missingWebhookScopes } from './store-connection.ts';
import { describeShopifyScopes } from '../../shared/shopify-connect/shopify-scopes.ts';
import { isPublicAddress } from './public-address.ts';
import { shopifyWebhookAddressProblem } from '../../shared/flows/flow-schemas.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import { registerEndpoint } from '../platform/register-endpoint.ts';

/** A store with many subscriptions takes several calls; the browser waits this long at most. */
const SHOPIFY_CONNECT_TIMEOUT_MS = 30_000;

/**
 * Shopify's failure as the owner can act on it. Only a refusal Shopify explained (its
 * userErrors, e.g. an address it will not deliver to) keeps Shopify's words; an answer
 * we could not read or an outage says what happened and what to do instead of how
 * reading it failed.
 */
function ownerMessageOf(error: ServiceError): string {
  // A connection made by OAuth that is gone (uninstalled, renewal refused): its own words say what to do.
  if (error.code === 'unauthorized' && error.kind === 'retryable') return error.message.replace(/^Shopify: /, '');
  switch (error.kind) {
    case 'bad_credentials':
      return error.code === 'forbidden' ? m.shopifyForbidden : m.shopifyRefusedCredentials;
    case 'permanent':
      if (error.code === 'not_found') return m.shopifyStoreNotFound;
      return error.code === 'bad_request' ? m.shopifyFailed(error.message.replace(/^Shopify: /, '')) : m.shopifyUnavailable;
    default:
      return m.shopifyUnavailable;
  }
}

/**
 * Why Shopify cannot deliver to PUBLIC_URL, in the owner's words: an address it cannot
 * reach, or one it will not register (Shopify takes only https:// addresses); null when it can.
 */
function deliveryAddressProblem(publicUrl: string): string | null {
  if (!isPublicAddress(publicUrl)) return m.notPublic;
  return shopifyWebhookAddressProblem(publicUrl);
}

/**
 * /api/shopify, registered in the signed-in context: the owner's own store (their
 * credentials) and their own flows only, so one owner never sees or changes another's
 * subscriptions even when both name the same shop.
 */
export const shopifyConnectRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.database;
  const publicUrl = app.appConfig.publicUrl;

  /** Shopify's failures as the owner should read them; a 401 also drops an obtained token. */
  async function askShopify<T>(userId: string, call: (connection: ShopifyConnection, signal: AbortSignal) => Promise<T>): Promise<T | null> {
    const signal = AbortSignal.timeout(SHOPIFY_CONNECT_TIMEOUT_MS);
    let connection: ShopifyConnection | null = null;
    try {
      connection = await app.shopifyTokens.connectionFor(userId, signal);
      if (!connection) return null;
      return await call(connection, signal);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      if (error.code === 'unauthorized' && connection) await app.shopifyTokens.invalidate(userId, connection.accessToken);
      throw new HttpError(apiErrorCodes.shopify_failed, ownerMessageOf(error));
    }
  }

  await registerEndpoint(app, endpoints.shopify.subscriptions, { preHandler: rateLimited('read') }, async (request) => {
    const flows = await listFlowsForUser(pool, request.user.id);
    const subscriptions = await askShopify(request.user.id, (connection, signal) => listFlowSubscriptions(connection, publicUrl, flows, signal));
    const addressProblem = deliveryAddressProblem(publicUrl);
    return { configured: subscriptions !== null, publicAddress: addressProblem === null, addressProblem, subscriptions: subscriptions ?? [] };
  });

  await registerEndpoint(app, endpoints.shopify.connect, { preHandler: rateLimited('write') }, async (request) => {
    const addressProblem = deliveryAddressProblem(publicUrl);
    if (addressProblem) throw new HttpError(apiErrorCodes.not_public, addressProblem);
    const flows = await listFlowsForUser(pool, request.user.id);
    const result = await askShopify(request.user.id, async (connection, signal) => {
      // Checked first, so the owner reads which scope to add instead of a half-made registration.
      const missing = await missingWebhookScopes(connection, flows, signal);
      if (missing.length > 0) throw new HttpError(apiErrorCodes.shopify_missing_scope, m.shopifyMissingScopes(describeShopifyScopes(missing), missing.length));
      return connectStore(connection, publicUrl, flows, signal);
    });
    if (!result) throw new HttpError(apiErrorCodes.shopify_not_configured, m.noCredentials);
    request.log.info({ created: result.created, updated: result.updated, deleted: result.deleted }, 'store webhooks connected');
    return result;
  });
};
