import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  fixWebhookUrlsResponseSchema,
  flowListResponseSchema,
  flowParamsSchema,
  initializeFlowsResponseSchema,
  updateFlowResponseSchema,
  updateFlowSchema,
} from '../../shared/flows/flow-schemas.ts';
import { rotateWebhookUrlResponseSchema, rotateWebhookUrlSchema } from '../../shared/flows/webhook-url-rotation.ts';
import { rateLimited } from '../platform/user-rate-limit.ts';
import { listFlowsForUser, type FlowRecord } from './flow-queries.ts';
import { fixWebhookUrls, initializeFlows, rotateWebhookUrl, toApiFlow, updateFlow } from './flow-configurations.ts';

/**
 * The flows API under /api/flows, registered in the signed-in context: every query is
 * scoped to `request.user.id`, and flows are addressed by type within that owner, so no
 * route can reach another owner's flow.
 */
export const flowRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.database;
  const { publicUrl } = app.appConfig;
  const toApi = (flow: FlowRecord) => toApiFlow(flow, publicUrl, app.clock.now());

  app.get('/', { schema: { response: { 200: flowListResponseSchema } }, preHandler: rateLimited('read') }, async (request) => {
    const flows = await listFlowsForUser(pool, request.user.id);
    return { flows: flows.map(toApi) };
  });

  app.post('/initialize', { schema: { response: { 200: initializeFlowsResponseSchema } }, preHandler: rateLimited('write') }, async (request) => {
    const { flows, created } = await initializeFlows(pool, request.user.id);
    return { flows: flows.map(toApi), created };
  });

  app.put(
    '/:flowType',
    {
      schema: { params: flowParamsSchema, body: updateFlowSchema, response: { 200: updateFlowResponseSchema } },
      preHandler: rateLimited('write'),
    },
    async (request) => {
      const result = await updateFlow(pool, publicUrl, request.user.id, request.params.flowType, request.body);
      return { ...result, flow: toApi(result.flow) };
    },
  );

  app.post('/fix-webhook-urls', { schema: { response: { 200: fixWebhookUrlsResponseSchema } }, preHandler: rateLimited('write') }, async (request) => {
    const { updated, flows } = await fixWebhookUrls(pool, publicUrl, request.user.id);
    return { updated, flows: flows.map(toApi) };
  });

  // The replaced URL works until the grace period's end by the app's clock; "at once" stops
  // it now, apart from the intake's per-process flow cache, which holds an entry 1 s at most.
  app.post(
    '/:flowType/webhook-url/rotate',
    {
      schema: { params: flowParamsSchema, body: rotateWebhookUrlSchema, response: { 200: rotateWebhookUrlResponseSchema } },
      preHandler: rateLimited('write'),
    },
    async (request) => {
      const flow = await rotateWebhookUrl(pool, publicUrl, app.clock.now(), request.user.id, request.params.flowType, request.body.graceMinutes);
      request.log.info({ userId: flow.userId, flowType: flow.flowType, graceMinutes: request.body.graceMinutes }, 'flow webhook URL rotated');
      return { flow: toApi(flow) };
    },
  );
};
