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
  updatedAt: new Date(0).toISOString(),
};

describe('the configuration form', () => {
  it('shows the wait in its largest exact unit and sends it back in minutes', () => {
    const values = toFormValues(flow);
    expect(values).toMatchObject({ waitAmount: '2', waitUnit: 'hours', klaviyoEventName: '', assistants: [{ model: '', instructions: '' }] });
    const parsed = flowFormSchema(true).parse({ ...values, waitAmount: '3', waitUnit: 'days' });
    expect(toUpdateInput(parsed, true)).toEqual({
      isActive: true,
      assistants: [defaultAssistant],
      waitMinutes: 4320,
      klaviyoEventName: null,
    });
  });

  it('leaves the wait out for post purchase', () => {
    const parsed = flowFormSchema(false).parse({ ...toFormValues({ ...flow, flowType: 'post_purchase', waitMinutes: null }) });
    expect(toUpdateInput(parsed, false)).not.toHaveProperty('waitMinutes');
  });

  it.each([
    ['8', 'days', v.waitRange],
    ['169', 'hours', v.waitRange],
    ['-1', 'minutes', v.waitRange],
    ['1.5', 'hours', v.waitWholeNumber],
    ['', 'minutes', v.waitWholeNumber],
  ])('refuses a wait of %s %s', (waitAmount, waitUnit, message) => {
    const result = flowFormSchema(true).safeParse({ ...toFormValues(flow), waitAmount, waitUnit });
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([expect.objectContaining({ path: ['waitAmount'], message })]);
  });

  it('accepts 7 days exactly', () => {
    expect(flowFormSchema(true).safeParse({ ...toFormValues(flow), waitAmount: '7', waitUnit: 'days' }).success).toBe(true);
  });
});
