import { describe, expect, it } from 'vitest';
import { checkText, parseAmount, type TextFacts, type TextRules } from '../../src/server/text-checks/text-checks.ts';
import type { NormalizedEvent } from '../../src/shared/events/event-schemas.ts';
import { textCheckMessages as m } from '../../src/shared/text-checks/text-check-messages.ts';

/** A cart of two mugs at 24.50 and a lamp at 89.00, in euros, at shop.example. */
const event: NormalizedEvent = {
  eventType: 'cart_abandoned',
  shopper: { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' },
  products: [
    { id: 'mug-1', name: 'Stoneware Mug XR500', description: 'A mug', price: '24.50', quantity: 2, url: 'https://shop.example/products/mug' },
    { id: 'lamp-1', name: 'Reading Lamp', description: null, price: '89.00', quantity: 1, url: 'https://cdn.partner.example/lamp' },
  ],
  total: '138.00',
  currency: 'EUR',
  time: '2031-03-01T10:00:00Z',
  checkoutUrl: 'https://checkout.payments.example/c/abc123',
  checkoutToken: 'abc123',
  completedAt: null,
};
const facts: TextFacts = { event, shopDomains: ['shop.example', 'my-shop.myshopify.com'] };
const rules: TextRules = { maxLength: 300, allowedCodes: [], couponPlaceholderAllowed: false, bannedPhrases: [], endedAtOutputLimit: false };

const failuresOf = (text: string, changes: Partial<TextRules> = {}, factChanges: Partial<TextFacts> = {}) =>
  checkText(text, { ...facts, ...factChanges }, { ...rules, ...changes }).map(({ check, found }) => [check, found]);

describe('checks on a written text', () => {
  it('passes a clean text unchanged, with nothing to say', () => {
    expect(checkText('Ada, your Stoneware Mug XR500 is still waiting for you. Finish your order of €138.00 here: https://shop.example/cart.', facts, rules)).toEqual([]);
  });

  describe('prices and amounts', () => {
    it("passes each price, each line's amount and the total, however the shop's number is written", () => {
      for (const text of ['Only €24.50 each.', 'Two mugs for €49.00.', 'Lamp: 89,00 € today.', 'Your total is EUR 138.00.', 'All yours for 138 EUR.', 'The lamp, 89 €.']) {
        expect(failuresOf(text), text).toEqual([]);
      }
    });

    it('fails an amount the event does not state, such as an invented saving', () => {
      expect(checkText('Save €10.00 on your mugs today.', facts, rules)).toEqual([{ check: 'amounts', found: '€10.00', reason: m.amountUnknown('€10.00') }]);
    });

    it("fails a price in another currency than the event's, even when the number is right", () => {
      expect(checkText('The lamp is $89.00.', facts, rules)).toEqual([{ check: 'amounts', found: '$89.00', reason: m.amountOtherCurrency('$89.00', 'EUR') }]);
      expect(failuresOf('The lamp is 89.00 USD.')).toEqual([['amounts', '89.00 USD']]);
    });

    it('accepts a sign that may stand for the event’s currency ($ for Canadian dollars, kr for Swedish kronor)', () => {
      expect(failuresOf('Only $24.50.', {}, { event: { ...event, currency: 'CAD' } })).toEqual([]);
      expect(failuresOf('Bara 24,50 kr.', {}, { event: { ...event, currency: 'SEK' } })).toEqual([]);
      expect(failuresOf('マグは2,450円です。', {}, { event: { ...event, currency: 'JPY', total: '2450' } })).toEqual([]);
      expect(failuresOf('マグは2,500円です。', {}, { event: { ...event, currency: 'JPY', total: '2450' } })).toEqual([['amounts', '2,500円']]);
    });

    it('does not take percentages, counts or times for amounts', () => {
      expect(failuresOf('Only 3 left, 20% of shoppers bought 2 more by 10:30.')).toEqual([]);
    });

    it('reads both decimal conventions', () => {
      expect([parseAmount('1,234.56'), parseAmount('1.234,56'), parseAmount('1 234,56'), parseAmount('49'), parseAmount('49.9'), parseAmount('1,234')]).toEqual([1234.56, 1234.56, 1234.56, 49, 49.9, 1234]);
    });
  });

  describe('discount codes', () => {
    it('fails a code the flow does not offer, written as codes are or named as one', () => {
      expect(failuresOf('Use SAVE20 at checkout.')).toEqual([['discount_codes', 'SAVE20']]);
      expect(failuresOf('Use code WELCOME for a treat.')).toEqual([['discount_codes', 'WELCOME']]);
      expect(failuresOf('Enter code: "10OFF".')).toEqual([['discount_codes', '10OFF']]);
    });

    it("passes the owner's own code in any case, and words of the event's products", () => {
      expect(failuresOf('Use code welcome10 at checkout.', { allowedCodes: ['WELCOME10'] })).toEqual([]);
      expect(failuresOf('Your XR500 mug is waiting.')).toEqual([]);
      expect(failuresOf('Prices in EUR, as always.')).toEqual([]);
    });

    it("passes a Klaviyo coupon placeholder only when the flow offers a coupon", () => {
      const text = "Here is your code: {% coupon_code 'SPRING' %}";
      expect(checkText(text, facts, rules)).toEqual([{ check: 'discount_codes', found: "{% coupon_code 'SPRING' %}", reason: m.couponNotOffered }]);
      expect(failuresOf(text, { couponPlaceholderAllowed: true })).toEqual([]);
    });
  });

  describe('links', () => {
    it("passes the shop's own domains (any page, any subdomain) and the event's own addresses", () => {
      expect(failuresOf('See https://shop.example/collections/all or www.shop.example, https://my-shop.myshopify.com/cart and https://checkout.payments.example/c/abc123.')).toEqual([]);
      expect(failuresOf('The lamp: https://cdn.partner.example/lamp')).toEqual([]);
    });

    it('fails a link anywhere else, including another page of an event address’s host', () => {
      expect(failuresOf('Compare at https://competitor.example/deals.')).toEqual([['links', 'https://competitor.example/deals']]);
      expect(failuresOf('More at https://cdn.partner.example/other')).toEqual([['links', 'https://cdn.partner.example/other']]);
      expect(failuresOf('Visit www.elsewhere.example today')).toEqual([['links', 'www.elsewhere.example']]);
      expect(failuresOf('A lookalike: https://shop.example.evil.example/cart')).toEqual([['links', 'https://shop.example.evil.example/cart']]);
    });

    it('finds an address written without http or www, but not an e-mail address or a dotted word', () => {
      expect(failuresOf('Better deals at deals.rival.com/sale today.')).toEqual([['links', 'deals.rival.com/sale']]);
      expect(failuresOf('Shop at my-shop.myshopify.com.')).toEqual([]);
      expect(failuresOf('Questions? Write to help@rival.com, e.g. today; built with Node.js.')).toEqual([]);
    });

    it('does not read the numbers of a link as prices', () => {
      expect(failuresOf('https://shop.example/products/mug?price=99.00EUR')).toEqual([]);
    });
  });

  describe('length and a complete text', () => {
    it('fails a text longer than the limit, counted in characters as a reader sees them', () => {
      expect(failuresOf('Ü'.repeat(20), { maxLength: 20 })).toEqual([]);
      expect(failuresOf('Ü'.repeat(21), { maxLength: 20 })).toEqual([['length', '21']]);
    });

    it('fails a text OpenAI stopped at its output limit', () => {
      expect(failuresOf('Your mugs are waiting.', { endedAtOutputLimit: true }).map(([check]) => check)).toEqual(['cut_off']);
    });

    it('fails a text that ends mid-sentence, and passes a subject line without a full stop', () => {
      for (const text of ['Your mugs are waiting and', 'Come back for your mugs,', 'Your mugs (and the lamp', 'She said “come back']) {
        expect(failuresOf(text).map(([check]) => check), text).toEqual(['cut_off']);
      }
      expect(failuresOf('Your mugs miss you')).toEqual([]);
      expect(failuresOf('Still thinking it over? 🛒')).toEqual([]);
    });
  });

  describe("the owner's banned words", () => {
    it('fails a banned word or phrase as a whole word, in any case and spacing', () => {
      expect(checkText('This is a CHEAP   deal.', facts, { ...rules, bannedPhrases: ['cheap deal'] })).toEqual([
        { check: 'banned_phrases', found: 'CHEAP   deal', reason: m.banned('cheap deal') },
      ]);
      expect(failuresOf('Günstig!', { bannedPhrases: ['günstig'] })).toEqual([['banned_phrases', 'Günstig']]);
    });

    it('does not match inside another word', () => {
      expect(failuresOf('A cheapskate would not.', { bannedPhrases: ['cheap'] })).toEqual([]);
    });
  });

  it('reports every failure of a text, not only the first', () => {
    expect(failuresOf('Save €5.00 with SAVE20 at https://other.example', { bannedPhrases: ['save'] }).map(([check]) => check).sort()).toEqual([
      'amounts',
      'banned_phrases',
      'discount_codes',
      'links',
    ]);
  });
});
