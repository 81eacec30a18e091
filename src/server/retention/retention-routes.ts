import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { rateLimited } from '../platform/user-rate-limit.ts';
import { retentionSettingsSchema } from '../../shared/retention/retention-schemas.ts';
import { findRetentionDays, saveRetentionDays } from './retention-queries.ts';

/** GET and PUT /api/retention, in the signed-in context: the owner's own period. */
export const retentionRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.database;
  app.get('/', { schema: { response: { 200: retentionSettingsSchema } }, preHandler: rateLimited('read') }, async (request) => ({
    retentionDays: await findRetentionDays(pool, request.user.id),
  }));
  app.put(
    '/',
    { schema: { body: retentionSettingsSchema, response: { 200: retentionSettingsSchema } }, preHandler: rateLimited('write') },
    async (request) => {
      await saveRetentionDays(pool, request.user.id, request.body.retentionDays, app.clock.now());
      return { retentionDays: request.body.retentionDays };
    },
  );
};
