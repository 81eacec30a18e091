import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { rateLimited } from '../platform/user-rate-limit.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import { registerEndpoint } from '../platform/register-endpoint.ts';
import { findRetentionDays, saveRetentionDays } from './retention-queries.ts';
import { createRetentionJob, type RetentionJob, type RetentionOptions } from './retention.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Deletes events past their owners' retention (started with the app in the worker roles). */
    retention: RetentionJob;
  }
}

/** Starts and stops the retention job with the app; app.retention.runOnce() runs a pass now. */
export function startRetention(app: FastifyInstance, logger: Logger, options?: Partial<RetentionOptions>): void {
  const job = createRetentionJob({ pool: app.database.pool, clock: app.clock, logger, role: app.appConfig.role, options });
  app.decorate('retention', job);
  app.addHook('onReady', async () => job.start());
  app.addHook('onClose', () => job.stop());
}

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
