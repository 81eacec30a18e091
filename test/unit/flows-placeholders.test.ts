import { describe, expect, it } from 'vitest';
import {
  fillPromptTemplate,
  insertAtCursor,
  placeholdersIn,
  promptPlaceholderTokens,
  unknownPlaceholdersIn,
} from '../../src/shared/flows/prompt-placeholders.ts';
import { assistantSchema, assistantsSchema } from '../../src/shared/flows/flow-schemas.ts';
import { flowValidationMessages as v } from '../../src/shared/flows/flow-messages.ts';
import { describeWait, splitWait, waitToMinutes } from '../../src/shared/flows/flow-wait.ts';

describe('prompt placeholders', () => {
  it("offers the event's placeholders, {checkout_url} and the shopper's", () => {
    expect(promptPlaceholderTokens).toEqual([
      '{description}',
      '{name}',
      '{price}',
      '{first_name}',
      '{product_url}',
      '{total}',
      '{currency}',
      '{products}',
      '{checkout_url}',
      '{shopper_status}',
      '{order_count}',
      '{last_order_date}',
      '{last_purchase}',
      '{viewed_products}',
      '{expected_next_order}',
      '{predicted_clv}',
      '{historic_clv}',
      '{churn_risk}',
      '{recommendations}',
    ]);
  });

  it('finds each placeholder once, in order, and leaves other braces alone', () => {
    expect(placeholdersIn('{name} costs {price}; again {name}. JSON {"a": 1} and { spaced } and {}')).toEqual(['{name}', '{price}']);
  });

  it('reports the placeholders the engine cannot fill, case-sensitively', () => {
    expect(unknownPlaceholdersIn('Hi {first_name}, {Name} for {coupon}')).toEqual(['{Name}', '{coupon}']);
    expect(unknownPlaceholdersIn('Write a subject line for {description}')).toEqual([]);
  });

  it('fills known placeholders, empties missing values and keeps unknown ones', () => {
    expect(fillPromptTemplate('{name} at {price} {currency} {other}', { '{name}': 'Mug', '{price}': '12.00' })).toBe('Mug at 12.00  {other}');
  });

  it.each([
    ['at the cursor', 'Hello world', 5, 5, { text: 'Hello{name} world', cursor: 11 }],
    ['replacing a selection', 'Hello world', 6, 11, { text: 'Hello {name}', cursor: 12 }],
    ['with a backwards selection', 'Hello world', 11, 6, { text: 'Hello {name}', cursor: 12 }],
    ['at the start', 'abc', 0, 0, { text: '{name}abc', cursor: 6 }],
    ['past the end', 'abc', 99, 99, { text: 'abc{name}', cursor: 9 }],
  ])('inserts %s', (_case, text, start, end, expected) => {
    expect(insertAtCursor(text, start, end, '{name}')).toEqual(expected);
  });
});

describe('assistant schema', () => {
  const valid = { name: 'Subject', klaviyo_property: 'subject_line1', prompt_template: 'For {name}' };

  it('refuses an unknown placeholder and names it', () => {
    const result = assistantSchema.safeParse({ ...valid, prompt_template: 'For {nmae}' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe(v.unknownPlaceholders(['{nmae}'], promptPlaceholderTokens));
    expect(result.error?.issues[0]?.message).toContain('{nmae}');
  });

  it.each([
    ['subject line 1', true],
    ['ai.subject-line_2', true],
    ['$email', false],
    ['subject/line', false],
    ['ümlaut', false],
    ['x'.repeat(100), true],
    ['x'.repeat(101), false],
  ])('property %s is %s', (klaviyo_property, ok) => {
    expect(assistantSchema.safeParse({ ...valid, klaviyo_property }).success).toBe(ok);
  });

  it.each(['abandoned_cart_variant', 'Post_Purchase_Experiment', 'browser_abandonment_variant', 'abandoned_checkout_experiment'])(
    'refuses %s, where a flow’s experiment writes the shopper’s group, whatever the case',
    (klaviyo_property) => {
      const result = assistantSchema.safeParse({ ...valid, klaviyo_property });
      expect(result.error?.issues.map((issue) => issue.message)).toEqual([v.klaviyoPropertyReserved(klaviyo_property)]);
    },
  );

  it('takes a property that only looks like an experiment’s', () => {
    expect(assistantSchema.safeParse({ ...valid, klaviyo_property: 'cart_variant' }).success).toBe(true);
    expect(assistantSchema.safeParse({ ...valid, klaviyo_property: 'abandoned_cart_variant_note' }).success).toBe(true);
  });

  it('refuses two assistants writing one property, whatever the case', () => {
    const result = assistantsSchema.safeParse([valid, { ...valid, name: 'Other', klaviyo_property: 'SUBJECT_LINE1' }]);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]).toMatchObject({ path: [1, 'klaviyo_property'], message: v.klaviyoPropertyDuplicate('SUBJECT_LINE1') });
  });
});

describe('wait units', () => {
  it.each([
    [0, { amount: 0, unit: 'minutes' }],
    [30, { amount: 30, unit: 'minutes' }],
    [90, { amount: 90, unit: 'minutes' }],
    [120, { amount: 2, unit: 'hours' }],
    [1440, { amount: 1, unit: 'days' }],
    [10_080, { amount: 7, unit: 'days' }],
  ] as const)('%i minutes read as %o and convert back', (minutes, expected) => {
    expect(splitWait(minutes)).toEqual(expected);
    expect(waitToMinutes(expected.amount, expected.unit)).toBe(minutes);
  });

  it.each([
    [0, '0 minutes'],
    [1, '1 minute'],
    [60, '1 hour'],
    [90, '90 minutes'],
    [2880, '2 days'],
  ])('describes %i minutes as %s', (minutes, text) => {
    expect(describeWait(minutes)).toBe(text);
  });
});
