import type { ExperimentGroupKey } from '../../shared/experiments/experiment-settings.ts';
import type { ExperimentRecord, GroupCounts, GroupRevenue } from './experiment-queries.ts';
import { probabilityBest, probabilityBestByMean, thompsonWeights, thompsonWeightsByMean, type MeanSums } from './experiment-statistics.ts';

/**
 * Which arm is best by the experiment's objective (docs/decisions/0043-experiments.md,
 * "Objective"): conversion, or revenue per exposure in the objective's currency. One place,
 * so the results, the adaptive split and the automatic promotion always judge alike.
 */
type Judged = Pick<ExperimentRecord, 'id' | 'arms' | 'objective' | 'objectiveCurrency' | 'minExposures'>;

/** The objective's currency when the experiment is judged by revenue, else null. */
export function revenueCurrencyOf(experiment: Pick<ExperimentRecord, 'objective' | 'objectiveCurrency'>): string | null {
  return experiment.objective === 'revenue_per_exposure' ? experiment.objectiveCurrency : null;
}

/**
 * A group's revenue per exposure as running sums, in one currency: a shopper without an order in
 * it counts as 0, so the count is every exposure. Revenue in other currencies is left out.
 */
export function revenueSumsOf(group: ExperimentGroupKey, exposures: number, currency: string, revenue: readonly GroupRevenue[]): MeanSums {
  const row = revenue.find((candidate) => candidate.group === group && candidate.currency === currency);
  return { sum: row?.total ?? 0, sumOfSquares: row?.sumOfSquares ?? 0, count: exposures };
}

/** Each arm's counts, in the experiment's order of arms (an arm nobody reached yet has none). */
function armCounts(experiment: Judged, counts: readonly GroupCounts[]): GroupCounts[] {
  return experiment.arms.map((arm) => counts.find((count) => count.group === arm.key) ?? { group: arm.key, exposures: 0, converted: 0, orders: 0 });
}

/**
 * What the simulation is seeded with: the experiment and its evidence, so the same evidence
 * always reads the same. The conversion's seed is the one experiments had before there was a
 * choice, so their figures did not move.
 */
function seedOf(experiment: Judged, arms: readonly GroupCounts[], sums: readonly MeanSums[] | null, currency: string | null): string {
  if (!sums) return `${experiment.id}:${arms.map((arm) => `${arm.converted}/${arm.exposures}`).join(',')}`;
  return `${experiment.id}:revenue:${currency}:${sums.map((arm) => `${arm.sum}/${arm.sumOfSquares}/${arm.count}`).join(',')}`;
}

function evidenceOf(experiment: Judged, counts: readonly GroupCounts[], revenue: readonly GroupRevenue[]) {
  const arms = armCounts(experiment, counts);
  const currency = revenueCurrencyOf(experiment);
  const sums = currency === null ? null : arms.map((arm) => revenueSumsOf(arm.group, arm.exposures, currency, revenue));
  return { arms, sums, seed: seedOf(experiment, arms, sums, currency) };
}

/**
 * Each arm's probability of being best by the objective, in the experiment's order of arms;
 * null with fewer than two arms or an arm nobody has reached.
 */
export function chancesOfBest(experiment: Judged, counts: readonly GroupCounts[], revenue: readonly GroupRevenue[]): number[] | null {
  if (experiment.arms.length < 2) return null;
  const { arms, sums, seed } = evidenceOf(experiment, counts, revenue);
  if (arms.some((arm) => arm.exposures === 0)) return null;
  if (sums) return probabilityBestByMean(sums, { seed });
  return probabilityBest(
    arms.map((arm) => ({ successes: arm.converted, trials: arm.exposures })),
    { seed },
  );
}

/** An adaptive split's weights by the objective (equal until every arm has its minimum). */
export function adaptiveWeights(experiment: Judged, counts: readonly GroupCounts[], revenue: readonly GroupRevenue[]): number[] {
  const { arms, sums, seed } = evidenceOf(experiment, counts, revenue);
  if (sums) return thompsonWeightsByMean(sums, { minExposures: experiment.minExposures, seed });
  return thompsonWeights(
    arms.map((arm) => ({ successes: arm.converted, trials: arm.exposures })),
    { minExposures: experiment.minExposures, seed },
  );
}
