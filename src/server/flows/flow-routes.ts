import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { placeholderProblemsOf } from '../../shared/flows/flow-schemas.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import { registerEndpoint } from '../platform/register-endpoint.ts';
import { rateLimited } from '../platform/user-rate-limit.ts';
import { HttpError, unlessRefused } from '../platform/http-errors.ts';
import { findFlowForUser, listFlowsForUser, type FlowRecord } from './flow-queries.ts';
import { listOwnerSpend, spendDay } from '../engine/limits/flow-spend-queries.ts';
import { fixWebhookUrls, initializeFlows, rotateWebhookUrl, toApiFlow, updateFlow } from './flow-configurations.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';
import { findEventForUser } from '../events/event-queries.ts';
import { normalizeEvent } from '../engine/spine/event-normalizer.ts';
import { sampleTestEvent } from '../../shared/webhooks/sample-events.ts';
import { flowTypeDetails } from '../../shared/flows/flow-types.ts';
import { flowMessages } from '../../shared/flows/flow-messages.ts';
import { flowPreviewMessages } from '../../shared/flows/flow-preview-schemas.ts';
import type { NormalizedEvent } from '../../shared/events/event-schemas.ts';
import { ServiceError } from '../integrations/service-error.ts';
import { RateLimitWait } from '../engine/spine/rate-limit-wait.ts';
import { parseJsonText } from '../platform/json-text.ts';
import { listRecentPrompts } from '../engine/writing/generation-queries.ts';
import { contextCharactersOf, contextCostOf } from '../engine/writing/context-cost.ts';

/** A preview writes up to twice per model; more than this and the owner is told it failed. */
const PREVIEW_TIMEOUT_MS = 90_000;

/**
 * The flows API under /api/flows, registered in the signed-in context: every query is
 * scoped to `request.user.id`, and flows are addressed by type within that owner, so no
 * route can reach another owner's flow.
 */
