import { describe, expect, it } from 'vitest';
import { formErrorFor, listLineProblem, toFormValues, toUpdateInput } from '../../src/web/flows/flow-form.ts';
import { flowFormSchema } from '../../src/web/flows/flow-form-checks.ts';
import { defaultAssistant, defaultRecommendationSettings, updateFlowSchema, type Flow } from '../../src/shared/flows/flow-schemas.ts';
import { MAX_RECOMMENDATIONS } from '../../src/shared/flows/recommendation-options.ts';
import { defaultTextRules, type TextRules } from '../../src/shared/flows/text-rules-schemas.ts';
import { MAX_DISCOUNT_CODES, MAX_TEXT_LENGTH } from '../../src/shared/flows/text-rules.ts';
import { flowValidationMessages as v, textRuleMessages as t } from '../../src/shared/flows/flow-messages.ts';
import { flowPlaceholderTokens, promptPlaceholderTokens } from '../../src/shared/flows/prompt-placeholders.ts';

const flow: Flow = {
  id: 'abc',
  flowType: 'abandoned_cart',
  isActive: true,
  webhookUrl: null,
  generatedWebhookUrl: 'http://localhost/api/webhooks/abandoned_cart/abc',
  webhookUrlOutdated: false,
  assistants: [defaultAssistant],
  waitMinutes: 120,
  klaviyoEventName: null,
  shopperCooldownHours: 24,
  dailyGenerationCap: 2000,
  useFlexTier: true,
  reuseWindowHours: 24,
  dailyBudgetUsd: null,
  overBudget: 'wait',
  textRules: defaultTextRules,
  recommendations: defaultRecommendationSettings,
  previousWebhookUrlValidUntil: null,
  updatedAt: new Date(0).toISOString(),
};

describe('the configuration form', () => {
  it('shows the wait in its largest exact unit and sends it back in minutes', () => {
    const values = toFormValues(flow);
    expect(values).toMatchObject({ waitAmount: '2', waitUnit: 'hours', klaviyoEventName: '', assistants: [{ model: '', instructions: '' }] });
    const parsed = flowFormSchema(true, 'abandoned_cart').parse({ ...values, waitAmount: '3', waitUnit: 'days' });
    expect(toUpdateInput(parsed, true)).toEqual({
      isActive: true,
      assistants: [defaultAssistant],
      waitMinutes: 4320,
      klaviyoEventName: null,
      shopperCooldownHours: 24,
      dailyGenerationCap: 2000,
      useFlexTier: true,
      reuseWindowHours: 24,
      dailyBudgetUsd: null,
      overBudget: 'wait',
      textRules: defaultTextRules,
      recommendations: defaultRecommendationSettings,
    });
  });

  it('takes a budget in dollars, blank for none, with the API’s messages', () => {
    const values = toFormValues({ ...flow, dailyBudgetUsd: 7.5, overBudget: 'skip' });
    expect(values).toMatchObject({ dailyBudgetUsd: '7.50', overBudget: 'skip' });
    expect(toUpdateInput(flowFormSchema(true, 'abandoned_cart').parse({ ...values, dailyBudgetUsd: '$12' }), true)).toMatchObject({ dailyBudgetUsd: 12, overBudget: 'skip' });
    expect(toUpdateInput(flowFormSchema(true, 'abandoned_cart').parse({ ...values, dailyBudgetUsd: ' ' }), true)).toMatchObject({ dailyBudgetUsd: null });
    for (const typed of ['0', '1.234', 'ten', '-3']) {
      const result = flowFormSchema(true, 'abandoned_cart').safeParse({ ...values, dailyBudgetUsd: typed });
      expect(result.success, typed).toBe(false);
      expect(result.error!.issues[0]!.message, typed).toMatch(/Daily budget must be/);
    }
  });

  it('leaves the wait out for post purchase', () => {
    const parsed = flowFormSchema(false, 'post_purchase').parse({ ...toFormValues({ ...flow, flowType: 'post_purchase', waitMinutes: null }) });
    expect(toUpdateInput(parsed, false)).not.toHaveProperty('waitMinutes');
  });

  it.each([
    ['8', 'days', v.waitRange],
    ['169', 'hours', v.waitRange],
    ['-1', 'minutes', v.waitRange],
    ['1.5', 'hours', v.waitWholeNumber],
    ['', 'minutes', v.waitWholeNumber],
  ])('refuses a wait of %s %s', (waitAmount, waitUnit, message) => {
    const result = flowFormSchema(true, 'abandoned_cart').safeParse({ ...toFormValues(flow), waitAmount, waitUnit });
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([expect.objectContaining({ path: ['waitAmount'], message })]);
  });

  it('accepts 7 days exactly', () => {
    expect(flowFormSchema(true, 'abandoned_cart').safeParse({ ...toFormValues(flow), waitAmount: '7', waitUnit: 'days' }).success).toBe(true);
  });
});

