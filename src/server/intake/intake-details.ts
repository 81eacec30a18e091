import type { IncomingHttpHeaders } from 'node:http';
import type { EventSource } from '../../shared/events/event-sources.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import { shopifyCheckoutToken, shopperEmailOf } from '../engine/spine/event-normalizer.ts';
import { timerKindOf } from '../engine/timers/timer-rules.ts';
import type { PixelEvent } from '../../shared/shopify-pixel/pixel-schemas.ts';
import { randomUUID } from 'node:crypto';
import type { NewEvent } from '../events/event-queries.ts';
import { decideAcceptance } from './intake-decisions.ts';
import { isRawJsonNumber, parseJsonTextKeepingNumbers, storableText } from '../platform/json-text.ts';

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

/** Who a request to a flow's webhook URL says it comes from: Shopify, or a generic sender. */
export type ClaimedSource = 'shopify' | 'generic';

/**
 * The one place that decides which source a request to a webhook URL claims, before
 * anything else reads it. Any `X-Shopify-…` header (Node gives the names lower-cased, and
 * an empty or repeated header is still present) is a claim to be Shopify, and a claim is
 * held to Shopify's signature: a sender cannot pick a source by leaving a header out or
 * sending one empty, and nothing that looks like Shopify is read by the generic path.
 */
export function claimedSource(headers: IncomingHttpHeaders): ClaimedSource {
  return Object.keys(headers).some((name) => name.toLowerCase().startsWith('x-shopify-')) ? 'shopify' : 'generic';
}

/** Where an accepted event comes from: a claim the route has verified, or the console's test send. */
export type IntakeSource = ClaimedSource | 'test';

function header(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  const text = first === undefined ? '' : storableText(first).trim();
  return text ? text : null;
}

/** The topic of a request that claims to be Shopify, lower-cased; null when it names none. */
export function shopifyTopicOf(headers: IncomingHttpHeaders): string | null {
  return header(headers, 'x-shopify-topic')?.toLowerCase().slice(0, 200) ?? null;
}

export function keptHeadersOf(headers: IncomingHttpHeaders): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of keptHeaders) {
    const value = header(headers, name);
    if (value) kept[name] = storableText(value.slice(0, 500));
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
  /** Keys and time that tie the event to a shopper's timers (docs/decisions/0011-shopper-timers.md). */
  cartToken: string | null;
  objectId: string | null;
  shopperEmail: string | null;
  occurredAt: Date | null;
  /** Minutes to wait before processing; 0 processes straight away. */
  waitMinutes: number;
}

function idText(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && value.trim()) return storableText(value.trim().slice(0, 200));
  return null;
}

interface IntakeFlow {
  flowType: FlowType;
  waitMinutes: number | null;
}

/**
 * What intake reads from an accepted request. `source` is stated by the caller: the
 * webhook route passes the claim it has verified (claimedSource), and only the console's
 * test send, behind sign-in, passes 'test', so nothing a public sender writes makes an
 * event a test (test events are exempt from the shopper rules of real ones).
 */
export function readIntakeDetails(
  source: IntakeSource,
  sent: { headers: IncomingHttpHeaders; payload: Record<string, unknown> },
  flow: IntakeFlow,
  receivedAt: Date,
): IntakeDetails {
  const { headers, payload } = sent;
  if (source === 'shopify') {
    const topic = shopifyTopicOf(headers) ?? '';
    const isCart = topic.startsWith('carts/');
    return {
      source: 'shopify',
      topic,
      shopifyEventId: header(headers, 'x-shopify-event-id')?.slice(0, 200) ?? null,
      shopifyWebhookId: header(headers, 'x-shopify-webhook-id')?.slice(0, 200) ?? null,
      externalEventId: null,
      checkoutToken: idText(shopifyCheckoutToken(topic, payload)),
      cartToken: idText(isCart ? (payload.token ?? payload.id) : payload.cart_token),
      objectId: idText(payload.id),
      shopperEmail: emailText(shopperEmailOf('shopify', payload)),
      occurredAt: timeOf(payload.updated_at, receivedAt) ?? timeOf(header(headers, 'x-shopify-triggered-at'), receivedAt) ?? timeOf(payload.created_at, receivedAt),
      // Checkouts and carts are "abandoned" only once the shopper has been quiet for the
      // flow's wait; each update restarts it (the newest state wins when the timer fires).
      waitMinutes: timerKindOf({ source: 'shopify', topic, flowType: flow.flowType }) ? (flow.waitMinutes ?? 0) : 0,
    };
  }
  return {
    source: source === 'test' ? 'test' : 'generic',
    topic: typeof payload.event_type === 'string' ? storableText(payload.event_type.slice(0, 200)) : null,
    shopifyEventId: null,
    shopifyWebhookId: null,
    externalEventId: idText(payload.event_id),
    checkoutToken: null,
    cartToken: null,
    objectId: null,
    shopperEmail: emailText(shopperEmailOf('generic', payload)),
    occurredAt: timeOf(payload.timestamp, receivedAt),
    waitMinutes: 0,
  };
}

