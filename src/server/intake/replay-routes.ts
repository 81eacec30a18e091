import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { endpoints } from '../../shared/api/endpoints.ts';
import { unlessRefused } from '../platform/http-errors.ts';
import { rateLimited } from '../platform/user-rate-limit.ts';
import { registerEndpoint } from '../platform/register-endpoint.ts';
import { eventRecordToListItem } from '../events/event-log-queries.ts';
import type { Intake } from './intake.ts';

export interface ReplayRoutesOptions {
  /** Takes a replay in, like every new event: a new attempt and its job in one transaction. */
  intake: Intake;
}

/**
 * The event log's replay (`endpoints.events.replay`), signed in: the intake finds the event
 * among `request.user.id`'s own and refuses any other.
 */
export const replayRoutes: FastifyPluginAsyncZod<ReplayRoutesOptions> = async (app, options) => {
  /** Queues a failed event again, or delivers a delivered one again on purpose (a new attempt). */
  await registerEndpoint(app, endpoints.events.replay, { preHandler: rateLimited('write') }, async (request, reply) => {
    const replayed = unlessRefused(await options.intake.accept({ kind: 'replay', userId: request.user.id, eventId: request.params.eventId }));
    return reply.status(202).send({ event: eventRecordToListItem(replayed.event) });
  });
};
