import { flowTypeDetails, type FlowType } from '../flows/flow-types.ts';

/**
 * A new test event id. Time first so ids sort as sent; the random tail keeps two sends
 * within one millisecond (or from two tabs) apart.
 */
export function newTestEventId(now: Date = new Date()): string {
  return `test_${now.getTime().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * The sample test event per flow (docs/product/specification.md §3), the console's
 * default payload. A fresh event_id each time, so sending it twice is two events rather
 * than one duplicate.
 */
export function sampleTestEvent(flowType: FlowType, now: Date = new Date(), eventId: string = newTestEventId(now)) {
  const timestamp = now.toISOString();
  const customer = { email: 'customer@example.com', first_name: 'John', last_name: 'Doe' };
  const product = { id: 'prod_123', name: 'Premium Wireless Headphones', price: 199.99, description: 'Noise-cancelling wireless headphones with 30-hour battery life' };
  const products = [{ ...product, quantity: 1 }];
  const shippingAddress = { address1: '123 Main St', city: 'New York', state: 'NY', zip: '10001', country: 'US' };
  const base = { event_id: eventId, event_type: flowTypeDetails[flowType].eventType, timestamp };
  switch (flowType) {
    case 'browser_abandonment':
      return { ...base, properties: { customer, product, page_url: 'https://example.com/products/premium-wireless-headphones', time_spent: 120 } };
    case 'abandoned_cart':
      return { ...base, properties: { customer, cart_id: 'cart_123', products, total: 199.99, currency: 'USD', abandoned_at: timestamp } };
    case 'abandoned_checkout':
      return {
        ...base,
        properties: { customer, checkout_id: 'checkout_123', products, shipping_address: shippingAddress, total: 199.99, currency: 'USD', abandoned_at: timestamp },
      };
    case 'post_purchase':
      return {
        ...base,
        properties: { customer, order_id: 'order_123', products, shipping_address: shippingAddress, total: 199.99, currency: 'USD', purchased_at: timestamp },
      };
  }
}

/**
 * The console's payload as the next send should carry it: the same JSON with a new
 * `event_id` and `timestamp`, since the server keeps an event_id once and a second send
 * of the same one is recorded as a duplicate, not processed. Anything that is not a JSON
 * object (an array, a bare value, invalid JSON) is returned as it was: there is no
 * event_id to renew, and the server says what it makes of it.
 */
export function withFreshEventIdentity(payloadText: string, now: Date = new Date(), eventId: string = newTestEventId(now)): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payloadText);
  } catch {
    return payloadText;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return payloadText;
  return JSON.stringify({ ...parsed, event_id: eventId, timestamp: now.toISOString() }, null, 2);
}
