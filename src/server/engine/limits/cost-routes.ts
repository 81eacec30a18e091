import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { endpoints } from '../../../shared/api/endpoints.ts';
import { registerEndpoint } from '../../platform/register-endpoint.ts';
import { rateLimited } from '../../platform/user-rate-limit.ts';
import { listFlowsForUser } from '../../flows/flow-queries.ts';
import { listOwnerSpend, spendDay } from '../../generations/flow-spend-queries.ts';
import { listRecentPrompts } from '../../generations/generation-queries.ts';
import { contextCharactersOf, contextCostOf } from '../writing/context-cost.ts';

/**
 * What the flows cost (`endpoints.flows.costs`), signed in and scoped to `request.user.id`:
 * the spend the limits count, and what the shopper context adds to each prompt.
 */
export const costRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.database;

  // What each flow spent on OpenAI: today (UTC) and the last 7 days, for the dashboard.
  await registerEndpoint(app, endpoints.flows.costs, { preHandler: rateLimited('read') }, async (request) => {
    const now = app.clock.now();
    const today = spendDay(now);
    const fromDay = spendDay(new Date(now.getTime() - 6 * 86_400_000));
    const rows = await listOwnerSpend(pool, request.user.id, fromDay);
    const flows = await listFlowsForUser(pool, request.user.id);
    const prompts = await listRecentPrompts(pool, request.user.id, new Date(now.getTime() - 7 * 86_400_000));
    const zero = { costUsd: 0, calls: 0, estimatedCalls: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
    const add = (sum: typeof zero, row: typeof zero) => ({
      costUsd: sum.costUsd + row.costUsd,
      calls: sum.calls + row.calls,
      estimatedCalls: sum.estimatedCalls + row.estimatedCalls,
      inputTokens: sum.inputTokens + row.inputTokens,
      cachedInputTokens: sum.cachedInputTokens + row.cachedInputTokens,
      outputTokens: sum.outputTokens + row.outputTokens,
    });
    return {
      flows: flows.map((flow) => {
        const own = rows.filter((row) => row.flowId === flow.id);
        const pick = ({ costUsd, calls, estimatedCalls, inputTokens, cachedInputTokens, outputTokens }: typeof zero) => ({ costUsd, calls, estimatedCalls, inputTokens, cachedInputTokens, outputTokens });
        return {
          flowType: flow.flowType,
          today: own.filter((row) => row.day === today).map(pick).reduce(add, zero),
          last7Days: own.map(pick).reduce(add, zero),
          days: own.map((row) => ({ day: row.day, costUsd: row.costUsd })),
          context: contextCostOf(prompts.filter((prompt) => prompt.flowId === flow.id && contextCharactersOf(prompt.prompt) > 0)),
        };
      }),
    };
  });

};
