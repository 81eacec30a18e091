/**
 * What a flow's experiment can be set to (docs/decisions/0043-experiments.md): its arms and
 * the holdout, the shares and exposure counts the form allows, what decides the best arm,
 * and how an experiment ends. The requests and answers that carry them are described in
 * experiment-schemas.ts.
 */
export const experimentArmKeys = ['A', 'B', 'C', 'D'] as const;
export type ExperimentArmKey = (typeof experimentArmKeys)[number];
export const HOLDOUT_ARM = 'holdout';
/** Every group a shopper can be assigned: an arm, or the holdout. */
export const experimentGroupKeys = [...experimentArmKeys, HOLDOUT_ARM] as const;
export type ExperimentGroupKey = (typeof experimentGroupKeys)[number];

export const MIN_ARMS = 1;
export const MAX_ARMS = experimentArmKeys.length;
export const DEFAULT_HOLDOUT_PERCENT = 10;
export const MAX_HOLDOUT_PERCENT = 50;
/** Exposures every arm needs before an adaptive split moves traffic, or a winner is promoted by itself. */
export const DEFAULT_MIN_EXPOSURES = 100;
export const MIN_MIN_EXPOSURES = 10;
export const MAX_MIN_EXPOSURES = 100_000;
/** The probability of being best at which Flowsmith promotes a winner by itself (when allowed). */
export const PROMOTE_PROBABILITY = 0.95;
/** Ended experiments shown on the flow page, newest first. */
export const MAX_PAST_EXPERIMENTS = 10;

/**
 * What decides which arm is best, for the adaptive split, automatic promotion and the
 * summary: the share of shoppers who ordered, or the revenue per shopper exposed (in one
 * currency, since amounts in different currencies are never added or converted).
 */
export const experimentObjectives = ['conversion', 'revenue_per_exposure'] as const;
/** The currency the form offers for a revenue objective when the shop has no revenue yet. */
export const DEFAULT_OBJECTIVE_CURRENCY = 'USD';

export const experimentEndReasons = ['promoted', 'auto_promoted', 'changed', 'stopped'] as const;
export type ExperimentEndReason = (typeof experimentEndReasons)[number];
