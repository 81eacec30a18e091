import { z } from 'zod';
import { flowTypeSchema } from '../flows/flow-types.ts';
import { MAX_TEXT_LENGTH } from '../flows/text-rules-schemas.ts';
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

export const reviewMessages = {
  waiting: (until: string) => `Waiting for your approval in the review list until ${until}; not sent after that.`,
  rejected: 'You rejected its texts in the review list, so nothing was sent.',
  expired: 'Its texts were not approved while the moment lasted (24 hours), so nothing was sent.',
  pageTitle: 'Texts to approve',
  pageHint: 'Texts of flows that wait for your approval. Approve, edit or reject each, or many at once. A text not approved within 24 hours of being written is not sent.',
  empty: 'No texts wait for your approval.',
  loadFailed: 'Failed to load the texts to approve',
  approve: 'Approve',
  reject: 'Reject',
  edit: 'Edit',
  saveAndApprove: 'Save and approve',
  cancel: 'Cancel',
  approveSelected: (count: number) => `Approve ${count} selected`,
  rejectSelected: (count: number) => `Reject ${count} selected`,
  selectAll: 'Select all',
  select: (email: string | null) => `Select the texts for ${email ?? 'this shopper'}`,
  approved: (count: number) => (count === 1 ? 'Approved; the texts are on their way.' : `${count} approved; their texts are on their way.`),
  rejectedToast: (count: number) => (count === 1 ? 'Rejected; nothing is sent.' : `${count} rejected; nothing is sent for them.`),
  notDecided: (count: number) => `${count} could not be decided: their moment passed or they were decided already.`,
  decideFailed: (reason: string) => `Error deciding: ${reason}`,
  expiresAt: (time: string) => `Not sent after ${time}`,
  pendingOnDashboard: (count: number) => `${count} ${count === 1 ? 'text waits' : 'texts wait'} for your approval`,
  openReviewList: 'Open the review list',
  notFound: 'These texts no longer wait for approval.',
  noSuchText: (properties: readonly string[]) => `This event has no text to edit for ${properties.map((property) => `"${property}"`).join(', ')}.`,
} as const;
