import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { normalizeEvent, type NormalizeResult } from '../../src/server/engine/spine/event-normalizer.ts';
import { readIntakeDetails, readPixelIntakeDetails } from '../../src/server/intake/intake-details.ts';
import type { PixelEvent } from '../../src/shared/shopify-pixel/pixel-schemas.ts';
import { parseJsonText } from '../../src/server/platform/json-text.ts';
import { packageFile } from '../contracts/type-schemas.ts';

/**
 * Which field names the shopper's email, per kind of payload, read in one order by the
 * normaliser and by intake alike (shopperEmailFields in src/server/engine/spine/event-normalizer.ts):
 * the first field holding an address wins; absent, null, "" and whitespace hold none.
 *
 * - Shopify checkouts, orders and carts: `email`, `contact_email`, `customer.email`.
 *   `email` and `customer` are fields of @shopify/shopify-api's REST resources `Order` and
 *   `AbandonedCheckout` (rest/admin/2026-04), and `email` one of `Customer` (checked below).
 *   Shopify writes `"email": ""` when the contact field is empty and `customer.email` is set.
 * - Generic events (the sample events, sampleEvent in test/support/engine-scenario.ts, put the shopper in `properties.customer`):
 *   `properties.customer.email`, `customer.email`, `properties.email`, `email`.
 * - The pixel's body: `customer.email` (the logged-in customer), `checkout.email`.
 */
const receivedAt = new Date('2026-11-20T10:00:00.000Z');
const flow = { flowType: 'abandoned_checkout' as const, waitMinutes: 30 };

function emailOf(result: NormalizeResult): string | null {
  if (!result.ok) throw new Error(result.reason);
  return result.event.shopper.email;
}

const shopifyEmail = (topic: string, payload: Record<string, unknown>) => emailOf(normalizeEvent('shopify', topic, payload, receivedAt));
const shopifyKey = (topic: string, payload: Record<string, unknown>) => readIntakeDetails('shopify', { headers: { 'x-shopify-topic': topic }, payload }, flow, receivedAt).shopperEmail;
const genericEmail = (payload: Record<string, unknown>) => emailOf(normalizeEvent('generic', null, payload, receivedAt));
const genericKey = (payload: Record<string, unknown>) => readIntakeDetails('generic', { headers: {}, payload }, flow, receivedAt).shopperEmail;

/** The fields a REST resource class declares (`public email: string | null;`). */
function restFields(resource: string): Set<string> {
  const source = readFileSync(packageFile('@shopify/shopify-api', `rest/admin/2026-04/${resource}.ts`), 'utf8');
  return new Set([...source.matchAll(/^ {2}public (\w+): /gm)].map((match) => match[1]!));
}

describe("the Shopify payload's email fields", () => {
  const customer = { email: 'account@example.com', first_name: 'Jon' };
  const cases: Array<[Record<string, unknown>, string | null]> = [
    [{ email: 'given@example.com', contact_email: 'contact@example.com', customer }, 'given@example.com'],
    [{ email: '', contact_email: 'contact@example.com', customer }, 'contact@example.com'],
    [{ email: '', customer }, 'account@example.com'],
    [{ email: '   ', contact_email: ' \t', customer }, 'account@example.com'],
    [{ email: null, customer }, 'account@example.com'],
    [{ email: '', contact_email: '', customer: { email: ' ' } }, null],
  ];

  it.each(['checkouts/update', 'orders/create', 'carts/update'])('are read as email, contact_email, customer.email, skipping empty ones, for %s', (topic) => {
    // The order's fields as Shopify's REST resources declare them (contact_email is not among them).
    for (const resource of ['order', 'abandoned_checkout']) expect([...restFields(resource)]).toEqual(expect.arrayContaining(['email', 'customer']));
    expect(restFields('customer').has('email')).toBe(true);
    expect(cases.map(([payload]) => shopifyEmail(topic, payload))).toEqual(cases.map(([, expected]) => expected));
    expect(cases.map(([payload]) => shopifyKey(topic, payload))).toEqual(cases.map(([, expected]) => expected));
  });

  it.each([
    ['checkouts-update.json', 'checkouts/update'],
    ['orders-create.json', 'orders/create'],
  ])("reads the customer's address from Shopify's sample %s with an empty email", (name, topic) => {
    const text = readFileSync(new URL(`../fixtures/shopify/${name}`, import.meta.url), 'utf8').replace('"email": "jon.buyer@example.com"', '"email": ""');
    const payload = parseJsonText(text) as Record<string, unknown> & { customer: { email: string } };
    expect([payload.email, payload.customer.email]).toEqual(['', 'jon.buyer@example.com']);
    expect(shopifyEmail(topic, payload)).toBe('jon.buyer@example.com');
    expect(shopifyKey(topic, payload)).toBe('jon.buyer@example.com');
  });
});

describe("a generic event's email fields", () => {
  it('are read as properties.customer.email, customer.email, properties.email, email, skipping empty ones', () => {
    const all = { properties: { customer: { email: 'a@example.com' }, email: 'c@example.com' }, customer: { email: 'b@example.com' }, email: 'd@example.com' };
    const cases: Array<[Record<string, unknown>, string | null]> = [
      [all, 'a@example.com'],
      [{ ...all, properties: { ...all.properties, customer: { email: '' } } }, 'b@example.com'],
      [{ ...all, properties: { ...all.properties, customer: { email: ' ' } }, customer: { email: '' } }, 'c@example.com'],
      [{ properties: { customer: { first_name: 'Ada' }, email: '' }, customer: null, email: 'd@example.com' }, 'd@example.com'],
      [{ properties: { customer: { email: '' }, email: '' }, customer: { email: '' }, email: '  ' }, null],
    ];
    expect(cases.map(([payload]) => genericEmail(payload))).toEqual(cases.map(([, expected]) => expected));
    expect(cases.map(([payload]) => genericKey(payload))).toEqual(cases.map(([, expected]) => expected));
  });
});

describe("the pixel's email fields", () => {
  const pixel = (customer: string | null, checkout: string | null) => ({
    name: 'checkout_started' as const,
    id: 'evt-1',
    timestamp: '2026-11-20T09:00:00.000Z',
    customer: customer === null ? null : { email: customer },
    checkout: { token: 'tok', email: checkout },
  });

  it("are read as customer.email, checkout.email, skipping empty ones", () => {
    const cases: Array<[ReturnType<typeof pixel>, string | null]> = [
      [pixel('known@example.com', 'typed@example.com'), 'known@example.com'],
      [pixel('', 'typed@example.com'), 'typed@example.com'],
      [pixel(null, 'typed@example.com'), 'typed@example.com'],
      [pixel(' ', ''), null],
    ];
    expect(cases.map(([body]) => emailOf(normalizeEvent('pixel', null, body, receivedAt)))).toEqual(cases.map(([, expected]) => expected));
    const keys = cases.map(([body]) => readPixelIntakeDetails(body as PixelEvent, { flowType: 'abandoned_checkout', waitMinutes: 30 }, receivedAt).shopperEmail);
    expect(keys).toEqual(cases.map(([, expected]) => expected));
  });
});
