import { describe, expect, it } from 'vitest';
import { flowFormSchema, toFormValues, toUpdateInput } from '../../src/web/flows/flow-form.ts';
import { defaultAssistant, type Flow } from '../../src/shared/flows/flow-schemas.ts';
import { flowValidationMessages as v } from '../../src/shared/flows/flow-messages.ts';

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
