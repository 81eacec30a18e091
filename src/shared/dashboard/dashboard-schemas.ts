import { z } from 'zod';
import { flowTypeSchema } from '../flows/flow-type-schemas.ts';
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

/** How the owner's events are getting through (docs/decisions/0027-dashboard-and-narrow-screens.md). */
export const dashboardProcessingSchema = z.object({
  /** The owner's events due and not finished: received, generating, delivering, or waiting past their time. */
  behind: z.number().int(),
  /** How long the oldest of them has been due, in seconds; null when none is behind. */
  oldestBehindSeconds: z.number().int().nullable(),
  /** The owner's events accepted in the last hour (all but the rejected). */
  arrivedLastHour: z.number().int(),
  /** The owner's events that ended delivered, skipped or failed in the last hour. */
  finishedLastHour: z.number().int(),
  database: z.object({
    /** Embedded PGlite (the default) or a PostgreSQL server (DATABASE_URL): the advice when late differs. */
    kind: z.enum(['embedded', 'server']),
    /** The whole database on disk; null when it could not be read. */
    sizeBytes: z.number().nullable(),
  }),
});
export type DashboardProcessing = z.infer<typeof dashboardProcessingSchema>;

/** GET /api/dashboard: the owner's setup checklist, each flow's state, and how processing keeps up. */
export const dashboardResponseSchema = z.object({
  setup: z.array(z.object({ id: z.enum(setupStepIds), done: z.boolean() })),
  flows: z.array(dashboardFlowSchema),
  processing: dashboardProcessingSchema,
  /** The start of the 24-hour window the figures count. */
  since: z.string(),
});
export type DashboardResponse = z.infer<typeof dashboardResponseSchema>;
