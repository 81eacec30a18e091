import { describe, expect, it } from 'vitest';
import { experimentSetupSchema } from '../../src/shared/experiments/experiment-schemas.ts';
import { experimentMessages } from '../../src/shared/experiments/experiment-messages.ts';

/** What the experiment's set-up accepts of an objective and of an arm's shopper context (docs/decisions/0043-experiments.md). */
const arms = [{ prompts: { subject: 'Write a subject line about {products}' } }, { prompts: { subject: 'Write a short subject line about {products}' } }];

function refusal(body: unknown): { path: string; message: string } | null {
  const parsed = experimentSetupSchema.safeParse(body);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0]!;
  return { path: issue.path.join('.'), message: issue.message };
}

describe('the objective of an experiment', () => {
  it('is conversion unless chosen, and every arm uses the shopper context unless told', () => {
    const parsed = experimentSetupSchema.parse({ arms });
    expect(parsed).toMatchObject({ objective: 'conversion', objectiveCurrency: null });
    expect(parsed.arms.map((arm) => arm.shopperContext)).toEqual([true, true]);
    expect(experimentSetupSchema.parse({ arms: [arms[0], { ...arms[1], shopperContext: false }] }).arms[1]!.shopperContext).toBe(false);
  });

  it('takes revenue per exposure in a currency', () => {
    expect(experimentSetupSchema.parse({ arms, objective: 'revenue_per_exposure', objectiveCurrency: 'EUR' })).toMatchObject({ objective: 'revenue_per_exposure', objectiveCurrency: 'EUR' });
  });

  it.each([
    [{ objective: 'revenue_per_exposure' }, 'objectiveCurrency', experimentMessages.currencyRequired],
    [{ objective: 'revenue_per_exposure', objectiveCurrency: null }, 'objectiveCurrency', experimentMessages.currencyRequired],
    [{ objective: 'revenue_per_exposure', objectiveCurrency: 'eur' }, 'objectiveCurrency', experimentMessages.currencyFormat],
    [{ objective: 'revenue_per_exposure', objectiveCurrency: 'EURO' }, 'objectiveCurrency', experimentMessages.currencyFormat],
    [{ objective: 'revenue' }, 'objective', experimentMessages.objectiveChoice],
  ])('refuses %j with a message under the field', (settings, path, message) => {
    expect(refusal({ arms, ...settings })).toEqual({ path, message });
  });

  it('refuses a shopper context that is not a yes or a no', () => {
    expect(refusal({ arms: [{ ...arms[0], shopperContext: 'no' }, arms[1]] })).toEqual({ path: 'arms.0.shopperContext', message: experimentMessages.shopperContextChoice });
  });
});
