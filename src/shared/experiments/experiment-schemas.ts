import { z } from 'zod';
import { klaviyoPropertySchema, promptTemplateSchema } from '../flows/flow-schemas.ts';
import { experimentMessages as m } from './experiment-messages.ts';
import {
  DEFAULT_HOLDOUT_PERCENT,
  DEFAULT_MIN_EXPOSURES,
  experimentArmKeys,
  experimentEndReasons,
  experimentGroupKeys,
  experimentObjectives,
  MAX_ARMS,
  MAX_HOLDOUT_PERCENT,
  MAX_MIN_EXPOSURES,
  MIN_ARMS,
  MIN_MIN_EXPOSURES,
} from './experiment-settings.ts';

/**
 * A flow's experiment (docs/decisions/0043-experiments.md): two to four prompt variants
 * (arms A to D) tried on real shoppers, and a holdout share that gets the shop's
 * ordinary email instead, so what the AI text adds can be measured. The contract
 * between the flow page's experiment card and /api/flows/:flowType/experiment.
 */
export const experimentSplitSchema = z.enum(['fixed', 'adaptive'], { error: m.splitChoice });
export type ExperimentSplit = z.infer<typeof experimentSplitSchema>;

export const experimentObjectiveSchema = z.enum(experimentObjectives, { error: m.objectiveChoice });
export type ExperimentObjective = z.infer<typeof experimentObjectiveSchema>;
/** An ISO 4217 code as shops send it: three upper-case letters. */
export const currencyCodeSchema = z.string({ error: m.currencyFormat }).regex(/^[A-Z]{3}$/, m.currencyFormat);

/** One arm: the prompt of each of the flow's assistants, by its Klaviyo property, and whether the texts may use what is known of the shopper. */
export const experimentArmSetupSchema = z.object({
  prompts: z.record(klaviyoPropertySchema, promptTemplateSchema).refine((prompts) => Object.keys(prompts).length >= 1, m.armNeedsPrompts),
  /** Off: the arm's texts are written without the shopper's history, Klaviyo's predictions or the shop's recommendations, to measure what they add. */
  shopperContext: z.boolean({ error: m.shopperContextChoice }).default(true),
});

export const experimentSetupSchema = z
  .object({
    /** Arm A first; one arm alone measures only the AI text against the holdout. */
    arms: z.array(experimentArmSetupSchema).min(MIN_ARMS, m.armCount).max(MAX_ARMS, m.armCount),
    holdoutPercent: z
      .number({ error: m.holdoutRange })
      .int(m.holdoutRange)
      .min(0, m.holdoutRange)
      .max(MAX_HOLDOUT_PERCENT, m.holdoutRange)
      .default(DEFAULT_HOLDOUT_PERCENT),
    split: experimentSplitSchema.default('fixed'),
    minExposures: z
      .number({ error: m.minExposuresRange })
      .int(m.minExposuresRange)
      .min(MIN_MIN_EXPOSURES, m.minExposuresRange)
      .max(MAX_MIN_EXPOSURES, m.minExposuresRange)
      .default(DEFAULT_MIN_EXPOSURES),
    autoPromote: z.boolean({ error: m.autoPromoteChoice }).default(false),
    objective: experimentObjectiveSchema.default('conversion'),
    /** The currency whose revenue decides under the revenue objective; ignored (stored as null) under conversion. */
    objectiveCurrency: currencyCodeSchema.nullable().default(null),
  })
  .refine((setup) => setup.arms.length >= 2 || setup.holdoutPercent > 0, { message: m.nothingToCompare, path: ['arms'] })
  .refine((setup) => setup.objective !== 'revenue_per_exposure' || setup.objectiveCurrency !== null, { message: m.currencyRequired, path: ['objectiveCurrency'] });
export type ExperimentSetup = z.output<typeof experimentSetupSchema>;
export type ExperimentSetupInput = z.input<typeof experimentSetupSchema>;

export const promoteArmSchema = z.object({ arm: z.enum(experimentArmKeys, { error: m.promoteChoice }) });
export type PromoteArm = z.infer<typeof promoteArmSchema>;

/**
 * An interval estimate: the value and its 95 % interval. Shares (conversion, probability,
 * traffic) are fractions from 0 to 1; the lift over the holdout is in percentage points;
 * revenue is in its currency.
 */
export const estimateSchema = z.object({ value: z.number(), low: z.number(), high: z.number() });
export type Estimate = z.infer<typeof estimateSchema>;

export const armRevenueSchema = z.object({
  currency: z.string(),
  /** Revenue of the orders credited to the group, in this currency. */
  total: z.number(),
  /** Revenue per exposure in this currency, with its interval. */
  perExposure: estimateSchema,
  /**
   * Revenue per exposure over the holdout's in this currency (a difference of means, with
   * Welch's normal interval); null for the holdout, or without exposures in the holdout.
   */
  liftOverHoldout: estimateSchema.nullable(),
});

export const armResultSchema = z.object({
  key: z.enum(experimentGroupKeys),
  /** Shoppers assigned to the group (each is one exposure, however many events they sent). */
  exposures: z.number().int(),
  /** Orders credited to the group, and the shoppers who placed at least one. */
  orders: z.number().int(),
  converted: z.number().int(),
  /** Share of exposures that ordered; null: not enough data (no exposures). */
  conversion: estimateSchema.nullable(),
  revenue: z.array(armRevenueSchema),
  /**
   * Probability that this arm is the best of the arms at the experiment's objective (conversion,
   * or revenue per exposure in its currency); null for the holdout, or without data in every arm.
   */
  probabilityBest: z.number().nullable(),
  /** Conversion over the holdout's, in percentage points; null for the holdout, or without data in both. */
  liftOverHoldout: estimateSchema.nullable(),
  /** The share of new shoppers this group gets now. */
  trafficShare: z.number(),
});
export type ArmResult = z.infer<typeof armResultSchema>;

export const experimentSchema = z.object({
  id: z.string(),
  status: z.enum(['running', 'ended']),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  endReason: z.enum(experimentEndReasons).nullable(),
  winner: z.enum(experimentArmKeys).nullable(),
  holdoutPercent: z.number().int(),
  split: experimentSplitSchema,
  minExposures: z.number().int(),
  autoPromote: z.boolean(),
  objective: experimentObjectiveSchema,
  /** The currency of a revenue objective; null under conversion. */
  objectiveCurrency: z.string().nullable(),
  arms: z.array(z.object({ key: z.enum(experimentArmKeys), prompts: z.record(z.string(), z.string()), shopperContext: z.boolean() })),
  /** The attribution window orders are counted in (the owner's setting). */
  windowDays: z.number().int(),
  groups: z.array(armResultSchema),
  /** The results said plainly, one sentence each. */
  summary: z.array(z.string()),
});
export type Experiment = z.infer<typeof experimentSchema>;

export const experimentsResponseSchema = z.object({
  current: experimentSchema.nullable(),
  /** Ended experiments, newest first, at most MAX_PAST_EXPERIMENTS. */
  past: z.array(experimentSchema),
});
export type ExperimentsResponse = z.infer<typeof experimentsResponseSchema>;

/** What a change answers: the flow's experiments as they are now, and what happened. */
export const experimentChangeResponseSchema = experimentsResponseSchema.extend({ message: z.string() });
export type ExperimentChangeResponse = z.infer<typeof experimentChangeResponseSchema>;