describe('the limits in the configuration form', () => {
  it('shows the stored limits and sends what the owner typed as numbers', () => {
    const values = toFormValues(flow);
    expect(values).toMatchObject({ shopperCooldownHours: '24', dailyGenerationCap: '2000' });
    const parsed = flowFormSchema(true, 'abandoned_cart').parse({ ...values, shopperCooldownHours: ' 0 ', dailyGenerationCap: '1000000' });
    expect(toUpdateInput(parsed, true)).toMatchObject({ shopperCooldownHours: 0, dailyGenerationCap: 1_000_000 });
  });

  it.each([
    ['shopperCooldownHours', '721', v.shopperCooldownRange(720)],
    ['shopperCooldownHours', '-1', v.shopperCooldownRange(720)],
    ['shopperCooldownHours', '2.5', v.shopperCooldownWholeNumber],
    ['shopperCooldownHours', '', v.shopperCooldownWholeNumber],
    ['dailyGenerationCap', '0', v.dailyGenerationCapRange(1_000_000)],
    ['dailyGenerationCap', '1000001', v.dailyGenerationCapRange(1_000_000)],
    ['dailyGenerationCap', 'many', v.dailyGenerationCapWholeNumber],
  ])('refuses %s = %j with the server\'s message', (field, typed, message) => {
    const result = flowFormSchema(true, 'abandoned_cart').safeParse({ ...toFormValues(flow), [field]: typed });
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([expect.objectContaining({ path: [field], message })]);
  });

  it('words the ranges plainly', () => {
    expect(v.shopperCooldownRange(720)).toBe('Hours between texts for one shopper must be between 0 (no limit) and 720');
    expect(v.dailyGenerationCapRange(1_000_000)).toBe('Events a day must be between 1 and 1,000,000');
  });
});

