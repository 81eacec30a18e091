import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { HttpError } from '../platform/http-errors.ts';
import { rateLimited } from '../platform/user-rate-limit.ts';
import { findFlowForUser } from '../flows/flow-queries.ts';
import { pixelUrlOf } from '../../shared/shopify-pixel/pixel-schemas.ts';
import { requestMessages } from '../../shared/messages.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import { registerEndpoint } from '../platform/register-endpoint.ts';

/**
 * `GET /api/flows/browser_abandonment/pixel`, in the signed-in context: the address the
 * owner's pixel snippet sends to. Its own route rather than a field of the flow, because
 * only the browsing flow has a pixel, and the pixel's address is public while the flow's
 * webhook URL is a secret (docs/decisions/0013-who-may-send-what.md).
 */
export const pixelAddressRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.database;

  await registerEndpoint(app, endpoints.flows.pixelAddress, { preHandler: rateLimited('read') }, async (request) => {
    const flow = await findFlowForUser(pool, request.user.id, 'browser_abandonment');
    if (!flow) throw new HttpError(apiErrorCodes.not_found, requestMessages.notFound);
    return { pixelUrl: pixelUrlOf(app.appConfig.publicUrl, flow.pixelKey) };
  });
};
