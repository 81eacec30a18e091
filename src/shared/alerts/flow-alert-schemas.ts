import { z } from 'zod';
import { flowTypeSchema } from '../flows/flow-type-schemas.ts';

/**
 * A flow that stopped writing texts today for a reason its owner controls
 * (docs/decisions/0041-flow-alerts.md), as the dashboard and the flow page show it.
 */
export const flowAlertReasons = ['daily_cap', 'budget', 'checks', 'key_refused'] as const;
export type FlowAlertReason = (typeof flowAlertReasons)[number];

export const flowAlertSchema = z.object({
  flowType: flowTypeSchema,
  reason: z.enum(flowAlertReasons),
  /** Events (one shopper's moment each) that got no text for this reason today. */
  shoppers: z.number().int(),
  detail: z.string(),
  since: z.string(),
  lastAt: z.string(),
});
export type FlowAlert = z.infer<typeof flowAlertSchema>;

export const flowAlertsResponseSchema = z.object({ alerts: z.array(flowAlertSchema) });
