import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../src/server/platform/json-text.ts';
import { normalizeEvent } from '../../src/server/engine/spine/event-normalizer.ts';
import { orderMoney } from '../../src/server/integrations/shopify/shopify-payload-money.ts';
import { packageFile } from '../contracts/type-schemas.ts';

/**
 * Shopify's webhook payloads (test/fixtures/shopify, see its README) held to the REST
 * resource definitions of the official @shopify/shopify-api package, and read by the
 * normaliser as the shopper saw them.
 */
const fixture = (name: string) => readFileSync(new URL(`../fixtures/shopify/${name}`, import.meta.url), 'utf8');
const parsed = (name: string) => parseJsonText(fixture(name)) as Record<string, unknown>;

/** The fields a REST resource class declares (`public total_price: string | null;`). */
function restFields(resource: string): Set<string> {
  const source = readFileSync(packageFile('@shopify/shopify-api', `rest/admin/2026-04/${resource}.ts`), 'utf8');
  return new Set([...source.matchAll(/^ {2}public (\w+): /gm)].map((match) => match[1]!));
}

/** Webhooks carry the GraphQL id beside the REST one; REST resources do not declare it. */
const webhookOnly = new Set(['admin_graphql_api_id']);

function membersOutside(value: Record<string, unknown>, fields: Set<string>): string[] {
  return Object.keys(value).filter((key) => !fields.has(key) && !webhookOnly.has(key));
}

describe("Shopify's payloads against the REST resource definitions", () => {
  it.each([
    ['orders-create.json', 'order'],
    ['checkouts-update.json', 'abandoned_checkout'],
  ])('%s has only the fields of its resource (%s), and its customer those of Customer', (name, resource) => {
    const fields = restFields(resource);
    expect(fields.size).toBeGreaterThan(20);
    const payload = parsed(name);
    expect(membersOutside(payload, fields)).toEqual([]);
    expect(membersOutside(payload.customer as Record<string, unknown>, restFields('customer'))).toEqual([]);
  });

  it('keeps 64-bit ids exactly', () => {
    const order = parsed('orders-create.json');
    expect(order.id).toBe('820982911946154508');
    expect((order.customer as { id: unknown }).id).toBe('115310627314723954');
    expect(((order.line_items as Array<{ product_id: unknown }>)[0]!).product_id).toBe('7513594839110826042');
  });
});

describe('the normaliser on Shopify payloads', () => {
  const receivedAt = new Date('2026-11-20T16:00:00Z');

  it("reads an order in the buyer's currency, and its shop money apart", () => {
    const order = parsed('orders-create.json');
    const result = normalizeEvent('shopify', 'orders/create', order, receivedAt);
    expect(result.ok && result.event).toMatchObject({
      shopper: { email: 'jon.buyer@example.com', firstName: 'Jon', lastName: 'Buyer' },
      products: [{ id: '7513594839110826042', name: 'Storm Shell', price: '174.72', quantity: 1 }],
      total: '183.96',
      currency: 'EUR',
      checkoutToken: 'bd5a8aa1ecd019dd3520ff791ee3a24c',
    });
    expect(orderMoney(order).shop).toEqual({ amount: '199.00', currency: 'USD' });
  });

  it("reads a checkout's prices as they are, in its presentment currency", () => {
    const result = normalizeEvent('shopify', 'checkouts/update', parsed('checkouts-update.json'), receivedAt);
    expect(result.ok && result.event).toMatchObject({ total: '174.72', currency: 'EUR', products: [{ price: '174.72' }], completedAt: null, checkoutToken: 'bd5a8aa1ecd019dd3520ff791ee3a24c' });
  });

  it('reads a cart, which names no shopper', () => {
    const result = normalizeEvent('shopify', 'carts/update', parsed('carts-update.json'), receivedAt);
    expect(result.ok && result.event).toMatchObject({ shopper: { email: null }, products: [{ id: '7513594839110826042', price: '174.72' }] });
  });
});
