import { z } from 'zod';
import { flowTypeSchema } from '../flows/flow-type-schemas.ts';
import { eventSourceSchema, eventStatusSchema } from '../events/event-schemas.ts';

/**
 * The contract of the Webhook Test Console (its live stream and its test send) and of the
 * webhook handler page's status check.
 */
export const MAX_TEST_PAYLOAD_CHARS = 1_048_576;

/** GET /api/stream/:flowType (server-sent events) and POST /api/test-webhooks/:flowType. */
export const consoleParamsSchema = z.object({ flowType: flowTypeSchema });

/** A change's place in the log (the SSE `id:`): its transaction's id and its own, `<tx>-<id>`. */
export const changeIdPattern = /^(\d{1,20})-(\d{1,19})$/;
/** A bare number is the change id of an earlier version's stream: accepted, and the stream starts afresh. */
export const streamQuerySchema = z.object({ lastEventId: z.string().regex(/^\d{1,20}(?:-\d{1,19})?$/).optional() });

export const generatedTextSchema = z.object({
  assistantName: z.string(),
  klaviyoProperty: z.string(),
  text: z.string().nullable(),
  error: z.string().nullable(),
});
export type GeneratedText = z.infer<typeof generatedTextSchema>;

/**
 * One `data:` of the stream: an event the flow received, or a change of its status. The
 * SSE `id:` is `changeId`, so a reconnect resumes after it.
 */
export const streamChangeSchema = z.object({
  changeId: z.string(),
  eventId: z.string(),
  /** True for the event's arrival (its first change); false for a later status change. */
  arrival: z.boolean(),
  flowType: flowTypeSchema,
  status: eventStatusSchema,
  source: eventSourceSchema,
  dryRun: z.boolean(),
  receivedAt: z.string(),
  changedAt: z.string(),
  /** The body as received: parsed JSON when it is JSON, else the text. */
  payload: z.unknown(),
  error: z.string().nullable(),
  /** The AI texts of the current attempt once generation has run. */
  generations: z.array(generatedTextSchema),
});
export type StreamChange = z.infer<typeof streamChangeSchema>;

export const testWebhookBodySchema = z.object({
  /** The payload exactly as typed in the console. */
  payload: z.string().max(MAX_TEST_PAYLOAD_CHARS),
  dryRun: z.boolean().default(false),
});
export type TestWebhookBody = z.input<typeof testWebhookBodySchema>;

export const testWebhookResponseSchema = z.object({
  success: z.literal(true),
  eventId: z.string(),
  status: eventStatusSchema,
  duplicate: z.boolean(),
});
export type TestWebhookResponse = z.infer<typeof testWebhookResponseSchema>;

/** GET /api/webhook-status/:flowType/:flowId: public, says only whether the flow exists and is active. */
export const webhookStatusParamsSchema = z.object({ flowType: z.string().max(100), flowId: z.string().max(200) });
export const webhookStatusResponseSchema = z.object({
  success: z.boolean(),
  message: z.string(),
  flowType: flowTypeSchema,
  flowId: z.string(),
  timestamp: z.string(),
});
export type WebhookStatusResponse = z.infer<typeof webhookStatusResponseSchema>;