describe('the text rules in the configuration form', () => {
  const rules: TextRules = {
    ...defaultTextRules,
    discountCodes: ['WELCOME10', 'SPRING-25'],
    offersCoupon: true,
    bannedPhrases: ['cheap', 'act now'],
    language: 'de',
    onFailedChecks: 'nothing',
  };
  const checked = { ...flow, textRules: rules, assistants: [{ ...defaultAssistant, fallback_text: 'Your cart is waiting, {first_name}', max_length: 160 }] };
  const schema = flowFormSchema(true, 'abandoned_cart');
  const refusal = (values: ReturnType<typeof toFormValues>) => {
    const result = schema.safeParse(values);
    expect(result.success).toBe(false);
    return result.error!.issues.map((issue) => ({ path: issue.path, message: issue.message }));
  };

  it('shows each list one entry a line and sends the rules and the assistant’s fallback and limit back as they were', () => {
    const values = toFormValues(checked);
    expect(values.textRules).toMatchObject({ discountCodes: 'WELCOME10\nSPRING-25', offersCoupon: true, bannedPhrases: 'cheap\nact now', language: 'de', onFailedChecks: 'nothing' });
    expect(values.assistants[0]).toMatchObject({ fallback_text: 'Your cart is waiting, {first_name}', max_length: '160' });
    const input = toUpdateInput(schema.parse(values), true);
    expect(input.textRules).toEqual(rules);
    expect(input.assistants).toEqual(checked.assistants);
    // What the form sends, the API takes.
    expect(updateFlowSchema.safeParse(input).success).toBe(true);
  });

  it('shows a flow without rules as the defaults, and reads blank lines, spaces and a blank limit as nothing', () => {
    const values = toFormValues(flow);
    expect(values.textRules).toMatchObject({ discountCodes: '', offersCoupon: false, bannedPhrases: '', language: 'shopper', onFailedChecks: 'fallback' });
    expect(values.assistants[0]).toMatchObject({ fallback_text: '', max_length: '' });
    const typed = {
      ...values,
      textRules: { ...values.textRules, discountCodes: '  WELCOME10\n\n SPRING-25 \r\n', bannedPhrases: '\n  act now  \n' },
      assistants: [{ ...values.assistants[0]!, fallback_text: '   ', max_length: ' ' }],
    };
    const input = toUpdateInput(schema.parse(typed), true);
    expect(input.textRules).toEqual({ ...defaultTextRules, discountCodes: ['WELCOME10', 'SPRING-25'], bannedPhrases: ['act now'] });
    expect(input.assistants).toEqual([defaultAssistant]);
  });

  it('keeps the approval settings it does not show, so a save from the form leaves them as they were', () => {
    const approving = { ...checked, textRules: { ...rules, requireApproval: true, autoApproveAfter: 5 } };
    expect(toUpdateInput(schema.parse(toFormValues(approving)), true).textRules).toEqual(approving.textRules);
  });

  it('refuses a discount code with a space, naming it, with the API’s message', () => {
    const values = toFormValues(checked);
    expect(refusal({ ...values, textRules: { ...values.textRules, discountCodes: 'WELCOME10\nTEN OFF' } })).toEqual([
      { path: ['textRules', 'discountCodes'], message: listLineProblem('TEN OFF', t.discountCodeCharacters) },
    ]);
  });

  it('refuses a banned word listed twice in any case, and one with a brace', () => {
    const values = toFormValues(checked);
    expect(refusal({ ...values, textRules: { ...values.textRules, bannedPhrases: 'cheap\nact now\nCheap' } })).toEqual([
      { path: ['textRules', 'bannedPhrases'], message: t.bannedPhraseRepeated('Cheap') },
    ]);
    expect(refusal({ ...values, textRules: { ...values.textRules, bannedPhrases: 'cheap\n{first_name}' } })).toEqual([
      { path: ['textRules', 'bannedPhrases'], message: listLineProblem('{first_name}', t.bannedPhrasePlaceholder) },
    ]);
  });

  it('refuses more discount codes than a flow may list', () => {
    const values = toFormValues(checked);
    const codes = Array.from({ length: MAX_DISCOUNT_CODES + 1 }, (_, index) => `CODE${index}`).join('\n');
    expect(refusal({ ...values, textRules: { ...values.textRules, discountCodes: codes } })).toEqual([{ path: ['textRules', 'discountCodes'], message: t.tooManyDiscountCodes(MAX_DISCOUNT_CODES) }]);
  });

  it('refuses a language it does not offer and a choice other than fallback or nothing', () => {
    const values = toFormValues(checked);
    expect(refusal({ ...values, textRules: { ...values.textRules, language: 'xx' } })).toEqual([{ path: ['textRules', 'language'], message: t.languageChoice }]);
    expect(refusal({ ...values, textRules: { ...values.textRules, onFailedChecks: 'later' as 'nothing' } })).toEqual([
      { path: ['textRules', 'onFailedChecks'], message: t.onFailedChecksChoice },
    ]);
  });

  it('refuses an unknown placeholder in a fallback text, and one this flow never fills', () => {
    const values = toFormValues(checked);
    const withFallback = (fallback_text: string) => ({ ...values, assistants: [{ ...values.assistants[0]!, fallback_text }] });
    expect(refusal(withFallback('Your {coupon} is waiting'))).toEqual([{ path: ['assistants', 0, 'fallback_text'], message: v.unknownPlaceholders(['{coupon}'], promptPlaceholderTokens) }]);
    expect(refusal(withFallback('Finish at {checkout_url}'))).toEqual([
      { path: ['assistants', 0, 'fallback_text'], message: v.placeholdersNotFilled(['{checkout_url}'], 'Abandoned Cart', flowPlaceholderTokens.abandoned_cart) },
    ]);
  });

  it('refuses a fallback text longer than the assistant’s own limit', () => {
    const values = toFormValues(checked);
    expect(refusal({ ...values, assistants: [{ ...values.assistants[0]!, fallback_text: 'Your cart is still waiting', max_length: '10' }] })).toEqual([
      { path: ['assistants', 0, 'fallback_text'], message: t.fallbackLongerThanLimit(10) },
    ]);
  });

  it.each(['0', '4001', '1.5', '-3', 'many'])('refuses a limit of %j characters with the API’s message', (max_length) => {
    const values = toFormValues(checked);
    expect(refusal({ ...values, assistants: [{ ...values.assistants[0]!, max_length }] })).toContainEqual({ path: ['assistants', 0, 'max_length'], message: t.maxLengthRange(MAX_TEXT_LENGTH) });
  });

  it('puts the server’s errors under their fields, naming a refused line of a list', () => {
    const sent = toUpdateInput(schema.parse(toFormValues(checked)), true);
    expect(formErrorFor('textRules.discountCodes.1', t.discountCodeCharacters, sent)).toEqual({ field: 'textRules.discountCodes', message: listLineProblem('SPRING-25', t.discountCodeCharacters) });
    expect(formErrorFor('textRules.bannedPhrases', t.bannedPhraseRepeated('cheap'), sent)).toEqual({ field: 'textRules.bannedPhrases', message: t.bannedPhraseRepeated('cheap') });
    expect(formErrorFor('textRules.language', t.languageChoice, sent)).toEqual({ field: 'textRules.language', message: t.languageChoice });
    expect(formErrorFor('assistants.0.max_length', t.maxLengthRange(MAX_TEXT_LENGTH), sent)).toEqual({ field: 'assistants.0.max_length', message: t.maxLengthRange(MAX_TEXT_LENGTH) });
    expect(formErrorFor('waitMinutes', v.waitRange, sent)).toEqual({ field: 'waitAmount', message: v.waitRange });
  });
});

