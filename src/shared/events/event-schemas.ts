import { z } from 'zod';
import { eventStatuses } from './event-statuses.ts';
import { eventSources } from './event-sources.ts';
import { experimentGroupKeys } from '../experiments/experiment-settings.ts';
import { flowTypeSchema } from '../flows/flow-type-schemas.ts';
import { textChecksRecordSchema } from '../text-checks/text-check-schemas.ts';
import { recommendedProductSchema } from '../flows/recommendation-schemas.ts';

/**
 * The contract between the event log pages and the events API (/api/events), and the
 * shape every incoming event is normalised to before any AI runs.
 */
export const eventStatusSchema = z.enum(eventStatuses);
/** Where an event came from (event-sources.ts). */
export const eventSourceSchema = z.enum(eventSources);

export const normalizedProductSchema = z.object({
  id: z.string().nullable(),
  name: z.string().nullable(),
  description: z.string().nullable(),
  /** A decimal amount as the shop wrote it ("19.99"). */
  price: z.string().nullable(),
  quantity: z.number().nullable(),
  url: z.string().nullable(),
});
export type NormalizedProduct = z.infer<typeof normalizedProductSchema>;

export const normalizedEventSchema = z.object({
  /** product_viewed, cart_abandoned, checkouts/update, … */
  eventType: z.string(),
  shopper: z.object({
    email: z.string().nullable(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
  }),
  products: z.array(normalizedProductSchema),
  total: z.string().nullable(),
  currency: z.string().nullable(),
  /** When the shopper did it (ISO 8601); the receipt time when the payload does not say. */
  time: z.string(),
  checkoutUrl: z.string().nullable(),
  /** Shopify's checkout token (or the cart token), linking a checkout to its order. */
  checkoutToken: z.string().nullable(),
  /** Set when a Shopify checkout was completed: there is nothing to recover. */
  completedAt: z.string().nullable(),
  /**
   * The shopper's language as the shop gave it (Shopify's `customer_locale`, a generic
   * event's `properties.locale`); absent in events normalised before it was kept.
   */
  locale: z.string().nullish(),
});
export type NormalizedEvent = z.infer<typeof normalizedEventSchema>;

export const webhookAcceptedSchema = z.object({
  eventId: z.string(),
  status: eventStatusSchema,
  /** True when this event was already received; it is kept once. */
  duplicate: z.boolean(),
});
export type WebhookAccepted = z.infer<typeof webhookAcceptedSchema>;

export const eventListItemSchema = z.object({
  id: z.string(),
  flowType: flowTypeSchema,
  source: eventSourceSchema,
  topic: z.string().nullable(),
  status: eventStatusSchema,
  receivedAt: z.string(),
  updatedAt: z.string(),
  shopperEmail: z.string().nullable(),
  shopperName: z.string().nullable(),
  error: z.string().nullable(),
  attempt: z.number().int(),
  /** While waiting: when the abandonment timer fires, unless the shopper comes back first. */
  waitsUntil: z.string().nullable(),
});
export type EventListItem = z.infer<typeof eventListItemSchema>;

export const eventGenerationSchema = z.object({
  assistantName: z.string(),
  klaviyoProperty: z.string(),
  model: z.string(),
  instructions: z.string().nullable(),
  prompt: z.string(),
  status: z.enum(['succeeded', 'failed']),
  text: z.string().nullable(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  totalTokens: z.number().int(),
  durationMs: z.number().int(),
  reused: z.boolean(),
  /** Where a reused text came from: an earlier attempt (a replay), or an identical request of another event. */
  reusedFrom: z.enum(['earlier_attempt', 'identical_request']).nullable(),
  /** Of the input tokens, those served from OpenAI's prompt cache. */
  cachedInputTokens: z.number().int(),
  /** The OpenAI tier that served it (flex is cheaper and slower); null when no call was made. */
  serviceTier: z.string().nullable(),
  /** This text's share of its call's price, in dollars. */
  costUsd: z.number(),
  /** The model had no known price: `costUsd` is counted at the dearest known price. */
  costEstimated: z.boolean(),
  error: z.string().nullable(),
  /** The checks before delivery; null while not yet checked (or for texts from before the checks). */
  checks: textChecksRecordSchema.nullable(),
});
export type EventGeneration = z.infer<typeof eventGenerationSchema>;

export const eventDeliverySchema = z.object({
  id: z.string(),
  attempt: z.number().int(),
  status: z.enum(['pending', 'delivered', 'failed']),
  /** A text per assistant's property, and the recommendations list where the flow writes one. */
  properties: z.record(z.string(), z.union([z.string(), z.array(recommendedProductSchema)])),
  profileId: z.string().nullable(),
  profileCreated: z.boolean().nullable(),
  profileWrittenAt: z.string().nullable(),
  klaviyoEventName: z.string().nullable(),
  eventSentAt: z.string().nullable(),
  error: z.string().nullable(),
  /** A holdout shopper's delivery: the flow's properties cleared, no text written (docs/decisions/0043-experiments.md). */
  holdout: z.boolean(),
});
export type EventDelivery = z.infer<typeof eventDeliverySchema>;

export const eventDetailSchema = eventListItemSchema.extend({
  contentType: z.string().nullable(),
  rawBody: z.string().nullable(),
  headers: z.record(z.string(), z.string()),
  normalized: normalizedEventSchema.nullable(),
  finishedAt: z.string().nullable(),
  generations: z.array(eventGenerationSchema),
  deliveries: z.array(eventDeliverySchema),
  /** The experiment group the event was processed in (an arm A to D, or the holdout); null outside an experiment. */
  experimentGroup: z.object({ experimentId: z.string(), group: z.enum(experimentGroupKeys) }).nullable(),
});
export type EventDetail = z.infer<typeof eventDetailSchema>;

export const MAX_EVENT_PAGE_SIZE = 100;
export const DEFAULT_EVENT_PAGE_SIZE = 25;

export const eventListQuerySchema = z.object({
  flowType: flowTypeSchema.optional(),
  status: eventStatusSchema.optional(),
  limit: z.coerce.number().int().min(1).max(MAX_EVENT_PAGE_SIZE).default(DEFAULT_EVENT_PAGE_SIZE),
  /** The id of the last event of the previous page: the next page starts after it. */
  before: z.string().max(100).optional(),
});
export type EventListQuery = z.input<typeof eventListQuerySchema>;

export const eventListResponseSchema = z.object({
  events: z.array(eventListItemSchema),
  /** Pass as `before` for the next (older) page; null on the last page. */
  nextBefore: z.string().nullable(),
});
export type EventListResponse = z.infer<typeof eventListResponseSchema>;

export const eventParamsSchema = z.object({ eventId: z.string().min(1).max(100) });
export const eventDetailResponseSchema = z.object({ event: eventDetailSchema });
export const replayResponseSchema = z.object({ event: eventListItemSchema });

export const flowActivitySchema = z.object({
  flowType: flowTypeSchema,
  events: z.number().int(),
  deliveries: z.number().int(),
  failed: z.number().int(),
  rejected: z.number().int(),
  tokens: z.number().int(),
});
export type FlowActivity = z.infer<typeof flowActivitySchema>;

export const activitySummaryResponseSchema = z.object({
  /** The start of the window: 24 hours before the answer was made. */
  since: z.string(),
  flows: z.array(flowActivitySchema),
});
export type ActivitySummaryResponse = z.infer<typeof activitySummaryResponseSchema>;
