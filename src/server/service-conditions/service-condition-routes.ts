import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { endpoints } from '../../shared/api/endpoints.ts';
import { registerEndpoint } from '../platform/register-endpoint.ts';
import { rateLimited } from '../platform/user-rate-limit.ts';
import type { ServiceConditions } from './service-conditions.ts';

/** The signed-in owner's service conditions that stand now (docs/decisions/0047-service-conditions.md). */
export const serviceConditionRoutes: FastifyPluginAsyncZod<{ conditions: ServiceConditions }> = async (app, options) => {
  await registerEndpoint(app, endpoints.serviceConditions.list, { preHandler: rateLimited('read') }, async (request) => {
    const conditions = await options.conditions.list(request.user.id);
    return {
      conditions: conditions.map((condition) => ({
        kind: condition.kind,
        subject: condition.subject,
        detail: condition.detail,
        since: condition.firstAt.toISOString(),
        lastAt: condition.lastAt.toISOString(),
      })),
    };
  });
};
