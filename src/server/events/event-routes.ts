import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { HttpError } from '../platform/http-errors.ts';
import { rateLimited } from '../platform/user-rate-limit.ts';
import { listGenerations } from '../generations/generation-queries.ts';
import { listDeliveries } from '../deliveries/delivery-queries.ts';
import { findEventGroups } from '../experiments/experiment-queries.ts';
import { findEventForUser } from './event-queries.ts';
import { activitySince, eventRecordToListItem, listEventsForUser } from './event-log-queries.ts';
import { eventLogMessages } from '../../shared/events/event-messages.ts';
import { flowTypes } from '../../shared/flows/flow-types.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import { registerEndpoint } from '../platform/register-endpoint.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The event log under /api/events, registered in the signed-in context: every query is
 * filtered by `request.user.id`, so an owner reaches only events of their own flows. A
 * replay goes in through the intake, like every new event (intake/replay-routes.ts).
 */
export const eventRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.database;

  await registerEndpoint(app, endpoints.events.list, { preHandler: rateLimited('read') }, async (request) => listEventsForUser(pool, request.user.id, request.query));

  await registerEndpoint(app, endpoints.events.activity, { preHandler: rateLimited('read') }, async (request) => {
    const since = new Date(app.clock.now().getTime() - DAY_MS);
    const activity = await activitySince(pool, request.user.id, since);
    const byType = new Map(activity.map((flow) => [flow.flowType, flow]));
    return {
      since: since.toISOString(),
      flows: flowTypes.map((flowType) => byType.get(flowType) ?? { flowType, events: 0, deliveries: 0, failed: 0, rejected: 0, tokens: 0 }),
    };
  });

  await registerEndpoint(app, endpoints.events.detail, { preHandler: rateLimited('read') }, async (request) => {
    const event = await findEventForUser(pool, request.user.id, request.params.eventId);
    if (!event) throw new HttpError(apiErrorCodes.not_found, eventLogMessages.eventNotFound);
    const [generations, deliveries, groups] = await Promise.all([listGenerations(pool, event.id, event.attempt), listDeliveries(pool, event.id), findEventGroups(pool, [event.id])]);
    return {
      event: {
        ...eventRecordToListItem(event),
        contentType: event.contentType,
        rawBody: event.rawBody,
        headers: event.headers,
        normalized: event.normalized,
        finishedAt: event.finishedAt?.toISOString() ?? null,
        generations: generations.map(({ eventId: _eventId, attempt: _attempt, reuseKey: _reuseKey, openaiCallId: _callId, ...generation }) => generation),
        deliveries: deliveries.map((delivery) => ({
          id: delivery.id,
          attempt: delivery.attempt,
          status: delivery.status,
          properties: delivery.properties,
          profileId: delivery.profileId,
          profileCreated: delivery.profileCreated,
          profileWrittenAt: delivery.profileWrittenAt?.toISOString() ?? null,
          klaviyoEventName: delivery.klaviyoEventName,
          eventSentAt: delivery.eventSentAt?.toISOString() ?? null,
          error: delivery.error,
          holdout: delivery.holdout,
        })),
        experimentGroup: groups.get(event.id) ?? null,
      },
    };
  });
};
