import { z } from 'zod';
import type { EventSource } from '../../../shared/events/event-sources.ts';
import type { NormalizedEvent, NormalizedProduct } from '../../../shared/events/event-schemas.ts';
import { pixelEventNames } from '../../../shared/shopify-pixel/pixel-schemas.ts';
import { checkoutMoney, orderMoney } from '../../integrations/shopify/shopify-payload-money.ts';

/**
 * Turns each source's payload into the one event shape the assistants read
 * (docs/product/product-rules.md §2): the sample events of docs/product/specification.md §3
 * (generic and test console), Shopify checkout, order and cart webhooks, and Web Pixel
 * events. Unknown fields are ignored; a known
 * field of the wrong type fails the event with a reason naming the field, because
 * guessing would put wrong content on a shopper's profile.
 */
export type NormalizeResult = { ok: true; event: NormalizedEvent } | { ok: false; reason: string };

const MAX_PROBLEMS_SHOWN = 5;

const text = z.string().nullish();
const identifier = z.union([z.string(), z.number()], { error: 'expected text or a number' }).nullish();
const amount = z
  .union([z.number(), z.string().trim().regex(/^-?\d+(\.\d+)?$/, 'expected an amount such as 19.99')], { error: 'expected an amount such as 19.99' })
  .nullish();
const quantity = z.union([z.number(), z.string().trim().regex(/^\d+$/, 'expected a whole number')], { error: 'expected a whole number' }).nullish();
const timestamp = z.union([z.string(), z.number()], { error: 'expected a date and time' }).nullish();
const email = z.string({ error: 'expected an email address' }).trim().nullish();

const genericCustomer = z.object({ email, first_name: text, last_name: text, firstName: text, lastName: text }).nullish();
const genericProduct = z.object({
  id: identifier,
  name: text,
  title: text,
  description: text,
  price: amount,
  quantity,
  url: text,
  product_url: text,
});
const genericEvent = z.object({
  event_id: identifier,
  event_type: text,
  timestamp,
  customer: genericCustomer,
  email,
  properties: z
    .object({
      customer: genericCustomer,
      email,
      product: genericProduct.nullish(),
      products: z.array(genericProduct).nullish(),
      total: amount,
      currency: text,
      page_url: text,
      checkout_url: text,
      abandoned_checkout_url: text,
      abandoned_at: timestamp,
      purchased_at: timestamp,
      locale: text,
    })
    .nullish(),
});

const shopifyCustomer = z.object({ email, first_name: text, last_name: text }).nullish();
const shopifyAddress = z.object({ first_name: text, last_name: text }).nullish();
const shopifyLineItem = z.object({
  title: text,
  name: text,
  variant_title: text,
  price: amount,
  quantity,
  product_id: identifier,
  variant_id: identifier,
  url: text,
});
const shopifyPayload = z.object({
  token: text,
  cart_token: text,
  checkout_token: text,
  email,
  contact_email: email,
  customer: shopifyCustomer,
  billing_address: shopifyAddress,
  shipping_address: shopifyAddress,
  line_items: z.array(shopifyLineItem).nullish(),
  total_price: amount,
  currency: text,
  presentment_currency: text,
  abandoned_checkout_url: text,
  order_status_url: text,
  completed_at: text,
  updated_at: timestamp,
  created_at: timestamp,
  customer_locale: text,
});

export function normalizeEvent(source: EventSource, topic: string | null, payload: unknown, receivedAt: Date): NormalizeResult {
  if (source === 'shopify') return normalizeShopify(topic ?? '', payload, receivedAt);
  if (source === 'pixel') return normalizePixel(payload, receivedAt);
  return normalizeGeneric(payload, receivedAt);
}

function normalizeGeneric(payload: unknown, receivedAt: Date): NormalizeResult {
  const parsed = genericEvent.safeParse(payload);
  if (!parsed.success) return { ok: false, reason: describeProblems(parsed.error) };
  const body = parsed.data;
  const properties = body.properties ?? {};
  const customer = properties.customer ?? body.customer ?? {};
  const products = [...(properties.product ? [properties.product] : []), ...(properties.products ?? [])].map(
    (product): NormalizedProduct => ({
      id: idText(product.id),
      name: clean(product.name ?? product.title),
      description: clean(product.description),
      price: amountText(product.price),
      quantity: quantityNumber(product.quantity),
      url: clean(product.url ?? product.product_url ?? (properties.product === product ? properties.page_url : null)),
    }),
  );
  return {
    ok: true,
    event: {
      eventType: clean(body.event_type) ?? 'generic_event',
      shopper: {
        email: shopperEmailOf('generic', body),
        firstName: clean(customer.first_name ?? customer.firstName),
        lastName: clean(customer.last_name ?? customer.lastName),
      },
      products,
      total: amountText(properties.total),
      currency: clean(properties.currency),
      time: timeText(properties.abandoned_at ?? properties.purchased_at ?? body.timestamp, receivedAt),
      checkoutUrl: clean(properties.checkout_url ?? properties.abandoned_checkout_url),
      checkoutToken: null,
      completedAt: null,
      locale: localeOf(properties.locale),
    },
  };
}

