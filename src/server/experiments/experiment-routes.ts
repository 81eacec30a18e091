import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { endpoints } from '../../shared/api/endpoints.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';
import { flowMessages } from '../../shared/flows/flow-messages.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import { experimentMessages as m } from '../../shared/experiments/experiment-messages.ts';
import { MAX_PAST_EXPERIMENTS } from '../../shared/experiments/experiment-settings.ts';
import type { ExperimentsResponse } from '../../shared/experiments/experiment-schemas.ts';
import { HttpError, unlessRefused } from '../platform/http-errors.ts';
import { registerEndpoint } from '../platform/register-endpoint.ts';
import { rateLimited } from '../platform/user-rate-limit.ts';
import { findFlowForUser, type FlowRecord } from '../flows/flow-queries.ts';
import { findAttributionWindowDays } from '../attribution/attribution-queries.ts';
import { listExperiments } from './experiment-queries.ts';
import { experimentForApi } from './experiment-results.ts';
import { promoteArm, setUpExperiment, stopExperiment } from './experiment-changes.ts';

/**
 * A flow's experiments under /api/flows/:flowType (docs/decisions/0043-experiments.md),
 * registered in the signed-in context: every flow is looked up by `request.user.id`, so
 * another owner's flow is as unknown as a flow that does not exist.
 */
export const experimentRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.database;

  async function ownFlow(userId: string, flowType: FlowType): Promise<FlowRecord> {
    const flow = await findFlowForUser(pool, userId, flowType);
    if (!flow) throw new HttpError(apiErrorCodes.flow_not_found, flowMessages.flowNotFound);
    return flow;
  }

  async function experimentsOf(flow: FlowRecord): Promise<ExperimentsResponse> {
    const [experiments, windowDays] = await Promise.all([listExperiments(pool, flow.id, MAX_PAST_EXPERIMENTS + 1), findAttributionWindowDays(pool, flow.userId)]);
    const shown = await Promise.all(experiments.map((experiment) => experimentForApi(pool, experiment, windowDays, app.clock.now())));
    const current = shown[0]?.status === 'running' ? shown[0] : null;
    return { current, past: shown.filter((experiment) => experiment.status === 'ended').slice(0, MAX_PAST_EXPERIMENTS) };
  }

  await registerEndpoint(app, endpoints.experiments.list, { preHandler: rateLimited('read') }, async (request) => experimentsOf(await ownFlow(request.user.id, request.params.flowType)));

  await registerEndpoint(app, endpoints.experiments.setUp, { preHandler: rateLimited('write') }, async (request) => {
    const flow = await ownFlow(request.user.id, request.params.flowType);
    const outcome = unlessRefused(await setUpExperiment(pool, flow, request.body, app.clock.now()));
    return { ...(await experimentsOf(flow)), message: m[outcome] };
  });

  await registerEndpoint(app, endpoints.experiments.promote, { preHandler: rateLimited('write') }, async (request) => {
    const flow = await ownFlow(request.user.id, request.params.flowType);
    unlessRefused(await promoteArm(pool, flow, request.body.arm, app.clock.now()));
    return { ...(await experimentsOf(flow)), message: m.promoted(request.body.arm) };
  });

  await registerEndpoint(app, endpoints.experiments.stop, { preHandler: rateLimited('write') }, async (request) => {
    const flow = await ownFlow(request.user.id, request.params.flowType);
    unlessRefused(await stopExperiment(pool, flow, app.clock.now()));
    return { ...(await experimentsOf(flow)), message: m.stopped };
  });
};
