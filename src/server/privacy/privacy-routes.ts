import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { rateLimited } from '../platform/user-rate-limit.ts';
import { HttpError } from '../platform/http-errors.ts';
import type { CredentialsLoader } from '../engine/spine/engine-credentials.ts';
import { privacyMessages } from '../../shared/privacy/privacy-messages.ts';
import { ensurePrivacyEndpointKey, findPrivacyExport, listPrivacyRequests } from './privacy-queries.ts';
import { exportShopper } from './shopper-data-registry.ts';
import { eraseShopperForOwner, summariseShopper } from './shopper-lookup.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import { registerEndpoint } from '../platform/register-endpoint.ts';

export interface PrivacyRouteOptions {
  loadCredentials: CredentialsLoader;
}

/** A JSON download; the file name carries no address, only what and when. */
function asDownload(name: string, content: unknown) {
  return { headers: { 'content-disposition': `attachment; filename="${name}"`, 'cache-control': 'no-store' }, body: JSON.stringify(content, null, 2) };
}

/**
 * /api/privacy, in the signed-in context: the compliance webhook address, the audit list,
 * data-request exports, and Find a shopper (look up, export, erase). Every query is by
 * the signed-in owner's id, so one owner never reaches another's shoppers.
 */
export const privacyRoutes: FastifyPluginAsyncZod<PrivacyRouteOptions> = async (app, options) => {
  const { pool } = app.database;

  await registerEndpoint(app, endpoints.privacy.endpoint, { preHandler: rateLimited('read') }, async (request) => {
    const key = await ensurePrivacyEndpointKey(pool, request.user.id);
    return { url: `${app.appConfig.publicUrl.replace(/\/$/, '')}/api/privacy-webhooks/${key}` };
  });

  await registerEndpoint(app, endpoints.privacy.requests, { preHandler: rateLimited('read') }, async (request) => ({
    requests: await listPrivacyRequests(pool, request.user.id),
  }));

  await registerEndpoint(app, endpoints.privacy.requestExport, { preHandler: rateLimited('read') }, async (request, reply) => {
    const found = await findPrivacyExport(pool, request.user.id, request.params.id);
    if (!found) throw new HttpError(apiErrorCodes.not_found, privacyMessages.exportNotFound);
    const download = asDownload(`flowsmith-data-request-${request.params.id}.json`, found.content);
    return reply.headers(download.headers).type('application/json').send(download.body);
  });

  await registerEndpoint(app, endpoints.privacy.shopper, { preHandler: rateLimited('read') }, async (request) =>
    summariseShopper(pool, request.user.id, request.query.email));

  await registerEndpoint(app, endpoints.privacy.shopperExport, { preHandler: rateLimited('read') }, async (request, reply) => {
    const now = app.clock.now();
    const content = { shopper: request.query.email, exportedAt: now.toISOString(), ...(await exportShopper(pool, request.user.id, request.query.email)) };
    const download = asDownload(`flowsmith-shopper-${now.toISOString().slice(0, 10)}.json`, content);
    return reply.headers(download.headers).type('application/json').send(download.body);
  });

  await registerEndpoint(app, endpoints.privacy.eraseShopper, { preHandler: rateLimited('write') }, async (request) =>
    eraseShopperForOwner(
      { pool, clock: app.clock, loadCredentials: options.loadCredentials, klaviyoBaseUrl: app.appConfig.klaviyoBaseUrl },
      request.user.id,
      request.body.email,
      request.body.unsetKlaviyo,
    ));
};
