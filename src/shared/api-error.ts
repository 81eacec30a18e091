import { z } from 'zod';

/**
 * Every API error has this shape, so the browser can show `message` in a toast and
 * `fieldErrors` under the matching fields.
 */
export const apiErrorSchema = z.object({
  error: z.string(),
  message: z.string(),
  fieldErrors: z.record(z.string(), z.string()).optional(),
  retryAfterSeconds: z.number().optional(),
});
export type ApiErrorBody = z.infer<typeof apiErrorSchema>;
