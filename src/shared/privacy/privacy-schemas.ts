import { z } from 'zod';

/** What the privacy page reads and sends (src/server/privacy/privacy-routes.ts). */
export const privacyTopics = ['customers/data_request', 'customers/redact', 'shop/redact', 'owner/erase'] as const;
export type PrivacyTopic = (typeof privacyTopics)[number];

export const privacyRequestSchema = z.object({
  id: z.string(),
  topic: z.enum(privacyTopics),
  shopDomain: z.string().nullable(),
  shopperEmail: z.string().nullable(),
  customerId: z.string().nullable(),
  requestedAt: z.string().nullable(),
  receivedAt: z.string(),
  status: z.enum(['received', 'processing', 'done']),
  doneAt: z.string().nullable(),
  recordsAffected: z.number().int().nullable(),
  /** The export's download address (data requests, once ready). */
  exportLocation: z.string().nullable(),
});
export type PrivacyRequest = z.infer<typeof privacyRequestSchema>;

export const privacyRequestListSchema = z.object({ requests: z.array(privacyRequestSchema) });

export const privacyEndpointSchema = z.object({ url: z.string() });

export const shopperEmailSchema = z.string().trim().toLowerCase().max(254).pipe(z.email());

export const shopperQuerySchema = z.object({ email: shopperEmailSchema });

export const shopperSummarySchema = z.object({
  email: z.string(),
  found: z.boolean(),
  events: z.number().int(),
  texts: z.number().int(),
  timers: z.number().int(),
  otherRecords: z.number().int(),
  recentEvents: z.array(
    z.object({ id: z.string(), flowType: z.string(), source: z.string(), status: z.string(), receivedAt: z.string(), texts: z.number().int() }),
  ),
});
export type ShopperSummary = z.infer<typeof shopperSummarySchema>;

export const shopperEraseInputSchema = z.object({
  email: shopperEmailSchema,
  /** Also remove the flows' properties from the shopper's Klaviyo profile. */
  unsetKlaviyo: z.boolean().default(false),
});

export const shopperEraseResultSchema = z.object({
  recordsAffected: z.number().int(),
  klaviyo: z.enum(['not_asked', 'removed', 'no_credentials', 'failed']),
  klaviyoMessage: z.string().nullable(),
});
export type ShopperEraseResult = z.infer<typeof shopperEraseResultSchema>;

/** A privacy request named in an address: its export's download. */
export const privacyRequestParamsSchema = z.object({ id: z.string().max(100) });
