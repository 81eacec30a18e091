import { z } from 'zod';
import { flowTypeSchema } from './flow-types.ts';

/** What a flow spent on OpenAI over some days: dollars, calls, and how much input the prompt cache served. */
export const spendSchema = z.object({
  costUsd: z.number(),
  calls: z.number().int(),
  /** Of `calls`, those to a model without a known price, counted at the dearest known price. */
  estimatedCalls: z.number().int(),
  inputTokens: z.number().int(),
  cachedInputTokens: z.number().int(),
  outputTokens: z.number().int(),
});
export type Spend = z.infer<typeof spendSchema>;

/** GET /api/flows/costs: per flow, today (UTC) and the last 7 days including today. */
export const flowCostsResponseSchema = z.object({
  flows: z.array(
    z.object({
      flowType: flowTypeSchema,
      today: spendSchema,
      last7Days: spendSchema,
      /** One entry per day of the last 7 with any spend, oldest first. */
      days: z.array(z.object({ day: z.string(), costUsd: z.number() })),
      /**
       * What the shopper's context added to the prompts of the last 7 days' events, per event:
       * estimated tokens and their input price; null without prompts that used it.
       */
      context: z.object({ events: z.number().int(), tokensPerEvent: z.number(), usdPerEvent: z.number() }).nullable(),
    }),
  ),
});
export type FlowCosts = z.infer<typeof flowCostsResponseSchema>;

/** Dollars as an owner reads them: cents, or four decimals below a cent. */
export function formatUsd(amount: number): string {
  if (amount === 0) return '$0.00';
  return amount < 0.01 ? `$${amount.toFixed(4)}` : `$${amount.toFixed(2)}`;
}

/** Why a cost is an estimate, for the owner. */
export const estimatedCostReason = 'a model without a known price is counted at the dearest known OpenAI price';
/** Beside a table of costs, some marked ≈. */
export const estimatedCostNote = `≈ marks an estimate: ${estimatedCostReason}.`;

/** A cost, marked as an estimate when any of it was counted without a known price. */
export function formatCost(amount: number, estimated: boolean): string {
  return estimated ? `≈ ${formatUsd(amount)}` : formatUsd(amount);
}

/** The context's cost as the flow page says it. */
export const contextCostMessages = {
  title: 'What the shopper context costs',
  none: 'No prompt of the last 7 days used the shopper context.',
  perEvent: (tokens: string, dollars: string, events: number) =>
    `About ${tokens} tokens of each event's prompts are the shopper context, ${dollars} per event (measured on ${events} event${events === 1 ? '' : 's'} of the last 7 days).`,
  per1000: (dollars: string) => `${dollars} per 1,000 events.`,
} as const;
