import { beforeEach, describe, expect, it } from 'vitest';
import { defaultAssistants, ownerWithFlows, useEngineScenario, allStandIns } from '../support/engine-scenario.ts';
import { flowValidationMessages as v, textRuleMessages as t } from '../../src/shared/flows/flow-messages.ts';
import { defaultTextRules } from '../../src/shared/flows/text-rules-schemas.ts';
import { MAX_DISCOUNT_CODES, MAX_TEXT_LENGTH } from '../../src/shared/flows/text-rules.ts';
import { flowPlaceholderTokens, promptPlaceholderTokens } from '../../src/shared/flows/prompt-placeholders.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

// A flow's rules for its texts, checked before delivery (docs/decisions/0040-texts-checked-before-delivery.md).
const scenario = useEngineScenario({ standIns: allStandIns });
beforeEach(() => {
  scenario.testApp.clock.advance(61_000);
});

const db = () => scenario.testApp.database.pool;
const configuration = (extra: Record<string, unknown>) => ({ isActive: true, assistants: defaultAssistants, klaviyoEventName: null, ...extra });
const withFallback = (fallback: Record<string, unknown>) => [{ ...defaultAssistants[0]!, ...fallback }, defaultAssistants[1]!];

const rules = { ...defaultTextRules, discountCodes: ['WELCOME10', 'SPRING-25'], offersCoupon: true, bannedPhrases: ['cheap', 'act now'], language: 'de', onFailedChecks: 'nothing' };

describe('text rules', () => {
  it('saves and returns the rules and each assistant’s fallback and limit; a save without rules keeps them', async () => {
    const owner = await ownerWithFlows(scenario, {});
    const assistants = withFallback({ fallback_text: 'Your cart is waiting, {first_name}', max_length: 160 });
    const saved = await owner.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: configuration({ assistants, textRules: rules }) });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.json.flow.textRules).toEqual(rules);
    expect(saved.json.flow.assistants[0]).toMatchObject({ fallback_text: 'Your cart is waiting, {first_name}', max_length: 160 });
    expect(saved.json.flow.assistants[1]).toMatchObject({ fallback_text: null, max_length: null });

    const kept = await owner.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: configuration({ assistants }) });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.json.flow.textRules).toEqual(rules);

    const listed = (await owner.client.call(endpoints.flows.list)).json.flows as Array<{ flowType: string; textRules: unknown }>;
    expect(listed.find((flow) => flow.flowType === 'abandoned_cart')!.textRules).toEqual(rules);
    expect(listed.find((flow) => flow.flowType === 'post_purchase')!.textRules).toEqual(defaultTextRules);

    // Fields left out of the rules take their defaults; the lists are stored trimmed.
    const partial = await owner.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: configuration({ textRules: { discountCodes: ['  SUMMER5 '] } }) });
    expect(partial.status, partial.text).toBe(200);
    expect(partial.json.flow.textRules).toEqual({ ...defaultTextRules, discountCodes: ['SUMMER5'] });
  });

  it.each([
    [{ textRules: { language: 'xx' } }, 'textRules.language', t.languageChoice],
    [{ textRules: { onFailedChecks: 'later' } }, 'textRules.onFailedChecks', t.onFailedChecksChoice],
    [{ textRules: { discountCodes: ['WELCOME10', 'TEN OFF'] } }, 'textRules.discountCodes.1', t.discountCodeCharacters],
    [{ textRules: { discountCodes: Array.from({ length: MAX_DISCOUNT_CODES + 1 }, (_, index) => `CODE${index}`) } }, 'textRules.discountCodes', t.tooManyDiscountCodes(MAX_DISCOUNT_CODES)],
    [{ textRules: { discountCodes: ['WELCOME10', 'welcome10'] } }, 'textRules.discountCodes', t.discountCodeRepeated('welcome10')],
    [{ textRules: { bannedPhrases: ['cheap', 'free {gift'] } }, 'textRules.bannedPhrases.1', t.bannedPhrasePlaceholder],
    [{ assistants: withFallback({ fallback_text: 'Your {coupon} is waiting' }) }, 'assistants.0.fallback_text', v.unknownPlaceholders(['{coupon}'], promptPlaceholderTokens)],
    [
      { assistants: withFallback({ fallback_text: 'Finish your order: {checkout_url}' }) },
      'assistants.0.fallback_text',
      v.placeholdersNotFilled(['{checkout_url}'], 'Abandoned Cart', flowPlaceholderTokens.abandoned_cart),
    ],
    [{ assistants: withFallback({ fallback_text: 'Your cart is still waiting', max_length: 10 }) }, 'assistants.0.fallback_text', t.fallbackLongerThanLimit(10)],
    [{ assistants: withFallback({ max_length: 0 }) }, 'assistants.0.max_length', t.maxLengthRange(MAX_TEXT_LENGTH)],
    [{ assistants: withFallback({ max_length: 5000 }) }, 'assistants.0.max_length', t.maxLengthRange(MAX_TEXT_LENGTH)],
  ])('refuses %j with a 400 that says what is wrong', async (extra, field, message) => {
    const owner = await ownerWithFlows(scenario, {});
    const refused = await owner.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: configuration(extra) });
    expect(refused.status).toBe(400);
    expect(refused.json.fieldErrors[field]).toBe(message);
    const listed = (await owner.client.call(endpoints.flows.list)).json.flows.find((flow: { flowType: string }) => flow.flowType === 'abandoned_cart');
    expect(listed.textRules).toEqual(defaultTextRules);
  });

  it('reads a flow saved before the rules existed as the defaults', async () => {
    const owner = await ownerWithFlows(scenario, { abandoned_cart: {}, post_purchase: {} });
    await db().query(`UPDATE flows SET text_rules = '{}'::jsonb WHERE id = $1`, [owner.flows.abandoned_cart.id]);
    await db().query(`UPDATE flows SET text_rules = '{"bannedPhrases": ["cheap"]}'::jsonb WHERE id = $1`, [owner.flows.post_purchase.id]);

    const listed = (await owner.client.call(endpoints.flows.list)).json.flows as Array<{ flowType: string; textRules: unknown; assistants: unknown[] }>;
    const cart = listed.find((flow) => flow.flowType === 'abandoned_cart')!;
    expect(cart.textRules).toEqual(defaultTextRules);
    expect(cart.assistants[0]).toMatchObject({ fallback_text: null, max_length: null });
    expect(listed.find((flow) => flow.flowType === 'post_purchase')!.textRules).toEqual({ ...defaultTextRules, bannedPhrases: ['cheap'] });

    // Saved again without rules, it keeps reading as the defaults.
    const saved = await owner.client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: configuration({}) });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.json.flow.textRules).toEqual(defaultTextRules);
  });
});
