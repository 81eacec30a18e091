import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { endpoints } from '../../shared/api/endpoints.ts';
import { registerEndpoint } from '../platform/register-endpoint.ts';
import { rateLimited } from '../platform/user-rate-limit.ts';
import { listStandingFlowAlerts } from './flow-alert-queries.ts';

/** The signed-in owner's flows that stopped writing texts today (docs/decisions/0041-flow-alerts.md). */
export const flowAlertRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.database;
  await registerEndpoint(app, endpoints.flowAlerts.list, { preHandler: rateLimited('read') }, async (request) => {
    const alerts = await listStandingFlowAlerts(pool, request.user.id, app.clock.now());
    return {
      alerts: alerts.map((alert) => ({
        flowType: alert.flowType,
        reason: alert.reason,
        shoppers: alert.events,
        detail: alert.detail,
        since: alert.firstAt.toISOString(),
        lastAt: alert.lastAt.toISOString(),
      })),
    };
  });
};
