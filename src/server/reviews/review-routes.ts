import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { endpoints } from '../../shared/api/endpoints.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';
import { MAX_REVIEWS_LISTED } from '../../shared/reviews/review-schemas.ts';
import { reviewMessages } from '../../shared/reviews/review-messages.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import { inTransaction, type Queryable } from '../database/database.ts';
import { releaseWaitingEvent } from '../events/event-queries.ts';
import { listGenerationsOfEvents, replaceTextsByOwner } from '../generations/generation-queries.ts';
import { HttpError } from '../platform/http-errors.ts';
import { registerEndpoint } from '../platform/register-endpoint.ts';
import { rateLimited } from '../platform/user-rate-limit.ts';
import { countPendingReviews, decideReviews, listPendingReviews } from './review-queries.ts';

/**
 * The review list under /api/reviews (docs/decisions/0040-texts-checked-before-delivery.md),
 * registered in the signed-in context: every query is scoped to `request.user.id`. A
 * decision sends the event on at once, in the same transaction: approved texts are
 * delivered, rejected ones skip the event with the reason.
 */
export const reviewRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.database;

  /** The decided events wait no longer: each goes back to the queue now. */
  async function sendOn(client: Queryable, eventIds: string[]): Promise<void> {
    for (const eventId of eventIds) {
      const attempt = await releaseWaitingEvent(client, eventId);
      if (attempt !== null) await app.engine.enqueue(client, { eventId, attempt });
    }
  }

  await registerEndpoint(app, endpoints.reviews.list, { preHandler: rateLimited('read') }, async (request) => {
    const now = app.clock.now();
    const [pending, total] = await Promise.all([listPendingReviews(pool, request.user.id, now, MAX_REVIEWS_LISTED), countPendingReviews(pool, request.user.id, now)]);
    const texts = await listGenerationsOfEvents(pool, pending);
    return {
      total,
      reviews: pending.map((review) => ({
        eventId: review.eventId,
        flowType: review.flowType as FlowType,
        shopperEmail: review.shopperEmail,
        receivedAt: review.receivedAt.toISOString(),
        expiresAt: review.expiresAt.toISOString(),
        texts: (texts.get(review.eventId) ?? []).map((generation) => ({
          assistantName: generation.assistantName,
          klaviyoProperty: generation.klaviyoProperty,
          prompt: generation.prompt,
          text: generation.text,
          checks: generation.checks,
        })),
      })),
    };
  });

  await registerEndpoint(app, endpoints.reviews.count, { preHandler: rateLimited('read') }, async (request) => ({
    pending: await countPendingReviews(pool, request.user.id, app.clock.now()),
  }));

  await registerEndpoint(app, endpoints.reviews.decide, { preHandler: rateLimited('write') }, async (request) => {
    const eventIds = [...new Set(request.body.eventIds)];
    const decided = await inTransaction(pool, async (client) => {
      const reviews = await decideReviews(client, request.user.id, {
        eventIds,
        status: request.body.decision === 'approve' ? 'approved' : 'rejected',
        edited: false,
        now: app.clock.now(),
      });
      await sendOn(
        client,
        reviews.map((review) => review.eventId),
      );
      return reviews.length;
    });
    request.log.info({ userId: request.user.id, decision: request.body.decision, decided }, 'texts decided in the review list');
    return { decided, notDecided: eventIds.length - decided };
  });

  await registerEndpoint(app, endpoints.reviews.edit, { preHandler: rateLimited('write') }, async (request) => {
    const { eventId } = request.params;
    await inTransaction(pool, async (client) => {
      const [review] = await decideReviews(client, request.user.id, { eventIds: [eventId], status: 'approved', edited: true, now: app.clock.now() });
      if (!review) throw new HttpError(apiErrorCodes.not_found, reviewMessages.notFound);
      const replaced = await replaceTextsByOwner(client, review.eventId, review.attempt, request.body.texts);
      // A text the event does not have (or withholds) is refused, and the decision with it.
      const unknown = Object.keys(request.body.texts).filter((property) => !replaced.includes(property));
      if (unknown.length > 0) {
        throw new HttpError(apiErrorCodes.validation, reviewMessages.noSuchText(unknown), { fieldErrors: Object.fromEntries(unknown.map((property) => [`texts.${property}`, reviewMessages.noSuchText([property])])) });
      }
      await sendOn(client, [review.eventId]);
    });
    return { decided: 1, notDecided: 0 };
  });
};
