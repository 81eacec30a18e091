import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { placeholderProblemsOf } from '../../shared/flows/flow-schemas.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import { registerEndpoint } from '../platform/register-endpoint.ts';
import { rateLimited } from '../platform/user-rate-limit.ts';
import { HttpError, unlessRefused } from '../platform/http-errors.ts';
import { listFlowsForUser, type FlowRecord } from './flow-queries.ts';
import { fixWebhookUrls, initializeFlows, rotateWebhookUrl, toApiFlow, updateFlow } from './flow-configurations.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';

/**
 * The flows API under /api/flows, registered in the signed-in context: every query is
 * scoped to `request.user.id`, and flows are addressed by type within that owner, so no
 * route can reach another owner's flow.
 */
export const flowRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.database;
  const { publicUrl } = app.appConfig;
  const toApi = (flow: FlowRecord) => toApiFlow(flow, publicUrl, app.clock.now());

  await registerEndpoint(app, endpoints.flows.list, { preHandler: rateLimited('read') }, async (request) => {
    const flows = await listFlowsForUser(pool, request.user.id);
    return { flows: flows.map(toApi) };
  });

  await registerEndpoint(app, endpoints.flows.initialize, { preHandler: rateLimited('write') }, async (request) => {
    const { flows, created } = await initializeFlows(pool, request.user.id);
    return { flows: flows.map(toApi), created };
  });

  await registerEndpoint(app, endpoints.flows.update, { preHandler: rateLimited('write') }, async (request) => {
    // The body's schema cannot know the flow (it is in the address): a placeholder this
    // flow never fills is refused here, with the form's message under the template.
    const problems = placeholderProblemsOf(request.params.flowType, request.body.assistants);
    if (problems.length > 0) {
      const fieldErrors = Object.fromEntries(problems.map((problem) => [`assistants.${problem.index}.${problem.field}`, problem.message]));
      throw new HttpError(apiErrorCodes.validation, problems[0]!.message, { fieldErrors });
    }
    const result = unlessRefused(await updateFlow(pool, publicUrl, { userId: request.user.id, flowType: request.params.flowType }, request.body));
    return { ...result, flow: toApi(result.flow) };
  });

  await registerEndpoint(app, endpoints.flows.fixWebhookUrls, { preHandler: rateLimited('write') }, async (request) => {
    const { updated, flows } = await fixWebhookUrls(pool, publicUrl, request.user.id);
    return { updated, flows: flows.map(toApi) };
  });

  // The replaced URL works until the grace period's end by the app's clock; "at once" stops
  // it now, apart from the intake's per-process flow cache, which holds an entry 1 s at most.
  await registerEndpoint(app, endpoints.flows.rotateWebhookUrl, { preHandler: rateLimited('write') }, async (request) => {
    const flow = unlessRefused(await rotateWebhookUrl(pool, publicUrl, { userId: request.user.id, flowType: request.params.flowType }, { graceMinutes: request.body.graceMinutes, now: app.clock.now() }));
    request.log.info({ userId: flow.userId, flowType: flow.flowType, graceMinutes: request.body.graceMinutes }, 'flow webhook URL rotated');
    return { flow: toApi(flow) };
  });
};