function normalizeShopify(topic: string, payload: unknown, receivedAt: Date): NormalizeResult {
  const parsed = shopifyPayload.safeParse(payload);
  if (!parsed.success) return { ok: false, reason: describeProblems(parsed.error) };
  const body = parsed.data;
  const isOrder = topic.startsWith('orders/');
  const customer = body.customer ?? {};
  const address = body.billing_address ?? body.shipping_address ?? {};
  // The shopper's own currency: an order's presentment money, a checkout's prices as they are.
  const order = isOrder ? orderMoney(payload) : null;
  const total = order ? { amount: order.buyer?.amount ?? null, currency: order.buyer?.currency ?? clean(body.currency) } : checkoutMoney(payload);
  return {
    ok: true,
    event: {
      eventType: topic || 'shopify',
      shopper: {
        email: shopperEmailOf('shopify', body),
        firstName: clean(customer.first_name ?? address.first_name),
        lastName: clean(customer.last_name ?? address.last_name),
      },
      products: (body.line_items ?? []).map((item, index) => ({
        id: idText(item.product_id ?? item.variant_id),
        name: clean(item.title ?? item.name),
        description: null,
        price: order ? (order.buyerLinePrices[index] ?? null) : amountText(item.price),
        quantity: quantityNumber(item.quantity),
        url: clean(item.url),
      })),
      total: total.amount,
      currency: total.currency,
      time: timeText(body.updated_at ?? body.created_at, receivedAt),
      checkoutUrl: clean(isOrder ? body.order_status_url : body.abandoned_checkout_url),
      checkoutToken: shopifyCheckoutToken(topic, payload),
      completedAt: clean(body.completed_at),
      locale: localeOf(body.customer_locale),
    },
  };
}

/**
 * What the engine reads of a browsing-pixel event. Its endpoint is public, so anyone can
 * post any title, price, URL or name under it: those fields are allowed in the shape but
 * never read. Products are known by id only (their details come from the owner's shop),
 * the shopper by email only (their name comes from the owner's Klaviyo profile), so
 * nothing the pixel says reaches a prompt (docs/decisions/0014-patient-retries-and-caps.md).
 */
const ignored = z.unknown().optional();
const pixelProductIds = z
  .object({
    id: z.string().trim().min(1).max(100),
    variantId: ignored,
    quantity: z.number().int().min(1).max(10_000).nullish(),
    title: ignored,
    url: ignored,
    price: ignored,
    currencyCode: ignored,
  })
  .strict();
const pixelFields = z
  .object({
    name: z.enum(pixelEventNames),
    id: ignored,
    timestamp: z.string().max(40),
    clientId: ignored,
    customer: z.object({ email: z.string().max(254), firstName: ignored, lastName: ignored }).strict().nullish(),
    cartToken: ignored,
    url: ignored,
    product: pixelProductIds.nullish(),
    checkout: z
      .object({
        token: z.string().max(200).nullish(),
        email: z.string().max(254).nullish(),
        totalPrice: ignored,
        currencyCode: ignored,
        lineItems: z.array(pixelProductIds).max(100).nullish(),
      })
      .strict()
      .nullish(),
  })
  .strict();

function normalizePixel(payload: unknown, receivedAt: Date): NormalizeResult {
  const parsed = pixelFields.safeParse(payload);
  if (!parsed.success) return { ok: false, reason: describeProblems(parsed.error) };
  const body = parsed.data;
  // A quantity is a bounded whole number, not text: it may reach a prompt as it came.
  const byId = (product: { id: string; quantity?: number | null }): NormalizedProduct => ({ id: product.id, name: null, description: null, price: null, quantity: product.quantity ?? null, url: null });
  const products = [...(body.product ? [body.product] : []), ...(body.checkout?.lineItems ?? [])].map(byId);
  return {
    ok: true,
    event: {
      eventType: body.name,
      shopper: { email: shopperEmailOf('pixel', body), firstName: null, lastName: null },
      products,
      total: null,
      currency: null,
      time: timeText(body.timestamp, receivedAt),
      checkoutUrl: null,
      checkoutToken: clean(body.checkout?.token),
      completedAt: null,
      // The pixel's page may say any language; the shopper's comes from events the owner sends.
      locale: null,
    },
  };
}