export const flowRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.database;
  const { publicUrl } = app.appConfig;
  const toApi = (flow: FlowRecord) => toApiFlow(flow, publicUrl, app.clock.now());

  // What each flow spent on OpenAI: today (UTC) and the last 7 days, for the dashboard.
  await registerEndpoint(app, endpoints.flows.costs, { preHandler: rateLimited('read') }, async (request) => {
    const now = app.clock.now();
    const today = spendDay(now);
    const fromDay = spendDay(new Date(now.getTime() - 6 * 86_400_000));
    const rows = await listOwnerSpend(pool, request.user.id, fromDay);
    const flows = await listFlowsForUser(pool, request.user.id);
    const prompts = await listRecentPrompts(pool, request.user.id, new Date(now.getTime() - 7 * 86_400_000));
    const zero = { costUsd: 0, calls: 0, estimatedCalls: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
    const add = (sum: typeof zero, row: typeof zero) => ({
      costUsd: sum.costUsd + row.costUsd,
      calls: sum.calls + row.calls,
      estimatedCalls: sum.estimatedCalls + row.estimatedCalls,
      inputTokens: sum.inputTokens + row.inputTokens,
      cachedInputTokens: sum.cachedInputTokens + row.cachedInputTokens,
      outputTokens: sum.outputTokens + row.outputTokens,
    });
    return {
      flows: flows.map((flow) => {
        const own = rows.filter((row) => row.flowId === flow.id);
        const pick = ({ costUsd, calls, estimatedCalls, inputTokens, cachedInputTokens, outputTokens }: typeof zero) => ({ costUsd, calls, estimatedCalls, inputTokens, cachedInputTokens, outputTokens });
        return {
          flowType: flow.flowType,
          today: own.filter((row) => row.day === today).map(pick).reduce(add, zero),
          last7Days: own.map(pick).reduce(add, zero),
          days: own.map((row) => ({ day: row.day, costUsd: row.costUsd })),
          context: contextCostOf(prompts.filter((prompt) => prompt.flowId === flow.id && contextCharactersOf(prompt.prompt) > 0)),
        };
      }),
    };
  });

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
    const result = unlessRefused(await updateFlow(pool, publicUrl, request.user.id, request.params.flowType, request.body));
    return { ...result, flow: toApi(result.flow) };
  });

  // Preview: the form's assistants and rules write for one event and are checked, as the
  // pipeline would; nothing is stored with an event and nothing is delivered. It calls
  // OpenAI with the owner's key, so it counts among the key checks' (smaller) limit.
  await registerEndpoint(app, endpoints.flows.preview, { preHandler: rateLimited('check') }, async (request) => {
    const { flowType } = request.params;
    const problems = placeholderProblemsOf(flowType, request.body.assistants);
    if (problems.length > 0) {
      const fieldErrors = Object.fromEntries(problems.map((problem) => [`assistants.${problem.index}.${problem.field}`, problem.message]));
      throw new HttpError(apiErrorCodes.validation, problems[0]!.message, { fieldErrors });
    }
    const flow = await findFlowForUser(pool, request.user.id, flowType);
    if (!flow) throw new HttpError(apiErrorCodes.flow_not_found, flowMessages.flowNotFound);
    const subject = await previewSubject(request.user.id, flow, request.body.eventId);
    const draft = { ...flow, assistants: request.body.assistants, textRules: request.body.textRules, recommendations: request.body.recommendations ?? flow.recommendations };
    let written;
    try {
      written = await app.engine.preview(request.user.id, draft, subject.normalized, AbortSignal.timeout(PREVIEW_TIMEOUT_MS));
    } catch (error) {
      if (error instanceof ServiceError || error instanceof RateLimitWait) throw new HttpError(apiErrorCodes.service_unreachable, flowPreviewMessages.failed(error.message));
      throw error;
    }
    if (!written) throw new HttpError(apiErrorCodes.credentials_missing, flowPreviewMessages.noCredentials);
    return { event: { id: subject.id, label: subject.label }, texts: written.texts, recommendations: written.recommendations };
  });

  async function previewSubject(userId: string, flow: FlowRecord, eventId: string | null): Promise<{ id: string | null; label: string; normalized: NormalizedEvent }> {
    const now = app.clock.now();
    if (eventId === null) {
      const sample = normalizeEvent('test', null, sampleTestEvent(flow.flowType, now), now);
      if (!sample.ok) throw new Error(`the sample event of ${flow.flowType} does not normalise: ${sample.reason}`);
      return { id: null, label: flowPreviewMessages.sample(flowTypeDetails[flow.flowType].title), normalized: sample.event };
    }
    const event = await findEventForUser(pool, userId, eventId);
    // Another flow's event is as unknown here as another owner's.
    if (!event || event.flowId !== flow.id) throw new HttpError(apiErrorCodes.not_found, flowPreviewMessages.eventNotFound);
    let normalized = event.normalized;
    if (!normalized) {
      let payload: unknown = null;
      try {
        payload = parseJsonText(event.rawBody ?? '');
      } catch {
        throw new HttpError(apiErrorCodes.validation, flowPreviewMessages.eventUnreadable);
      }
      const result = normalizeEvent(event.source, event.topic, payload, event.receivedAt);
      if (!result.ok) throw new HttpError(apiErrorCodes.validation, flowPreviewMessages.eventUnreadable);
      normalized = result.event;
    }
    return { id: event.id, label: flowPreviewMessages.pastEvent(event.shopperEmail, event.receivedAt.toISOString()), normalized };
  }

  await registerEndpoint(app, endpoints.flows.fixWebhookUrls, { preHandler: rateLimited('write') }, async (request) => {
    const { updated, flows } = await fixWebhookUrls(pool, publicUrl, request.user.id);
    return { updated, flows: flows.map(toApi) };
  });

  // The replaced URL works until the grace period's end by the app's clock; "at once" stops
  // it now, apart from the intake's per-process flow cache, which holds an entry 1 s at most.
  await registerEndpoint(app, endpoints.flows.rotateWebhookUrl, { preHandler: rateLimited('write') }, async (request) => {
    const flow = unlessRefused(await rotateWebhookUrl(pool, publicUrl, app.clock.now(), request.user.id, request.params.flowType, request.body.graceMinutes));
    request.log.info({ userId: flow.userId, flowType: flow.flowType, graceMinutes: request.body.graceMinutes }, 'flow webhook URL rotated');
    return { flow: toApi(flow) };
  });
};
