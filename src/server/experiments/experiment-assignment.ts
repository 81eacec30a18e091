import type { Queryable } from '../database/database.ts';
import { experimentPropertyNames, type FlowType } from '../../shared/flows/flow-types.ts';
import { HOLDOUT_ARM, type ExperimentGroupKey } from '../../shared/experiments/experiment-settings.ts';
import { shopperKey } from '../platform/shopper-key.ts';
import { assignShopper, countGroups, findExperimentById, findRunningExperiment, sumGroupRevenue, type ExperimentRecord } from './experiment-queries.ts';
import { assignmentPoint, chooseGroup } from './experiment-statistics.ts';
import { adaptiveWeights, revenueCurrencyOf } from './experiment-objective.ts';

/**
 * Which group of the flow's experiment an event's shopper is in (docs/decisions/0043-experiments.md):
 * a step of the event pipeline, after the caps and before any text is written. The group
 * comes from a digest of the shopper and the experiment (the same shopper always lands in
 * the same place for a given split) and is then kept for the experiment's whole life.
 * Under an adaptive split the arms' shares follow their probability of being best by the
 * experiment's objective (conversion, or revenue per exposure).
 */
export interface ExperimentGroup {
  experimentId: string;
  group: ExperimentGroupKey;
  /** The arm's prompt for each assistant, by Klaviyo property; null for the holdout. */
  prompts: Record<string, string> | null;
  /**
   * Whether the texts may use what is known of the shopper (their history, Klaviyo's
   * predictions, the shop's recommendations): an arm can leave it out, to measure what it adds.
   * True for the holdout, which gets no text.
   */
  shopperContext: boolean;
  /** What goes to Klaviyo with the texts (on the profile and in the event's properties), so emails and reports can tell the groups apart. */
  properties: Record<string, string>;
}

/** A flow's running experiment, read at most once a second per process: every event of a busy flow asks. */
const RUNNING_KEPT_MS = 1_000;
/** An adaptive split's shares, worked out at most this often per experiment and process. */
const WEIGHTS_KEPT_MS = 30_000;

const running = new Map<string, { experiment: ExperimentRecord | null; at: number }>();
const weightsKept = new Map<string, { weights: number[]; at: number }>();

/**
 * Forgets what this process read of the flow's experiment (the owner just changed it), and the
 * weights it worked out for `experimentId`: a new objective or minimum must not wait 30 s.
 */
export function forgetRunningExperiment(flowId: string, experimentId?: string): void {
  running.delete(flowId);
  if (experimentId) weightsKept.delete(experimentId);
}

async function runningExperiment(db: Queryable, flowId: string): Promise<ExperimentRecord | null> {
  const kept = running.get(flowId);
  if (kept && performance.now() - kept.at < RUNNING_KEPT_MS) return kept.experiment;
  const experiment = await findRunningExperiment(db, flowId);
  if (running.size > 10_000) running.clear();
  running.set(flowId, { experiment, at: performance.now() });
  return experiment;
}

/**
 * The arms' shares of the shoppers who are not held out. Kept by the app's clock, `now`,
 * so the shares move on when it does (a test moves it by hand).
 */
export async function armWeights(db: Queryable, experiment: ExperimentRecord, now: Date): Promise<number[]> {
  const equal = experiment.arms.map(() => 1 / experiment.arms.length);
  if (experiment.split === 'fixed' || experiment.arms.length < 2) return equal;
  const kept = weightsKept.get(experiment.id);
  if (kept && now.getTime() - kept.at >= 0 && now.getTime() - kept.at < WEIGHTS_KEPT_MS) return kept.weights;
  const [counts, revenue] = await Promise.all([countGroups(db, experiment.id), revenueCurrencyOf(experiment) === null ? [] : sumGroupRevenue(db, experiment.id)]);
  const weights = adaptiveWeights(experiment, counts, revenue);
  if (weightsKept.size > 1_000) weightsKept.clear();
  weightsKept.set(experiment.id, { weights, at: now.getTime() });
  return weights;
}

/** The group `shopper` would get if they were new to the experiment now. */
export function groupForPoint(experiment: ExperimentRecord, point: number, weights: readonly number[]): ExperimentGroupKey {
  const chosen = chooseGroup(point, { holdoutShare: experiment.holdoutPercent / 100, weights });
  return chosen === 'holdout' ? HOLDOUT_ARM : experiment.arms[chosen]!.key;
}

/**
 * The event's group in the flow's running experiment, or null when the flow runs none.
 * Console test sends reach no real shopper, so they are never exposures.
 */
export async function experimentGroupFor(
  db: Queryable,
  event: { id: string; flowId: string; flowType: FlowType; source: string },
  shopperEmail: string,
  now: Date,
): Promise<ExperimentGroup | null> {
  if (event.source === 'test') return null;
  const experiment = await runningExperiment(db, event.flowId);
  if (!experiment) return null;
  const key = shopperKey(shopperEmail);
  const candidate = groupForPoint(experiment, assignmentPoint(experiment.id, key), await armWeights(db, experiment, now));
  const assigned = await assignShopper(db, { experimentId: experiment.id, shopperKey: key, group: candidate, eventId: event.id, at: now });
  // A retried event keeps the group of its first try, even in an experiment that has since ended.
  const of = assigned.experimentId === experiment.id ? experiment : await findExperimentById(db, assigned.experimentId);
  const names = experimentPropertyNames(event.flowType);
  const arm = of?.arms.find((candidate) => candidate.key === assigned.group);
  return {
    experimentId: assigned.experimentId,
    group: assigned.group,
    prompts: arm?.prompts ?? null,
    shopperContext: arm?.shopperContext ?? true,
    properties: { [names.group]: assigned.group, [names.experiment]: assigned.experimentId },
  };
}
