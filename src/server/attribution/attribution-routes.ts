import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { rateLimited } from '../platform/user-rate-limit.ts';
import { flowTypes, type FlowType } from '../../shared/flows/flow-types.ts';
import {
  type CurrencyRevenue,
  type RevenueFigures,
} from '../../shared/attribution/attribution-schemas.ts';
import { listOwnerSpend, spendDay } from '../generations/flow-spend-queries.ts';
import {
  countDeliveriesByFlow,
  findAttributionWindowDays,
  listAttributedOrders,
  saveAttributionWindowDays,
  sumRevenueByCurrency,
  sumRevenueByFlow,
} from './attribution-queries.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import { registerEndpoint } from '../platform/register-endpoint.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** The credited orders the page lists (each a link to its delivery); the sums count all. */
const ORDERS_LISTED = 20;

function revenueOf(rows: Array<{ currency: string | null; orders: number; amount: string }>): CurrencyRevenue[] {
  return rows.map((row) => ({ currency: row.currency, orders: row.orders, amount: row.amount }));
}

function figures(deliveries: number, revenue: CurrencyRevenue[], spend: { costUsd: number; estimatedCalls: number; tokens: number }): RevenueFigures {
  const attributedOrders = revenue.reduce((sum, entry) => sum + entry.orders, 0);
  return { deliveries, attributedOrders, revenue, conversionRate: deliveries > 0 ? attributedOrders / deliveries : null, costUsd: spend.costUsd, costEstimated: spend.estimatedCalls > 0, tokens: spend.tokens };
}

/** GET /api/revenue?days=7|30 and the owner's attribution window, in the signed-in context. */
export const attributionRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.database;

  await registerEndpoint(app, endpoints.revenue.read, { preHandler: rateLimited('read') }, async (request) => {
    const userId = request.user.id;
    const { days } = request.query;
    const since = new Date(app.clock.now().getTime() - days * DAY_MS);
    const [deliveries, revenue, totals, spend, orders, windowDays] = await Promise.all([
      countDeliveriesByFlow(pool, userId, since),
      sumRevenueByFlow(pool, userId, since),
      sumRevenueByCurrency(pool, userId, since),
      // Spend is kept per UTC day: the period's first day counts whole.
      listOwnerSpend(pool, userId, spendDay(since)),
      listAttributedOrders(pool, userId, since, ORDERS_LISTED),
      findAttributionWindowDays(pool, userId),
    ]);
    const spendOf = (flowType?: FlowType) =>
      spend
        .filter((day) => !flowType || day.flowType === flowType)
        .reduce(
          (sum, day) => ({
            costUsd: sum.costUsd + day.costUsd,
            estimatedCalls: sum.estimatedCalls + day.estimatedCalls,
            tokens: sum.tokens + day.inputTokens + day.cachedInputTokens + day.outputTokens,
          }),
          { costUsd: 0, estimatedCalls: 0, tokens: 0 },
        );
    const flows = flowTypes.map((flowType) => ({
      flowType,
      ...figures(
        deliveries.find((entry) => entry.flowType === flowType)?.deliveries ?? 0,
        revenueOf(revenue.filter((entry) => entry.flowType === flowType)),
        spendOf(flowType),
      ),
    }));
    return {
      days,
      since: since.toISOString(),
      windowDays,
      total: figures(
        deliveries.reduce((sum, entry) => sum + entry.deliveries, 0),
        revenueOf(totals),
        spendOf(),
      ),
      flows,
      orders: orders.map((order) => ({ ...order, orderedAt: order.orderedAt.toISOString() })),
    };
  });

  await registerEndpoint(app, endpoints.revenue.settings, { preHandler: rateLimited('read') }, async (request) => ({
    windowDays: await findAttributionWindowDays(pool, request.user.id),
  }));

  await registerEndpoint(app, endpoints.revenue.saveSettings, { preHandler: rateLimited('write') }, async (request) => {
    await saveAttributionWindowDays(pool, request.user.id, request.body.windowDays);
    return { windowDays: request.body.windowDays };
  });
};
