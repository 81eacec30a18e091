import { describe, expect, it } from 'vitest';
import { checkProductNames, namesMatch, productNameCandidates, type KnownNames } from '../../src/server/text-checks/product-names.ts';
import { textCheckMessages as m } from '../../src/shared/text-checks/text-check-messages.ts';

/** A cart of a jacket, a mug and a lamp, for Ada Lovelace at Alpine Outfitters. */
const known: KnownNames = {
  productNames: ['Alpine Trail Jacket – Blue', 'Stoneware Mug XR500', 'Reading Lamp'],
  otherNames: ['Ada', 'Lovelace', 'Alpine Outfitters'],
};
const candidatesIn = (text: string) => productNameCandidates(text, known);

describe("a product's name matching a known one", () => {
  it('ignores case, accents, punctuation and a plural, and takes a shortened name or one with a word more', () => {
    expect(namesMatch('the Alpine Jacket', 'Alpine Trail Jacket – Blue')).toBe(true);
    expect(namesMatch('CREME DE LA MER', 'Crème de la Mer')).toBe(true);
    expect(namesMatch('Reading Lamps', 'Reading Lamp')).toBe(true);
    expect(namesMatch('Stoneware Mug XR500 Gift Set', 'Stoneware Mug XR500')).toBe(true);
  });

  it('does not take a name that shares only a word', () => {
    expect(namesMatch('Trail Runner', 'Alpine Trail Jacket – Blue')).toBe(false);
    expect(namesMatch('Nordic Lamp', 'Reading Lamp')).toBe(false);
  });
});

describe('phrases of a text that name a product', () => {
  it("passes the event's products however the text shortens or inflects them", () => {
    for (const text of [
      'Hi Ada, the Alpine Jacket you picked is almost sold out.',
      'Ada, your Stoneware Mug XR500 is still waiting for you.',
      'Ada, the Reading Lamps are flying off the shelves.',
      'Sichere Dir jetzt Deine Alpine Trail Jacket, bevor sie ausverkauft ist.',
      'Pair your “Reading Lamp” with a good book.',
    ]) {
      expect(candidatesIn(text), text).toEqual([]);
    }
  });

  it('finds a product named mid-sentence or in quotes that matches none of them', () => {
    expect(candidatesIn('Ada, your Stoneware Mug XR500 pairs well with our Nordic Saucer Set.')).toEqual(['Nordic Saucer Set']);
    expect(candidatesIn('Try the “Aurora” candle with your Reading Lamp.')).toEqual(['Aurora']);
    expect(candidatesIn('Black Friday deals on the Nordic Saucer Set start Monday.')).toEqual(['Nordic Saucer Set']);
    expect(candidatesIn('Your Salt & Pepper Grinder is waiting.')).toEqual(['Salt & Pepper Grinder']);
    expect(candidatesIn('Shop the Lord of the Rings Collection today.')).toEqual(['Lord of the Rings']);
  });

  it('names two products joined by "and" one by one, and lists each once', () => {
    expect(candidatesIn('Pair it with the Trail Runner 2 Shoes and the Summit Pack for your next hike.')).toEqual(['Trail Runner 2 Shoes', 'Summit Pack']);
    expect(candidatesIn('Complete your order: Nordic Saucer Set, Aurora Candle and Pine Soap. The Nordic Saucer Set sells fast.')).toEqual(['Nordic Saucer Set', 'Aurora Candle', 'Pine Soap']);
  });

  it('gives at most five', () => {
    const text = 'Also see our Nordic Lamp, Aurora Candle, Pine Soap, Summit Pack, Trail Runner Shoes and Cedar Tray.';
    expect(candidatesIn(text)).toEqual(['Nordic Lamp', 'Aurora Candle', 'Pine Soap', 'Summit Pack', 'Trail Runner Shoes']);
  });

  it('never takes a subject line or headline in Title Case, only what it quotes', () => {
    expect(candidatesIn('Your Cart Misses You')).toEqual([]);
    expect(candidatesIn('Still Thinking About the Nordic Lamp?')).toEqual([]);
    expect(candidatesIn("Don't Miss Out")).toEqual([]);
    expect(candidatesIn('New in: Merino Socks')).toEqual([]);
    expect(candidatesIn('Your “Nordic Lamp” Is Waiting')).toEqual(['Nordic Lamp']);
  });

  it('never takes sale words, holidays, weekdays, months, places or pages of the shop for products', () => {
    for (const text of [
      'Free Shipping on everything this Cyber Monday, plus our New Arrivals and Best Sellers.',
      'Happy Holidays and a Happy New Year from all of us!',
      'Treat yourself this Mother’s Day with a little something from us.',
      'Enjoy 10% off until Monday, March 3, or ask our Customer Service team.',
      'Made in Portugal, loved in New York, shipped across the United States.',
      'Pay with Apple Pay or Shop Pay at checkout.',
      'Everything “Black Friday” is here.',
    ]) {
      expect(candidatesIn(text), text).toEqual([]);
    }
  });

  it("never takes the shopper's or the shop's name, a sentence's first word, or German nouns after a pronoun", () => {
    expect(candidatesIn('With love from the Alpine Outfitters Team, Ada Lovelace.')).toEqual([]);
    expect(candidatesIn('Ada’s Nordic Lamp is waiting.')).toEqual(['Nordic Lamp']);
    expect(candidatesIn('🛒 ÁDA LOVELACE, your Nordic Lamp awaits.')).toEqual(['Nordic Lamp']);
    // "Nordic Lamp" opens the sentence: its first word is capitalised whatever it is.
    expect(candidatesIn('Nordic Lamp is back.')).toEqual([]);
    expect(candidatesIn('Dein Warenkorb wartet. Kostenloser Versand für Deine Bestellung Nr. 1234 bis Sonntag. Frohe Weihnachten und Guten Rutsch!')).toEqual([]);
  });

  it('does not take speech, emphasis or a discount code in quotes for a name', () => {
    expect(candidatesIn('She said “Come back soon”.')).toEqual([]);
    expect(candidatesIn('Our “cozy” blanket is back.')).toEqual([]);
    expect(candidatesIn('Use code "SAVE20" at checkout.')).toEqual([]);
    // An amount in quotes (a prompt's data echoed back) is the amounts check's, not a name.
    expect(candidatesIn('Only "89.5" today, "2 × 12" in all.')).toEqual([]);
  });

  it('reads no names in placeholders or links', () => {
    expect(candidatesIn("Hi {{ first_name }}, use {% coupon_code 'Nordic Lamp' %} at https://shop.example/Products/Nordic-Lamp")).toEqual([]);
  });
});

describe('failing the unknown products', () => {
  it('fails each phrase with its reason', () => {
    expect(checkProductNames(['Nordic Saucer Set', 'Aurora'])).toEqual([
      { check: 'products', found: 'Nordic Saucer Set', reason: m.productUnknown('Nordic Saucer Set') },
      { check: 'products', found: 'Aurora', reason: m.productUnknown('Aurora') },
    ]);
    expect(checkProductNames([])).toEqual([]);
  });
});
