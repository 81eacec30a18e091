import { z } from 'zod';
import { flowTypeSchema } from '../flows/flow-types.ts';
import { eventStatusSchema } from '../events/event-schemas.ts';

/**
 * What is left to set up, in the order an owner does it
 * (docs/decisions/0027-dashboard-and-narrow-screens.md says what makes each one done).
 */
export const setupStepIds = ['keys', 'store', 'pixel', 'event'] as const;
export type SetupStepId = (typeof setupStepIds)[number];

/**
 * How a flow is doing, read from its events: `no_events` before its first one, `failing`
 * when the last event it finished within a day failed, `working` otherwise.
 */
export const flowHealths = ['no_events', 'working', 'failing'] as const;
export type FlowHealth = (typeof flowHealths)[number];

export const dashboardFlowSchema = z.object({
  flowType: flowTypeSchema,
  isActive: z.boolean(),
  health: z.enum(flowHealths),
  lastEvent: z.object({ receivedAt: z.string(), status: eventStatusSchema }).nullable(),
  /** Profile writes Klaviyo accepted in the last 24 hours. */
  deliveries24h: z.number().int(),
  /** Events that ended failed in the last 24 hours. */
  failures24h: z.number().int(),
});
export type DashboardFlow = z.infer<typeof dashboardFlowSchema>;

/** GET /api/dashboard: the owner's setup checklist and each flow's state. */
export const dashboardResponseSchema = z.object({
  setup: z.array(z.object({ id: z.enum(setupStepIds), done: z.boolean() })),
  flows: z.array(dashboardFlowSchema),
  /** The start of the 24-hour window the figures count. */
  since: z.string(),
});
export type DashboardResponse = z.infer<typeof dashboardResponseSchema>;
