import { z } from 'zod';
import { flowTypeSchema } from '../flows/flow-type-schemas.ts';
import { MAX_TEXT_LENGTH } from '../flows/text-rules.ts';
import { textChecksRecordSchema } from '../text-checks/text-check-schemas.ts';

/**
 * The review list: texts of flows that require approval, waiting for the owner
 * (docs/decisions/0040-texts-checked-before-delivery.md). The contract between the review
 * page and /api/reviews.
 */
export const MAX_REVIEWS_LISTED = 100;
export const MAX_REVIEWS_DECIDED = 100;

export const reviewTextSchema = z.object({
  assistantName: z.string(),
  klaviyoProperty: z.string(),
  prompt: z.string(),
  text: z.string().nullable(),
  checks: textChecksRecordSchema.nullable(),
});

export const pendingReviewSchema = z.object({
  eventId: z.string(),
  flowType: flowTypeSchema,
  shopperEmail: z.string().nullable(),
  receivedAt: z.string(),
  /** After this, the texts are not sent. */
  expiresAt: z.string(),
  texts: z.array(reviewTextSchema),
});
export type PendingReview = z.infer<typeof pendingReviewSchema>;

export const reviewListResponseSchema = z.object({ reviews: z.array(pendingReviewSchema), total: z.number().int() });

export const decideReviewsSchema = z.object({
  eventIds: z.array(z.string().trim().min(1).max(200)).min(1, 'Choose at least one text').max(MAX_REVIEWS_DECIDED, `At most ${MAX_REVIEWS_DECIDED} at once`),
  decision: z.enum(['approve', 'reject'], { error: 'Choose approve or reject' }),
});
export type DecideReviews = z.input<typeof decideReviewsSchema>;

export const editReviewParamsSchema = z.object({ eventId: z.string().trim().min(1).max(200) });
export const editReviewSchema = z.object({
  /** The edited text of each assistant, by Klaviyo property; those left out stay as written. */
  texts: z
    .record(
      z.string().max(100),
      z
        .string()
        .trim()
        .min(1, 'An approved text cannot be empty')
        .max(MAX_TEXT_LENGTH, `A text must be at most ${MAX_TEXT_LENGTH.toLocaleString('en-US')} characters`),
    )
    .refine((texts) => Object.keys(texts).length >= 1, 'Change at least one text, or approve the texts as they are')
    .refine((texts) => Object.keys(texts).length <= 20, 'At most 20 texts'),
});
export type EditReview = z.input<typeof editReviewSchema>;

export const decideReviewsResponseSchema = z.object({ decided: z.number().int(), notDecided: z.number().int() });

export const reviewCountResponseSchema = z.object({ pending: z.number().int() });
