import { z } from 'zod';
import { flowTypeSchema } from '../flows/flow-type-schemas.ts';
import { MAX_ATTRIBUTION_WINDOW_DAYS, MIN_ATTRIBUTION_WINDOW_DAYS, type RevenuePeriod } from './attribution-periods.ts';

/**
 * Revenue recovered (docs/decisions/0030-revenue-attribution.md): orders credited to the
 * flow delivery that came last before them, within the owner's attribution window.
 */
export const revenueQuerySchema = z.object({
  days: z.enum(['7', '30']).default('7').transform((value) => Number(value) as RevenuePeriod),
});

export const attributionSettingsSchema = z.object({
  windowDays: z.number().int().min(MIN_ATTRIBUTION_WINDOW_DAYS).max(MAX_ATTRIBUTION_WINDOW_DAYS),
});
export type AttributionSettings = z.infer<typeof attributionSettingsSchema>;

/** One currency's revenue: amounts in different currencies are listed apart, never added. */
export const currencyRevenueSchema = z.object({
  /** As the shop named it (EUR, USD); null when the order named none. */
  currency: z.string().nullable(),
  orders: z.number().int(),
  /** A decimal amount as text ("113.50"). */
  amount: z.string(),
});
export type CurrencyRevenue = z.infer<typeof currencyRevenueSchema>;

export const revenueFiguresSchema = z.object({
  deliveries: z.number().int(),
  attributedOrders: z.number().int(),
  revenue: z.array(currencyRevenueSchema),
  /** Attributed orders per delivery (0 to 1); null without deliveries. */
  conversionRate: z.number().nullable(),
  costUsd: z.number(),
  /** Some of the cost was counted without a known price (at the dearest known one). */
  costEstimated: z.boolean(),
  tokens: z.number().int(),
});
export type RevenueFigures = z.infer<typeof revenueFiguresSchema>;

export const attributedOrderSchema = z.object({
  orderKey: z.string(),
  flowType: flowTypeSchema,
  /** The delivered event the order is credited to; null once retention deleted it. */
  deliveryEventId: z.string().nullable(),
  amount: z.string().nullable(),
  currency: z.string().nullable(),
  orderedAt: z.string(),
});
export type AttributedOrder = z.infer<typeof attributedOrderSchema>;

/** GET /api/revenue?days=7|30: the owner's figures, in all and per flow, and the latest credited orders. */
export const revenueResponseSchema = z.object({
  days: z.number().int(),
  since: z.string(),
  windowDays: z.number().int(),
  total: revenueFiguresSchema,
  flows: z.array(revenueFiguresSchema.extend({ flowType: flowTypeSchema })),
  orders: z.array(attributedOrderSchema),
});
export type RevenueResponse = z.infer<typeof revenueResponseSchema>;
