import { describe, expect, it } from 'vitest';
import { awkwardTraitsOf, klaviyoLookupTag, klaviyoPropertyWarnings, klaviyoTagMessages as m, LONG_KLAVIYO_PROPERTY } from '../../src/shared/flows/klaviyo-property-tags.ts';
import { flowPlaceholderTokens, placeholdersNotFilledIn, placeholdersOfFlow, promptPlaceholderTokens } from '../../src/shared/flows/prompt-placeholders.ts';
import { placeholderProblemsOf } from '../../src/shared/flows/flow-schemas.ts';
import { flowValidationMessages as v } from '../../src/shared/flows/flow-messages.ts';
import { flowTypes } from '../../src/shared/flows/flow-types.ts';
import { newTestEventId, sampleTestEvent, withFreshEventIdentity } from '../../src/shared/webhooks/sample-events.ts';

describe('the placeholders each flow offers', () => {
  it("offers only what the flow's events can fill", () => {
    const shopper = ['{shopper_status}', '{order_count}', '{last_order_date}', '{last_purchase}', '{viewed_products}', '{expected_next_order}', '{predicted_clv}', '{historic_clv}', '{churn_risk}', '{recommendations}'];
    expect(flowPlaceholderTokens.browser_abandonment).toEqual(['{description}', '{name}', '{price}', '{first_name}', '{product_url}', '{currency}', ...shopper]);
    expect(flowPlaceholderTokens.abandoned_cart).toEqual(expect.arrayContaining(shopper));
    expect(flowPlaceholderTokens.abandoned_cart).not.toContain('{checkout_url}');
    expect(flowPlaceholderTokens.abandoned_cart).toEqual(expect.arrayContaining(['{total}', '{currency}', '{products}']));
    expect(flowPlaceholderTokens.abandoned_checkout).toEqual(promptPlaceholderTokens);
    expect(flowPlaceholderTokens.post_purchase).toEqual(promptPlaceholderTokens);
  });

  it("keeps the specification's three everywhere, in the full list's order, with labels that fit the flow", () => {
    for (const flowType of flowTypes) {
      const tokens = placeholdersOfFlow(flowType).map((placeholder) => placeholder.token);
      expect(tokens.slice(0, 3)).toEqual(['{description}', '{name}', '{price}']);
      expect(tokens).toEqual(promptPlaceholderTokens.filter((token) => tokens.includes(token as never)));
    }
    expect(placeholdersOfFlow('post_purchase').find((placeholder) => placeholder.token === '{checkout_url}')?.label).toBe("Link to the order's status page");
    expect(placeholdersOfFlow('abandoned_checkout').find((placeholder) => placeholder.token === '{checkout_url}')?.label).toBe('Link back to the checkout');
  });

  it('finds the known placeholders a flow never fills, leaving unknown ones to their own message', () => {
    expect(placeholdersNotFilledIn('About {name}: {total} {currency}, {products} {checkout_url} {coupon}', 'browser_abandonment')).toEqual(['{total}', '{products}', '{checkout_url}']);
    expect(placeholdersNotFilledIn('Back to {checkout_url}', 'abandoned_cart')).toEqual(['{checkout_url}']);
    expect(placeholdersNotFilledIn('Back to {checkout_url}', 'abandoned_checkout')).toEqual([]);
    expect(placeholderProblemsOf('abandoned_cart', [{ prompt_template: 'Fine {name}' }, { prompt_template: 'See {checkout_url}' }])).toEqual([
      { index: 1, field: 'prompt_template', message: v.placeholdersNotFilled(['{checkout_url}'], 'Abandoned Cart', flowPlaceholderTokens.abandoned_cart) },
    ]);
    // A fallback text is filled in like the prompt, so it is held to the same placeholders.
    expect(placeholderProblemsOf('abandoned_cart', [{ prompt_template: 'Fine {name}', fallback_text: 'Finish at {checkout_url}' }])).toEqual([
      { index: 0, field: 'fallback_text', message: v.placeholdersNotFilled(['{checkout_url}'], 'Abandoned Cart', flowPlaceholderTokens.abandoned_cart) },
    ]);
  });
});

describe('Klaviyo template tags', () => {
  it('reads any allowed name with the lookup tag', () => {
    expect(klaviyoLookupTag('subject_line1')).toBe("{{ person|lookup:'subject_line1' }}");
    expect(klaviyoLookupTag(' AI body.text ')).toBe("{{ person|lookup:'AI body.text' }}");
  });

  it('says nothing of a plain identifier', () => {
    for (const name of ['subject_line1', 'SubjectLine', 'a', `p${'x'.repeat(LONG_KLAVIYO_PROPERTY - 1)}`]) expect(klaviyoPropertyWarnings(name)).toEqual([]);
  });

  it('names what keeps {{ person.<name> }} from working', () => {
    expect(awkwardTraitsOf('subject line')).toEqual(['spaces']);
    expect(awkwardTraitsOf('subject-line')).toEqual(['hyphens']);
    expect(awkwardTraitsOf('ai.body')).toEqual(['dots']);
    expect(awkwardTraitsOf('1st_line')).toEqual(['leading digit']);
    expect(awkwardTraitsOf('_hidden')).toEqual(['leading underscore']);
    expect(awkwardTraitsOf('café')).toEqual(['other characters']);
    expect(klaviyoPropertyWarnings('AI subject-line')).toEqual([
      `"AI subject-line" has spaces and hyphens, so Klaviyo can read it only with the tag above, not as {{ person.AI subject-line }}. A name of letters, digits and underscores, such as subject_line1, works both ways.`,
    ]);
  });

  it('warns of a very long name', () => {
    expect(klaviyoPropertyWarnings('x'.repeat(LONG_KLAVIYO_PROPERTY + 1))).toEqual([m.long(LONG_KLAVIYO_PROPERTY)]);
  });
});

describe("the console's test events", () => {
  it('gives each send its own event_id and the time of sending, keeping the rest as typed', () => {
    const sample = JSON.stringify(sampleTestEvent('abandoned_cart', new Date('2026-01-01T00:00:00Z'), 'test_fixed'));
    const now = new Date('2026-11-25T03:00:00Z');
    const first = JSON.parse(withFreshEventIdentity(sample, now));
    const second = JSON.parse(withFreshEventIdentity(sample, now));
    expect(first.event_id).toMatch(/^test_/);
    expect(first.event_id).not.toBe(second.event_id);
    expect(first.timestamp).toBe(now.toISOString());
    expect({ ...first, event_id: 'x', timestamp: 'y' }).toEqual({ ...JSON.parse(sample), event_id: 'x', timestamp: 'y' });
    expect(newTestEventId(now)).not.toBe(newTestEventId(now));
  });

  it('leaves anything that is not a JSON object as it was', () => {
    for (const text of ['[1, 2]', '"text"', '{"broken": ', '42']) expect(withFreshEventIdentity(text)).toBe(text);
  });
});
