import { describe, expect, it } from 'vitest';
import { ownedProducts, recommendationsInWords } from '../../src/server/engine/shop-facts/shop-recommendations.ts';
import { withRecommendedProducts } from '../../src/server/engine/checking/text-checking.ts';
import { renderPrompt, type EventToWrite } from '../../src/server/engine/writing/prompt-rendering.ts';
import { checkText } from '../../src/server/text-checks/text-checks.ts';
import { productNameCandidates } from '../../src/server/text-checks/product-names.ts';
import { contextCharactersOf, contextCostOf, CHARACTERS_PER_TOKEN } from '../../src/server/engine/writing/context-cost.ts';
import { shopperPartsNamedIn } from '../../src/server/engine/shop-facts/shopper-context.ts';
import { updateFlowSchema, defaultAssistant, recommendationSettingsSchema } from '../../src/shared/flows/flow-schemas.ts';
import { flowValidationMessages } from '../../src/shared/flows/flow-messages.ts';
import type { RecommendedProduct } from '../../src/shared/flows/recommendation-schemas.ts';
import { MAX_RECOMMENDATIONS } from '../../src/shared/flows/recommendation-options.ts';
import { priceOf } from '../../src/server/integrations/openai/openai-prices.ts';
import { profilePropertiesWritten } from '../../src/server/flows/flow-properties.ts';

const beanie: RecommendedProduct = { title: 'Alpine Merino Beanie', url: 'https://shop.example/products/alpine-merino-beanie', image: null, price: '34.00', currency: 'EUR' };
const mug: RecommendedProduct = { title: 'Basecamp Camping Mug', url: 'https://shop.example/products/basecamp-camping-mug', image: null, price: '14.00', currency: 'EUR' };

