import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  fixWebhookUrlsResponseSchema,
  flowListResponseSchema,
  flowParamsSchema,
  initializeFlowsResponseSchema,
  updateFlowResponseSchema,
  updateFlowSchema,
} from '../../shared/flows/flow-schemas.ts';
import { rateLimited } from '../platform/user-rate-limit.ts';
import { listFlowsForUser } from './flow-queries.ts';
import { fixWebhookUrls, initializeFlows, toApiFlow, updateFlow } from './flow-configurations.ts';
import { registerFlowSignatureRoutes } from './flow-signature-routes.ts';

/**
 * The flows API under /api/flows, registered inside `app.signedIn`: every query is
 * scoped to `request.user.id`, and flows are addressed by type within that owner, so no
 * route can reach another owner's flow.
 */
export async function flowRoutes(scope: FastifyInstance): Promise<void> {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { pool } = app.database;
  const { publicUrl } = app.appConfig;

  app.get('/', { schema: { response: { 200: flowListResponseSchema } }, preHandler: rateLimited('read') }, async (request) => {
    const flows = await listFlowsForUser(pool, request.user.id);
    return { flows: flows.map((flow) => toApiFlow(flow, publicUrl)) };
  });

  app.post('/initialize', { schema: { response: { 200: initializeFlowsResponseSchema } }, preHandler: rateLimited('write') }, async (request) => {
    const { flows, created } = await initializeFlows(pool, request.user.id);
    return { flows: flows.map((flow) => toApiFlow(flow, publicUrl)), created };
  });

  app.put(
    '/:flowType',
    {
      schema: { params: flowParamsSchema, body: updateFlowSchema, response: { 200: updateFlowResponseSchema } },
      preHandler: rateLimited('write'),
    },
    async (request) => {
      const result = await updateFlow(pool, publicUrl, request.user.id, request.params.flowType, request.body);
      return { ...result, flow: toApiFlow(result.flow, publicUrl) };
    },
  );

  app.post('/fix-webhook-urls', { schema: { response: { 200: fixWebhookUrlsResponseSchema } }, preHandler: rateLimited('write') }, async (request) => {
    const { updated, flows } = await fixWebhookUrls(pool, publicUrl, request.user.id);
    return { updated, flows: flows.map((flow) => toApiFlow(flow, publicUrl)) };
  });

  registerFlowSignatureRoutes(scope);
}
