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