/** What the browsing pixel's endpoint reads from a body that already passed pixelEventSchema. */
export function readPixelIntakeDetails(pixel: PixelEvent, flow: IntakeFlow, receivedAt: Date): IntakeDetails {
  return {
    source: 'pixel',
    topic: pixel.name,
    shopifyEventId: null,
    shopifyWebhookId: null,
    externalEventId: pixel.id,
    checkoutToken: pixel.checkout?.token ?? null,
    cartToken: pixel.cartToken ?? null,
    objectId: null,
    shopperEmail: emailText(shopperEmailOf('pixel', pixel)),
    occurredAt: timeOf(pixel.timestamp, receivedAt),
    waitMinutes: timerKindOf({ source: 'pixel', topic: pixel.name, flowType: flow.flowType }) ? (flow.waitMinutes ?? 0) : 0,
  };
}

/** Emails are keys here: trimmed and lower-cased, as Klaviyo compares them. */
export function emailText(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const email = storableText(value).trim().toLowerCase();
  return email.includes('@') && email.length <= 254 ? email : null;
}

/** No shop event is older than this; an earlier time is a sender's mistake (or a probe). */
const EARLIEST_EVENT_TIME = Date.UTC(2000, 0, 1);
/** A sender's clock may run a little ahead; further than this is not believed. */
const MAX_CLOCK_AHEAD_MS = 86_400_000;

/**
 * A payload's time, when it is a believable one: from 2000 to a day after `receivedAt`.
 * Anything else counts as absent, so a year like -271821 (still a valid JavaScript date)
 * never reaches the database or a timer.
 */
export function timeOf(value: unknown, receivedAt: Date): Date | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  if (typeof value === 'string' && (value.length > 40 || !value.trim())) return null;
  const date = typeof value === 'number' ? new Date(value < 1e12 ? value * 1000 : value) : new Date(value);
  const time = date.getTime();
  if (Number.isNaN(time) || time < EARLIEST_EVENT_TIME || time > receivedAt.getTime() + MAX_CLOCK_AHEAD_MS) return null;
  return date;
}

/**
 * The event row for an accepted request: skipped when its flow is off, waiting when it
 * starts an abandonment timer, received otherwise. The webhook receiver and the console's
 * test send both store events through here, so a test event is stored exactly as a real one.
 */
/** The body of an accepted event as received, with its parse when the intake has one. */
export interface StoredBody {
  rawBody: string;
  contentType: string | null;
  headers: Record<string, string>;
  /** `rawBody` parsed for writing back (numbers as sent), so it is not parsed again. */
  parsed?: () => unknown;
}

export function newAcceptedEvent(
  flow: { id: string; userId: string; flowType: FlowType; isActive: boolean },
  details: IntakeDetails,
  body: StoredBody,
  receivedAt: Date,
): NewEvent {
  const acceptance = decideAcceptance(flow, details.waitMinutes, receivedAt);
  return {
    id: randomUUID(),
    flowId: flow.id,
    userId: flow.userId,
    flowType: flow.flowType,
    source: details.source,
    topic: details.topic,
    status: acceptance.status,
    // Whatever the caller parsed the body with, what is stored is text PostgreSQL can hold.
    contentType: body.contentType === null ? null : storableText(body.contentType),
    rawBody: storableText(trimShopperDetails(body.rawBody, body.parsed)),
    headers: body.headers,
    shopifyEventId: details.shopifyEventId,
    shopifyWebhookId: details.shopifyWebhookId,
    externalEventId: details.externalEventId,
    error: acceptance.reason,
    checkoutToken: details.checkoutToken,
    cartToken: details.cartToken,
    objectId: details.objectId,
    shopperEmail: details.shopperEmail,
    occurredAt: details.occurredAt,
    processAfter: acceptance.processAfter,
    receivedAt,
  };
}

