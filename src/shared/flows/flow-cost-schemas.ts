import { z } from 'zod';
import { flowTypeSchema } from './flow-type-schemas.ts';

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