const event: EventToWrite = {
  eventType: 'checkout_abandoned',
  shopper: { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' },
  products: [{ id: '9900000000000003', name: 'Summit Down Jacket', description: 'Warm.', price: '229.00', quantity: 1, url: 'https://shop.example/products/summit-down-jacket' }],
  total: '229.00',
  currency: 'EUR',
  time: '2026-11-20T12:00:00.000Z',
  checkoutUrl: null,
  checkoutToken: null,
  completedAt: null,
};

const rules = { maxLength: 1000, allowedCodes: [], couponPlaceholderAllowed: false, bannedPhrases: [], endedAtOutputLimit: false };

describe('recommendations in the prompt', () => {
  it('reads as titles with their prices, and is empty when there are none', () => {
    expect(recommendationsInWords([beanie, mug])).toBe('Alpine Merino Beanie (34.00 EUR); Basecamp Camping Mug (14.00 EUR)');
    expect(recommendationsInWords([{ ...beanie, currency: null }])).toBe('Alpine Merino Beanie (34.00)');
    expect(recommendationsInWords([])).toBe('');
  });

  it('fills {recommendations} in the shop data, and drops it from a prompt with none', () => {
    const template = 'Remind them of {name}; suggest {recommendations}.';
    const filled = renderPrompt(template, { ...event, shopperContext: { '{recommendations}': recommendationsInWords([beanie]) } });
    expect(filled.prompt).toContain('"recommendations": "Alpine Merino Beanie (34.00 EUR)"');
    const empty = renderPrompt(template, { ...event, shopperContext: { '{recommendations}': '' } });
    expect(empty.prompt).not.toContain('recommendations');
    expect(empty.missing).toEqual(['{recommendations}']);
  });

  it('is asked for only when a prompt names it', () => {
    expect(shopperPartsNamedIn(['Write about {name}', null])).toEqual({ history: false, predictive: false, recommendations: false });
    expect(shopperPartsNamedIn(['Pair {name} with {recommendations}'])).toEqual({ history: false, predictive: false, recommendations: true });
  });

  it("knows the shopper's own products by Shopify id and by title, whatever the id's form", () => {
    const owned = ownedProducts([
      { id: 'gid://shopify/Product/9900000000000003', name: 'Summit Down Jacket', description: null, price: null, quantity: 1, url: null },
      { id: '42', name: ' Trail Socks ', description: null, price: null, quantity: 1, url: null },
      { id: 'sku-7', name: null, description: null, price: null, quantity: 1, url: null },
    ]);
    expect([...owned.gids].sort()).toEqual(['gid://shopify/Product/42', 'gid://shopify/Product/9900000000000003']);
    expect([...owned.names].sort()).toEqual(['summit down jacket', 'trail socks']);
  });
});

describe('texts checked with the recommendations', () => {
  it("accepts a recommended product's name and price, and still refuses an invented product and price", () => {
    const checked = withRecommendedProducts({ ...event, recommendations: [beanie, mug] });
    expect(checkText('Keep warm: the Alpine Merino Beanie is €34.00.', { event: checked, shopDomains: ['shop.example'] }, rules)).toEqual([]);
    const invented = checkText('Add the beanie for €35.00.', { event: checked, shopDomains: ['shop.example'] }, rules);
    expect(invented.map((failure) => failure.check)).toEqual(['amounts']);
    // Without the recommendations the same true price is refused: the check is what accepts it.
    expect(checkText('Keep warm: the Alpine Merino Beanie is €34.00.', { event, shopDomains: ['shop.example'] }, rules).map((failure) => failure.check)).toEqual(['amounts']);

    const known = { productNames: checked.products.flatMap((product) => (product.name ? [product.name] : [])), otherNames: ['Ada'] };
    expect(productNameCandidates('Ada, pair your Summit Down Jacket with the Alpine Merino Beanie.', known)).toEqual([]);
    expect(productNameCandidates('Ada, pair your Summit Down Jacket with the Glacier Ice Axe.', known)).toEqual(['Glacier Ice Axe']);
  });

  it("leaves out a recommended price in another currency than the event's, and changes nothing without recommendations", () => {
    const checked = withRecommendedProducts({ ...event, recommendations: [{ ...beanie, currency: 'USD' }] });
    expect(checked.products.at(-1)).toMatchObject({ name: 'Alpine Merino Beanie', price: null });
    expect(withRecommendedProducts({ ...event, recommendations: [] }).products).toEqual(event.products);
  });
});

describe("the context's cost", () => {
  const prompt = renderPrompt('Write to a {shopper_status} about {name}; suggest {recommendations}.', {
    ...event,
    shopperContext: { '{shopper_status}': 'returning customer (3 earlier orders)', '{recommendations}': 'Alpine Merino Beanie (34.00 EUR)' },
  }).prompt;

  it('counts the context placeholders and their values, and nothing of the event', () => {
    const expected =
      '{shopper_status}'.length +
      '{recommendations}'.length +
      ['shopper_status', 'returning customer (3 earlier orders)'].reduce((sum, part) => sum + JSON.stringify(part).length, 0) +
      5 +
      ['recommendations', 'Alpine Merino Beanie (34.00 EUR)'].reduce((sum, part) => sum + JSON.stringify(part).length, 0) +
      5;
    expect(contextCharactersOf(prompt)).toBe(expected);
    expect(contextCharactersOf(renderPrompt('Write about {name}.', event).prompt)).toBe(0);
  });

  it('is per event and priced at the model input price', () => {
    const cost = contextCostOf([
      { eventId: 'a', model: 'gpt-5.1', prompt },
      { eventId: 'a', model: 'gpt-5.1', prompt },
      { eventId: 'b', model: 'gpt-5.1', prompt },
    ])!;
    const tokens = contextCharactersOf(prompt) / CHARACTERS_PER_TOKEN;
    expect(cost.events).toBe(2);
    expect(cost.tokensPerEvent).toBeCloseTo((3 * tokens) / 2, 9);
    expect(cost.usdPerEvent).toBeCloseTo(((3 * tokens) / 2) * (priceOf('gpt-5.1').inputPerMillion / 1_000_000), 12);
    expect(contextCostOf([])).toBeNull();
  });
});

describe('the flow setting', () => {
  it('defaults to a few related products offered to the prompts only, and bounds the count', () => {
    expect(recommendationSettingsSchema.parse({})).toEqual({ intent: 'related', count: 3, profileProperty: null });
    expect(recommendationSettingsSchema.safeParse({ count: MAX_RECOMMENDATIONS + 1 }).error?.issues[0]?.message).toBe(flowValidationMessages.recommendationCount(MAX_RECOMMENDATIONS));
    expect(recommendationSettingsSchema.safeParse({ intent: 'popular' }).error?.issues[0]?.message).toBe(flowValidationMessages.recommendationIntentChoice);
  });

  it("refuses a profile property an assistant already writes", () => {
    const input = { isActive: true, assistants: [defaultAssistant], klaviyoEventName: null, recommendations: { profileProperty: defaultAssistant.klaviyo_property } };
    const refused = updateFlowSchema.safeParse(input);
    expect(refused.error?.issues[0]).toMatchObject({ path: ['recommendations', 'profileProperty'], message: flowValidationMessages.recommendationPropertyTaken(defaultAssistant.klaviyo_property) });
    expect(updateFlowSchema.safeParse({ ...input, recommendations: { profileProperty: 'recommended_products' } }).success).toBe(true);
  });
});

describe('the properties a flow writes', () => {
  it('are its assistants\' and, where it names one, the recommendations list: what a holdout delivery and an erasure clear', () => {
    const flow = { assistants: [{ ...defaultAssistant, klaviyo_property: 'subject_line1' }], recommendations: { intent: 'related' as const, count: 3, profileProperty: null } };
    expect(profilePropertiesWritten(flow)).toEqual(['subject_line1']);
    expect(profilePropertiesWritten({ ...flow, recommendations: { ...flow.recommendations, profileProperty: 'recommended_products' } })).toEqual(['subject_line1', 'recommended_products']);
  });
});
