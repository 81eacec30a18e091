import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { rateLimited } from '../platform/user-rate-limit.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import { registerEndpoint } from '../platform/register-endpoint.ts';
import { findRetentionDays, saveRetentionDays } from './retention-queries.ts';

/** GET and PUT /api/retention, in the signed-in context: the owner's own period. */
export const retentionRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.database;
  await registerEndpoint(app, endpoints.retention.read, { preHandler: rateLimited('read') }, async (request) => ({
    retentionDays: await findRetentionDays(pool, request.user.id),
  }));
  await registerEndpoint(app, endpoints.retention.save, { preHandler: rateLimited('write') }, async (request) => {
    await saveRetentionDays(pool, request.user.id, request.body.retentionDays, app.clock.now());
    return { retentionDays: request.body.retentionDays };
  });
};
