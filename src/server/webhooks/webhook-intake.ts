import type { IncomingHttpHeaders } from 'node:http';
import type { EventSource } from '../../shared/events/event-schemas.ts';
import { flowHasWait, type FlowType } from '../../shared/flows/flow-types.ts';
import { shopifyCheckoutToken } from '../engine/event-normalizer.ts';
import { randomUUID } from 'node:crypto';
import type { NewEvent } from '../events/event-queries.ts';
import { eventOutcomeMessages } from '../../shared/events/event-messages.ts';

/**
 * What the receiving side reads from a request before storing it: where it came from, its
 * de-duplication ids, and whether it starts an abandonment timer. The payload itself is
 * only validated later, by the worker, so a sender is never kept waiting on it.
 */

/** The Shopify headers kept with an event; the signature is not among them. */
const keptHeaders = [
  'x-shopify-topic',
  'x-shopify-shop-domain',
  'x-shopify-api-version',
  'x-shopify-webhook-id',
  'x-shopify-event-id',
  'x-shopify-triggered-at',
] as const;

/** Web Pixel events (Shopify's standard event names) that the pixel snippet forwards. */
const pixelEventNames = new Set(['product_viewed', 'product_added_to_cart', 'checkout_started', 'checkout_completed', 'cart_viewed', 'page_viewed']);

/** The header the Webhook Test Console sends so its events are marked as tests. */
export const TEST_SOURCE_HEADER = 'x-flowsmith-source';

function header(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first?.trim() ? first.trim() : null;
}

export function keptHeadersOf(headers: IncomingHttpHeaders): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of keptHeaders) {
    const value = header(headers, name);
    if (value) kept[name] = value.slice(0, 500);
  }
  return kept;
}

export interface IntakeDetails {
  source: EventSource;
  topic: string | null;
  shopifyEventId: string | null;
  shopifyWebhookId: string | null;
  externalEventId: string | null;
  checkoutToken: string | null;
  /** Minutes to wait before processing; 0 processes straight away. */
  waitMinutes: number;
}

function idText(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && value.trim()) return value.trim().slice(0, 200);
  return null;
}

export function readIntakeDetails(
  headers: IncomingHttpHeaders,
  payload: Record<string, unknown>,
  flow: { flowType: FlowType; waitMinutes: number | null },
): IntakeDetails {
  const shopifyTopic = header(headers, 'x-shopify-topic');
  if (shopifyTopic) {
    const topic = shopifyTopic.toLowerCase();
    // Checkouts are "abandoned" only once the shopper has been quiet for the flow's wait;
    // each update restarts it (the newest event wins when the timer fires).
    const startsTimer = (topic === 'checkouts/create' || topic === 'checkouts/update') && flowHasWait(flow.flowType);
    return {
      source: 'shopify',
      topic,
      shopifyEventId: header(headers, 'x-shopify-event-id'),
      shopifyWebhookId: header(headers, 'x-shopify-webhook-id'),
      externalEventId: null,
      checkoutToken: shopifyCheckoutToken(topic, payload),
      waitMinutes: startsTimer ? (flow.waitMinutes ?? 0) : 0,
    };
  }
  if (typeof payload.name === 'string' && pixelEventNames.has(payload.name) && typeof payload.data === 'object' && payload.data !== null) {
    return {
      source: 'pixel',
      topic: payload.name,
      shopifyEventId: null,
      shopifyWebhookId: null,
      externalEventId: idText(payload.id),
      checkoutToken: null,
      waitMinutes: 0,
    };
  }
  return {
    source: header(headers, TEST_SOURCE_HEADER)?.toLowerCase() === 'test' ? 'test' : 'generic',
    topic: typeof payload.event_type === 'string' ? payload.event_type.slice(0, 200) : null,
    shopifyEventId: null,
    shopifyWebhookId: null,
    externalEventId: idText(payload.event_id),
    checkoutToken: null,
    waitMinutes: 0,
  };
}

/**
 * The event row for an accepted request: skipped when its flow is off, waiting when it
 * starts an abandonment timer, received otherwise. The webhook receiver and the console's
 * test send both store events through here, so a test event is stored exactly as a real one.
 */
export function newAcceptedEvent(
  flow: { id: string; userId: string; flowType: FlowType; isActive: boolean },
  details: IntakeDetails,
  body: { rawBody: string; contentType: string | null; headers: Record<string, string> },
  receivedAt: Date,
): NewEvent {
  const processAfter = details.waitMinutes > 0 ? new Date(receivedAt.getTime() + details.waitMinutes * 60_000) : null;
  return {
    id: randomUUID(),
    flowId: flow.id,
    userId: flow.userId,
    flowType: flow.flowType,
    source: details.source,
    topic: details.topic,
    status: !flow.isActive ? 'skipped' : processAfter ? 'waiting' : 'received',
    contentType: body.contentType,
    rawBody: body.rawBody,
    headers: body.headers,
    shopifyEventId: details.shopifyEventId,
    shopifyWebhookId: details.shopifyWebhookId,
    externalEventId: details.externalEventId,
    error: flow.isActive ? null : eventOutcomeMessages.flowInactive,
    checkoutToken: details.checkoutToken,
    processAfter,
    receivedAt,
  };
}
