import { describe, expect, it } from 'vitest';
import { describePredictiveAnalytics, describeShopperHistory, shopperPartsNamedIn } from '../../src/server/engine/shop-facts/shopper-context.ts';
import { renderPrompt } from '../../src/server/engine/writing/prompt-rendering.ts';
import type { ShopperHistoryEvent } from '../../src/server/events/shopper-history-queries.ts';
import type { NormalizedEvent } from '../../src/shared/events/event-schemas.ts';

const now = new Date('2026-11-20T12:00:00Z');
const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000);
const product = (name: string) => ({ id: null, name, description: null, price: '10.00', quantity: 1, url: null });

function normalized(eventType: string, products: string[], fields: Partial<NormalizedEvent> = {}): NormalizedEvent {
  return {
    eventType,
    shopper: { email: 'ada@example.com', firstName: 'Ada', lastName: null },
    products: products.map(product),
    total: null,
    currency: 'EUR',
    time: now.toISOString(),
    checkoutUrl: null,
    checkoutToken: null,
    completedAt: null,
    ...fields,
  };
}

let sequence = 0;
function earlier(kind: 'order' | 'generic-order' | 'view' | 'cart' | 'checkout', days: number, products: string[], checkoutToken: string | null = null): ShopperHistoryEvent {
  sequence += 1;
  const receivedAt = daysAgo(days);
  const base = { id: `event-${sequence}`, receivedAt };
  switch (kind) {
    case 'order':
      return { ...base, source: 'shopify', topic: 'orders/create', flowType: 'post_purchase', normalized: normalized('orders/create', products, { time: receivedAt.toISOString(), checkoutToken }) };
    case 'generic-order':
      return { ...base, source: 'generic', topic: null, flowType: 'post_purchase', normalized: normalized('order_completed', products, { time: receivedAt.toISOString() }) };
    case 'view':
      return { ...base, source: 'pixel', topic: null, flowType: 'browser_abandonment', normalized: normalized('product_viewed', products) };
    case 'cart':
      return { ...base, source: 'pixel', topic: null, flowType: 'abandoned_cart', normalized: normalized('product_added_to_cart', products) };
    case 'checkout':
      return { ...base, source: 'shopify', topic: 'checkouts/update', flowType: 'abandoned_checkout', normalized: normalized('checkouts/update', products) };
  }
}

const current = { products: [product('Trail Runner 2')], receivedAt: now };

describe("the shopper's history in words", () => {
  it('writes to a shopper without history as new, every other placeholder empty', () => {
    expect(describeShopperHistory([], current)).toEqual({
      '{shopper_status}': 'new customer',
      '{order_count}': '0',
      '{last_order_date}': '',
      '{last_purchase}': '',
      '{viewed_products}': '',
    });
  });

  it('names a returning shopper\'s orders, the last one\'s date and what was in it', () => {
    const history = [earlier('order', 3, ['Wool Socks', 'Rain Jacket'], 'checkout-b'), earlier('generic-order', 40, ['Gift Card'])];
    expect(describeShopperHistory(history, current)).toMatchObject({
      '{shopper_status}': 'returning customer (2 earlier orders)',
      '{order_count}': '2',
      '{last_order_date}': daysAgo(3).toISOString().slice(0, 10),
      '{last_purchase}': 'Wool Socks; Rain Jacket',
    });
  });

  it('counts one order once when Shopify sent it twice (created and paid), and says "1 earlier order"', () => {
    const created = earlier('order', 5, ['Wool Socks'], 'checkout-a');
    const paid = { ...earlier('order', 5, ['Wool Socks'], 'checkout-a'), topic: 'orders/paid' };
    expect(describeShopperHistory([paid, created], current)['{shopper_status}']).toBe('returning customer (1 earlier order)');
  });

  it('lists what they looked at lately, newest first, without the event\'s own product, old views or checkouts', () => {
    const history = [earlier('view', 0.1, ['Rain Jacket']), earlier('cart', 1, ['Trail Runner 2', 'Trail Cap']), earlier('view', 2, ['rain jacket']), earlier('checkout', 2, ['Tent']), earlier('view', 9, ['Old Boots'])];
    expect(describeShopperHistory(history, current)['{viewed_products}']).toBe('Rain Jacket; Trail Cap');
  });
});

describe("Klaviyo's predictive figures in words", () => {
  it('are empty when the account has none or there is no profile', () => {
    const empty = { '{expected_next_order}': '', '{predicted_clv}': '', '{historic_clv}': '', '{churn_risk}': '' };
    expect(describePredictiveAnalytics(null)).toEqual(empty);
    expect(describePredictiveAnalytics({ historicClv: null, predictedClv: null, churnProbability: null, expectedDateOfNextOrder: null })).toEqual(empty);
  });

  it('give the money with two decimals, the churn risk as low, medium or high with its percentage, and the next order\'s date', () => {
    expect(describePredictiveAnalytics({ historicClv: 180.5, predictedClv: 240, churnProbability: 0.12, expectedDateOfNextOrder: '2026-12-12T00:00:00+00:00' })).toEqual({
      '{expected_next_order}': '2026-12-12',
      '{predicted_clv}': '240.00',
      '{historic_clv}': '180.50',
      '{churn_risk}': 'low (12 %)',
    });
    expect(describePredictiveAnalytics({ historicClv: 0, predictedClv: null, churnProbability: 0.8, expectedDateOfNextOrder: 'not a date' })['{churn_risk}']).toBe('high (80 %)');
  });
});

describe('the shopper in a prompt', () => {
  it('is read only for the parts the prompts name', () => {
    expect(shopperPartsNamedIn(['Write about {name}.', null])).toEqual({ history: false, predictive: false, recommendations: false });
    expect(shopperPartsNamedIn(['For a {shopper_status}', 'Fallback: {churn_risk}'])).toEqual({ history: true, predictive: true, recommendations: false });
  });

  it('puts the values in the data block, and a placeholder with nothing to say leaves the prompt readable', () => {
    const event = { ...normalized('checkouts/update', ['Trail Runner 2']), shopperContext: describeShopperHistory([earlier('order', 3, ['Wool Socks'])], current) };
    const rendered = renderPrompt('Write to a {shopper_status} who last bought {last_purchase}. {viewed_products}', event);
    expect(rendered.prompt).toContain('"shopper_status": "returning customer (1 earlier order)"');
    expect(rendered.prompt).toContain('"last_purchase": "Wool Socks"');
    expect(rendered.missing).toEqual(['{viewed_products}']);
    expect(rendered.prompt).not.toContain('{viewed_products}');
    // Without context (a flow that never asked), the same placeholders render empty.
    expect(renderPrompt('Hi {shopper_status}', normalized('checkouts/update', [])).missing).toEqual(['{shopper_status}']);
  });
});
