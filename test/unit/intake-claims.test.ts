import { describe, expect, it } from 'vitest';
import { claimedSource, readIntakeDetails, timeOf } from '../../src/server/intake/intake-details.ts';

/** The rules intake applies before anything reads a request (docs/decisions/0013-who-may-send-what.md). */
describe('the source a request claims', () => {
  it('is Shopify for any X-Shopify- header, empty or repeated, and generic otherwise', () => {
    // Node gives header names lower-cased and joins repeated ones with ", ".
    for (const headers of [
      { 'x-shopify-topic': 'orders/create' },
      { 'x-shopify-topic': '' },
      { 'x-shopify-hmac-sha256': '' },
      { 'x-shopify-shop-domain': 'shop.myshopify.com' },
      { 'x-shopify-event-id': 'e1' },
      { 'x-shopify-topic': 'orders/create, orders/paid' },
      { 'X-Shopify-Topic': 'orders/create' },
      { 'x-flowsmith-source': 'test', 'x-shopify-topic': 'orders/create' },
    ]) {
      expect(claimedSource(headers), JSON.stringify(headers)).toBe('shopify');
    }
    for (const headers of [{}, { 'x-flowsmith-source': 'test' }, { 'x-flowsmith-signature': 't=1,v1=00' }, { 'x-shopifytopic': 'orders/create' }]) {
      expect(claimedSource(headers), JSON.stringify(headers)).toBe('generic');
    }
  });

  it('makes a test event only when the caller says so, never from a header', () => {
    const flow = { flowType: 'post_purchase' as const, waitMinutes: null };
    const receivedAt = new Date('2026-11-23T12:00:00Z');
    expect(readIntakeDetails('generic', { headers: { 'x-flowsmith-source': 'test' }, payload: { event_id: 'e1' } }, flow, receivedAt).source).toBe('generic');
    expect(readIntakeDetails('test', { headers: {}, payload: { event_id: 'e1' } }, flow, receivedAt).source).toBe('test');
  });
});

describe('a payload time', () => {
  const receivedAt = new Date('2026-11-23T12:00:00Z');
  it('counts from 2000 to a day after receipt, in ISO text or epoch seconds or milliseconds', () => {
    expect(timeOf('2000-01-01T00:00:00.000Z', receivedAt)?.toISOString()).toBe('2000-01-01T00:00:00.000Z');
    expect(timeOf('2026-11-24T11:59:59Z', receivedAt)?.toISOString()).toBe('2026-11-24T11:59:59.000Z');
    expect(timeOf(1_700_000_000, receivedAt)?.toISOString()).toBe('2023-11-14T22:13:20.000Z');
    expect(timeOf(1_700_000_000_000, receivedAt)?.toISOString()).toBe('2023-11-14T22:13:20.000Z');
  });

  it('is absent when it is before 2000, over a day ahead, not a date, or not a time at all', () => {
    for (const value of ['1999-12-31T23:59:59.999Z', '-271821-04-20T00:00:00.000Z', '+275760-09-13T00:00:00.000Z', '2026-11-24T12:00:01Z', -8.64e15, 8.64e15, 1e300, Number.NaN, 'soon', '', ' ', 'x'.repeat(41), null, {}, []]) {
      expect(timeOf(value, receivedAt), String(value)).toBeNull();
    }
  });
});
