import type { EventRecord } from '../../events/event-queries.ts';
import { deferEvent } from '../../events/event-queries.ts';
import type { FlowRecord } from '../../flows/flow-queries.ts';
import { approvedInARow, expireReview, findReview, openReview } from '../../reviews/review-queries.ts';
import { reviewMessages } from '../../../shared/reviews/review-messages.ts';
import { decideApproval } from '../spine/pipeline-core.ts';
import type { PipelineContext } from '../spine/pipeline-context.ts';
import { ended, goOn, type StepResult } from '../spine/step-result.ts';

/**
 * How long texts wait in the review list: the moment they were written for. An abandonment
 * email goes within hours, a thank-you within a day; a text approved later would reach a
 * shopper who has moved on.
 */
export const APPROVAL_WINDOW_MS = 24 * 60 * 60_000;

/**
 * Approval, when the flow requires it (docs/decisions/0040-texts-checked-before-delivery.md),
 * after the checks and before delivery: the first time, a review opens (approved at once
 * when the owner's last N decisions were unchanged approvals) and the event waits until the
 * review's end; the owner's decision sends the event on at once (review-routes.ts), and the
 * timer sweep sends it when its moment is over. Answers whether delivery goes on now, or
 * the event's end when the texts were rejected or their moment passed.
 */
export async function requireApproval(context: PipelineContext, event: EventRecord, flow: FlowRecord): Promise<StepResult<boolean>> {
  if (!flow.textRules.requireApproval || (event.source === 'test' && event.dryRun)) return goOn(true);
  const now = context.clock.now();
  let review = await findReview(context.pool, event.id, event.attempt);
  if (!review) {
    const earned = flow.textRules.autoApproveAfter !== null && (await approvedInARow(context.pool, flow.id, flow.textRules.autoApproveAfter));
    review = await openReview(context.pool, {
      eventId: event.id,
      attempt: event.attempt,
      userId: event.userId,
      flowId: flow.id,
      expiresAt: new Date(now.getTime() + APPROVAL_WINDOW_MS),
      now,
      approvedAutomatically: earned,
    });
  }
  const decision = decideApproval({ status: review.status, expired: review.expiresAt.getTime() <= now.getTime() });
  if (decision.kind === 'deliver') return goOn(true);
  if (decision.kind === 'skip') {
    if (review.status === 'pending') await expireReview(context.pool, event.id, event.attempt, now);
    return ended('skipped', decision.reason);
  }
  await deferEvent(context.pool, event.id, event.attempt, { until: review.expiresAt, reason: reviewMessages.waiting(review.expiresAt.toISOString()) });
  context.logger.info({ eventId: event.id, until: review.expiresAt }, 'texts wait for the owner to approve them');
  return goOn(false);
}