/**
 * Where each kind of payload names the shopper's email, in the order it is read: the
 * first field that holds an address is the shopper's. A field that is absent, null, not
 * text, empty or only spaces holds none, and the next one is read: Shopify writes
 * `"email": ""` on a checkout or order whose contact field was left empty while
 * `customer.email` is set. Intake (its de-duplication and timer keys) and the normaliser
 * both read the email through `shopperEmailOf`, so they always agree on the shopper.
 *
 * - `shopify` (checkouts, orders, carts): `email`, then `contact_email`, then
 *   `customer.email`. `email` is a field of the REST resources `Order` and
 *   `AbandonedCheckout` of @shopify/shopify-api (rest/admin/2026-04, the shapes webhooks
 *   keep): the address given for this checkout or order, so it comes first. `customer`
 *   is a field of both, a `Customer` whose own `email` is the account's address: the one
 *   left when the contact field was empty. `contact_email` is declared by none of those
 *   resources; order webhooks have carried it beside `email`, so it is read between the
 *   two. Carts name no shopper (test/fixtures/shopify/carts-update.json).
 * - `generic` (the sample events, the console's test send): `properties.customer.email`
 *   (where the sample events put the shopper), `customer.email`, `properties.email`, `email`.
 * - `pixel` (the pixel's own body, pixelEventSchema): `customer.email` (the logged-in
 *   customer), then `checkout.email` (the address typed at checkout).
 */
export const shopperEmailFields = {
  shopify: [['email'], ['contact_email'], ['customer', 'email']],
  generic: [['properties', 'customer', 'email'], ['customer', 'email'], ['properties', 'email'], ['email']],
  pixel: [['customer', 'email'], ['checkout', 'email']],
} as const satisfies Record<string, ReadonlyArray<readonly string[]>>;

export type EmailPayloadKind = keyof typeof shopperEmailFields;

/** The first candidate that is text with something besides spaces, trimmed; null when none is. */
export function firstRealEmail(candidates: Iterable<unknown>): string | null {
  for (const candidate of candidates) {
    if (typeof candidate !== 'string') continue;
    const trimmed = candidate.trim();
    if (trimmed) return trimmed;
  }
  return null;
}

/**
 * The shopper's email in a payload of this kind (shopperEmailFields), as written, trimmed.
 * Reads any value, so intake may ask before the payload is validated.
 */
export function shopperEmailOf(kind: EmailPayloadKind, payload: unknown): string | null {
  return firstRealEmail(shopperEmailFields[kind].map((path) => memberAt(payload, path)));
}

function memberAt(value: unknown, path: readonly string[]): unknown {
  let at = value;
  for (const key of path) {
    if (typeof at !== 'object' || at === null || Array.isArray(at) || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** A BCP 47 tag as the shop sent it ("fr-CA", "pt_BR"); anything else is no locale. */
function localeOf(value: string | null | undefined): string | null {
  const tag = clean(value);
  return tag && /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$/.test(tag) ? tag : null;
}

/**
 * The token that ties a Shopify checkout to the order that completes it. Read loosely at
 * intake (before validation) to schedule and cancel abandonment timers.
 */
export function shopifyCheckoutToken(topic: string, payload: unknown): string | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const body = payload as Record<string, unknown>;
  const candidate = topic.startsWith('orders/') ? (body.checkout_token ?? body.cart_token) : topic.startsWith('checkouts/') ? (body.token ?? body.cart_token) : null;
  return typeof candidate === 'string' && candidate ? candidate : null;
}

function clean(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

function idText(value: string | number | null | undefined): string | null {
  return value === null || value === undefined ? null : clean(String(value));
}

function amountText(value: string | number | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'number' ? String(value) : clean(value);
}

function quantityNumber(value: string | number | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}

/** ISO 8601 from an ISO string or epoch (seconds or milliseconds); the receipt time when unreadable. */
function timeText(value: string | number | null | undefined, fallback: Date): string {
  if (value === null || value === undefined || value === '') return fallback.toISOString();
  const date = typeof value === 'number' ? new Date(value < 1e12 ? value * 1000 : value) : new Date(value);
  return Number.isNaN(date.getTime()) ? fallback.toISOString() : date.toISOString();
}

function describeProblems(error: z.ZodError): string {
  const problems = error.issues.slice(0, MAX_PROBLEMS_SHOWN).map((issue) => {
    const path = issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('').replace(/^\./, '');
    return `${path || 'body'}: ${issueText(issue)}`;
  });
  const more = error.issues.length > MAX_PROBLEMS_SHOWN ? ` (and ${error.issues.length - MAX_PROBLEMS_SHOWN} more)` : '';
  return `${problems.join('; ')}${more}`;
}

function issueText(issue: z.core.$ZodIssue): string {
  // Our own wording where a field has one; zod's generic one otherwise, reworded.
  if (issue.code === 'invalid_type' && issue.message.startsWith('Invalid input')) {
    const expected = { string: 'text', number: 'a number', object: 'an object', array: 'a list' }[issue.expected as string] ?? issue.expected;
    return `expected ${expected}`;
  }
  return issue.message;
}