/**
 * What of a payload is not kept (docs/decisions/0029-retention-and-account-deletion.md):
 * the shopper's details beyond email and name, which neither the normaliser nor the event
 * log needs. Matched by key, in any case, at any depth.
 */
const identifyingKeys = new Set([
  'phone',
  'phone_number',
  'sms_marketing_phone',
  'browser_ip',
  'client_ip',
  'ip',
  'ip_address',
  'client_details',
  'user_agent',
  'useragent',
  'accept_language',
  'landing_site',
  'landing_site_ref',
  'referring_site',
  'note',
  'notes',
  'note_attributes',
]);
/** Address objects keep only the names in them (Shopify's checkouts may name the shopper only in the billing address). */
const addressKeys = new Set(['billing_address', 'shipping_address', 'default_address', 'address', 'addresses', 'destination']);
const addressNameKeys = new Set(['first_name', 'last_name', 'name']);
const mentionsIdentifyingKey = new RegExp(`"(?:${[...identifyingKeys, ...addressKeys].join('|')})"\\s*:`, 'i');

function addressNames(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(addressNames);
  if (value === null || typeof value !== 'object') return undefined;
  const names: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (addressNameKeys.has(key.toLowerCase())) names[key] = (value as Record<string, unknown>)[key];
  return names;
}

const removed = Symbol('removed');

/**
 * Adds a member to a copy being built. A plain object, not a null-prototype one: V8 keeps
 * those in dictionary mode, slower to build and to write out (a tenth of the intake's
 * time went to trimming). A member named __proto__ is defined, so it stays a member.
 */
function keepMember(kept: Record<string, unknown>, key: string, member: unknown): void {
  if (key === '__proto__') Object.defineProperty(kept, key, { value: member, enumerable: true, writable: true, configurable: true });
  else kept[key] = member;
}

/**
 * The value without identifying members, sharing every part that has none: the value
 * itself when nothing is taken out, so most of a body is neither copied nor walked twice.
 */
function withoutIdentifyingDetails(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || isRawJsonNumber(value)) return value;
  if (Array.isArray(value)) {
    let items: unknown[] | null = null;
    for (let index = 0; index < value.length; index += 1) {
      const item: unknown = value[index];
      const trimmed = withoutIdentifyingDetails(item);
      if (trimmed === item) continue;
      items ??= value.slice();
      items[index] = trimmed;
    }
    return items ?? value;
  }
  const members = value as Record<string, unknown>;
  const keys = Object.keys(members);
  let kept: Record<string, unknown> | null = null;
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index]!;
    const member = members[key];
    const name = key.toLowerCase();
    const trimmed = identifyingKeys.has(name) ? removed : addressKeys.has(name) ? (addressNames(member) ?? removed) : withoutIdentifyingDetails(member);
    if (trimmed === member && kept === null) continue;
    if (kept === null) {
      kept = {};
      for (let earlier = 0; earlier < index; earlier += 1) keepMember(kept, keys[earlier]!, members[keys[earlier]!]);
    }
    if (trimmed !== removed) keepMember(kept, key, trimmed);
  }
  return kept ?? value;
}

/**
 * The body as stored: the sender's text unchanged when it holds nothing of the above
 * (most events, and every check of a signature, which runs on the bytes received before
 * this), else the same JSON without those members. Numbers keep the digits the sender
 * wrote (Shopify's 64-bit ids); a body that is not JSON is kept as it is.
 */
export function trimShopperDetails(text: string, parsed?: () => unknown): string {
  if (!mentionsIdentifyingKey.test(text)) return text;
  let value: unknown;
  try {
    value = parsed ? parsed() : parseJsonTextKeepingNumbers(text);
  } catch {
    // Not JSON, or beyond the bounds of JSON from outside (a refused body is kept as sent).
    return text;
  }
  const trimmed = withoutIdentifyingDetails(value);
  return trimmed === value ? text : JSON.stringify(trimmed);
}
