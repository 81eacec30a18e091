import { describe, expect, it } from 'vitest';
import { trimShopperDetails } from '../../src/server/intake/intake-details.ts';

/** What of a payload the intake stores (docs/decisions/0029-retention-and-account-deletion.md). */
describe('trimShopperDetails', () => {
  it('keeps a body without identifying members byte for byte', () => {
    const text = '{ "email": "a@example.com",  "total": 1.50, "id": 788032119674292922, "name": "Ann" }';
    expect(trimShopperDetails(text)).toBe(text);
  });

  it('drops phones, browser details and notes at any depth and in any case, and keeps only names in addresses', () => {
    const text =
      '{"id":788032119674292922,"total_price":"10.00","amount":1.50,"Phone":"+1","customer":{"email":"a@example.com","first_name":"Ann","default_address":{"first_name":"Ann","address1":"1 Road","zip":"1"}},' +
      '"addresses":[{"name":"Ann A","city":"X"}],"client_details":{"browser_ip":"1.2.3.4"},"line_items":[{"title":"Shoe","note":"gift","price":"5.00"}],"NOTE_ATTRIBUTES":[],"address":"1 Road"}';
    expect(JSON.parse(trimShopperDetails(text).replace('788032119674292922', '"788032119674292922"'))).toEqual({
      id: '788032119674292922',
      total_price: '10.00',
      amount: 1.5,
      customer: { email: 'a@example.com', first_name: 'Ann', default_address: { first_name: 'Ann' } },
      addresses: [{ name: 'Ann A' }],
      line_items: [{ title: 'Shoe', price: '5.00' }],
    });
    // Numbers keep the digits as sent: a 64-bit id stays exact, 1.50 stays 1.50.
    expect(trimShopperDetails(text)).toContain('"id":788032119674292922');
    expect(trimShopperDetails(text)).toContain('"amount":1.50');
  });

  it('keeps a body that is not JSON as it is', () => {
    const text = '{"phone": "+1 555", "email": ';
    expect(trimShopperDetails(text)).toBe(text);
  });

  it('leaves a value that only mentions a key alone', () => {
    const text = '{"message":"call my \\"phone\\": later"}';
    expect(trimShopperDetails(text)).toBe(text);
  });
});

describe('trimShopperDetails on hostile bodies', () => {
  // A refused body is stored trimmed too, so the trim must take any text: one nested far
  // deeper than any real payload is kept as sent (the recursive trim never sees it).
  it('keeps a body nested beyond the JSON bounds as it is instead of throwing', () => {
    const text = '{"email":"a@example.com","x":' + '['.repeat(200_000) + ']'.repeat(200_000) + '}';
    expect(trimShopperDetails(text)).toBe(text);
  });
});

describe('trimShopperDetails keeps what it does not take out', () => {
  // A member named __proto__ was assigned to a plain object, which set its prototype
  // instead, so the stored body silently lost that member.
  it('keeps a member named __proto__ as a member', () => {
    const text = '{"phone":"+1","__proto__":{"kept":true},"items":[{"__proto__":1,"note":"x"}]}';
    expect(JSON.parse(trimShopperDetails(text))).toEqual(JSON.parse('{"__proto__":{"kept":true},"items":[{"__proto__":1}]}'));
  });

  it('leaves untouched parts of the body as they were, in their order', () => {
    const text = '{"z":1,"a":{"b":[1,2,{"c":"d"}]},"phone":"+1","m":[{"note":"gift","k":2}],"e":null}';
    expect(trimShopperDetails(text)).toBe('{"z":1,"a":{"b":[1,2,{"c":"d"}]},"m":[{"k":2}],"e":null}');
  });
});
