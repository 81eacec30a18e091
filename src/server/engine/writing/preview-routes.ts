import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { placeholderProblemsOf } from '../../../shared/flows/flow-schemas.ts';
import { endpoints } from '../../../shared/api/endpoints.ts';
import { apiErrorCodes } from '../../../shared/api/error-codes.ts';
import { flowMessages } from '../../../shared/flows/flow-messages.ts';
import { flowPreviewMessages } from '../../../shared/flows/flow-preview-messages.ts';
import { flowTypeDetails } from '../../../shared/flows/flow-types.ts';
import { sampleTestEvent } from '../../../shared/webhooks/sample-events.ts';
import type { NormalizedEvent } from '../../../shared/events/event-schemas.ts';
import { registerEndpoint } from '../../platform/register-endpoint.ts';
import { rateLimited } from '../../platform/user-rate-limit.ts';
import { HttpError } from '../../platform/http-errors.ts';
import { parseJsonText } from '../../platform/json-text.ts';
import { ServiceError } from '../../integrations/service-error.ts';
import { findFlowForUser, type FlowRecord } from '../../flows/flow-queries.ts';
import { findEventForUser } from '../../events/event-queries.ts';
import { normalizeEvent } from '../spine/event-normalizer.ts';
import { RateLimitWait } from '../spine/rate-limit-wait.ts';

/** A preview writes up to twice per model; more than this and the owner is told it failed. */
const PREVIEW_TIMEOUT_MS = 90_000;

/**
 * The flow page's Preview (`endpoints.flows.preview`), signed in and scoped to
 * `request.user.id`. It lives with the engine's writing, which it runs, so the flows'
 * own routes need nothing from the engine.
 */
export const previewRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.database;

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

};
