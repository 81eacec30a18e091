import { z } from 'zod';
import { flowSchema } from './flow-schemas.ts';
import { flowValidationMessages as m } from './flow-messages.ts';
import { webhookUrlGraceOptions } from './webhook-url-grace.ts';

/**
 * "Rotate URL" of a flow (docs/decisions/0015-rotating-flow-urls.md): the request takes
 * one of the fixed grace periods of webhook-url-grace.ts, and nothing else.
 */
export const rotateWebhookUrlSchema = z.object({
  graceMinutes: z.literal(
    webhookUrlGraceOptions.map((option) => option.minutes),
    { error: m.graceChoice },
  ),
});
export type RotateWebhookUrlInput = z.input<typeof rotateWebhookUrlSchema>;

export const rotateWebhookUrlResponseSchema = z.object({ flow: flowSchema });
export type RotateWebhookUrlResponse = z.output<typeof rotateWebhookUrlResponseSchema>;
