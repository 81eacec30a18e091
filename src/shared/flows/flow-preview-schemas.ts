import { z } from 'zod';
import { assistantsSchema, recommendationSettingsSchema } from './flow-schemas.ts';
import { recommendedProductSchema } from './recommendation-schemas.ts';
import { textRulesSchema } from './text-rules-schemas.ts';
import { textChecksRecordSchema } from '../text-checks/text-check-schemas.ts';

/**
 * Preview on the flow page (docs/decisions/0040-texts-checked-before-delivery.md): the
 * assistants and rules as the form holds them now, saved or not, write for the flow's
 * sample event or one of the owner's past events of this flow; nothing is delivered.
 */
export const flowPreviewRequestSchema = z.object({
  /** A past event of this flow; null for the flow's sample event. */
  eventId: z.string().trim().min(1).max(200).nullable(),
  assistants: assistantsSchema,
  textRules: textRulesSchema,
  /** The form's recommendation settings; absent uses the saved ones. */
  recommendations: recommendationSettingsSchema.optional(),
});
export type FlowPreviewRequest = z.input<typeof flowPreviewRequestSchema>;

export const previewedTextSchema = z.object({
  assistantName: z.string(),
  klaviyoProperty: z.string(),
  prompt: z.string(),
  /** What would be delivered; null when nothing would. */
  text: z.string().nullable(),
  error: z.string().nullable(),
  checks: textChecksRecordSchema.nullable(),
});
export type PreviewedText = z.infer<typeof previewedTextSchema>;

export const flowPreviewResponseSchema = z.object({
  /** The event written for: the sample (id null) or a past event, with what names it in the form. */
  event: z.object({ id: z.string().nullable(), label: z.string() }),
  texts: z.array(previewedTextSchema),
  /** What the shop would pair with the event's product for this shopper; null when the flow asks for none. */
  recommendations: z.array(recommendedProductSchema).nullable(),
});
export type FlowPreviewResponse = z.infer<typeof flowPreviewResponseSchema>;