describe('the recommendations in the configuration form', () => {
  const schema = flowFormSchema(true, 'abandoned_cart');
  const withRecommendations = (recommendations: Partial<ReturnType<typeof toFormValues>['recommendations']>) => {
    const values = toFormValues(flow);
    return { ...values, recommendations: { ...values.recommendations, ...recommendations } };
  };
  const refusal = (values: ReturnType<typeof toFormValues>) => {
    const result = schema.safeParse(values);
    expect(result.success).toBe(false);
    return result.error!.issues.map((issue) => ({ path: issue.path, message: issue.message }));
  };

  it('shows a flow without settings as the defaults, with a blank property, and sends them back as they were', () => {
    const values = toFormValues(flow);
    expect(values.recommendations).toEqual({ intent: 'related', count: String(defaultRecommendationSettings.count), profileProperty: '' });
    expect(toUpdateInput(schema.parse(values), true).recommendations).toEqual(defaultRecommendationSettings);
  });

  it('round-trips the intent, the count and the property, and the API takes what the form sends', () => {
    const stored = { ...flow, recommendations: { intent: 'complementary' as const, count: 2, profileProperty: 'pair_with' } };
    const values = toFormValues(stored);
    expect(values.recommendations).toEqual({ intent: 'complementary', count: '2', profileProperty: 'pair_with' });
    const input = toUpdateInput(schema.parse(values), true);
    expect(input.recommendations).toEqual(stored.recommendations);
    expect(updateFlowSchema.safeParse(input).success).toBe(true);
  });

  it('reads a property of spaces as none, and trims a typed one', () => {
    expect(toUpdateInput(schema.parse(withRecommendations({ profileProperty: '   ' })), true).recommendations).toMatchObject({ profileProperty: null });
    expect(toUpdateInput(schema.parse(withRecommendations({ profileProperty: ' pair_with ', count: ' 4 ' })), true).recommendations).toMatchObject({ profileProperty: 'pair_with', count: 4 });
  });

  it.each(['1', String(MAX_RECOMMENDATIONS)])('accepts %s recommendations', (count) => {
    expect(schema.safeParse(withRecommendations({ count })).success).toBe(true);
  });

  it.each(['0', String(MAX_RECOMMENDATIONS + 1), '-1', '2.5', '', 'three'])('refuses %j recommendations with the API’s message', (count) => {
    expect(refusal(withRecommendations({ count }))).toEqual([{ path: ['recommendations', 'count'], message: v.recommendationCount(MAX_RECOMMENDATIONS) }]);
  });

  it('refuses an intent Shopify does not have', () => {
    expect(refusal(withRecommendations({ intent: 'similar' as 'related' }))).toEqual([{ path: ['recommendations', 'intent'], message: v.recommendationIntentChoice }]);
  });

  it('refuses a property an assistant of the flow writes, as the API does and where the API puts it', () => {
    const taken = defaultAssistant.klaviyo_property;
    expect(refusal(withRecommendations({ profileProperty: taken }))).toEqual([{ path: ['recommendations', 'profileProperty'], message: v.recommendationPropertyTaken(taken) }]);
    const apiResult = updateFlowSchema.safeParse({ ...toUpdateInput(schema.parse(toFormValues(flow)), true), recommendations: { ...defaultRecommendationSettings, profileProperty: taken } });
    expect(apiResult.error?.issues).toEqual([expect.objectContaining({ path: ['recommendations', 'profileProperty'], message: v.recommendationPropertyTaken(taken) })]);
  });

  it('refuses a property Klaviyo reserves, with the rules of every property', () => {
    expect(refusal(withRecommendations({ profileProperty: '$recommended' }))).toContainEqual({ path: ['recommendations', 'profileProperty'], message: v.klaviyoPropertyDollar });
  });

  it('puts the server’s errors on the recommendations under their fields', () => {
    const sent = toUpdateInput(schema.parse(toFormValues(flow)), true);
    expect(formErrorFor('recommendations.profileProperty', v.recommendationPropertyTaken('x'), sent)).toEqual({ field: 'recommendations.profileProperty', message: v.recommendationPropertyTaken('x') });
  });
});
