import type { Queryable } from '../database/database.ts';
import { experimentMessages as m } from '../../shared/experiments/experiment-messages.ts';
import { HOLDOUT_ARM, type ArmResult, type Estimate, type Experiment, type ExperimentGroupKey } from '../../shared/experiments/experiment-schemas.ts';
import { countGroups, sumGroupRevenue, type ExperimentRecord, type GroupCounts, type GroupRevenue } from './experiment-queries.ts';
import { armWeights } from './experiment-assignment.ts';
import { meanInterval, newcombeDifference, probabilityBest, wilsonInterval } from './experiment-statistics.ts';

/**
 * An experiment's results as the flow page shows them (docs/decisions/0043-experiments.md):
 * per group, exposures, orders, conversion and revenue per exposure with their 95 %
 * intervals; per arm, the probability of being best and the lift over the holdout; and
 * the whole said plainly. A group without exposures has no figures (null: "not enough data").
 */
export interface ExperimentFigures {
  groups: ArmResult[];
  summary: string[];
}

/** The probability of being best from the counts, by a seeded simulation (the same counts always read the same). */
function chancesOfBest(experiment: ExperimentRecord, counts: readonly GroupCounts[]): Map<ExperimentGroupKey, number> | null {
  if (experiment.arms.length < 2) return null;
  const arms = experiment.arms.map((arm) => counts.find((count) => count.group === arm.key));
  if (arms.some((arm) => !arm || arm.exposures === 0)) return null;
  const seed = `${experiment.id}:${arms.map((arm) => `${arm!.converted}/${arm!.exposures}`).join(',')}`;
  const chances = probabilityBest(
    arms.map((arm) => ({ successes: arm!.converted, trials: arm!.exposures })),
    { seed },
  );
  return new Map(experiment.arms.map((arm, index) => [arm.key, chances[index]!]));
}

/** Revenue is never negative: a normal interval around a small mean is cut at zero. */
const atLeastZero = (estimate: Estimate): Estimate => ({ ...estimate, low: Math.max(0, estimate.low) });

const inPoints = (estimate: Estimate): Estimate => ({ value: estimate.value * 100, low: estimate.low * 100, high: estimate.high * 100 });

export function figuresOf(experiment: ExperimentRecord, counts: readonly GroupCounts[], revenue: readonly GroupRevenue[], weights: readonly number[]): ExperimentFigures {
  const countOf = (group: ExperimentGroupKey): GroupCounts => counts.find((count) => count.group === group) ?? { group, exposures: 0, converted: 0, orders: 0 };
  const holdout = countOf(HOLDOUT_ARM);
  const chances = chancesOfBest(experiment, counts);
  const holdoutShare = experiment.holdoutPercent / 100;
  const running = experiment.endedAt === null;
  const keys: ExperimentGroupKey[] = experiment.arms.map((arm) => arm.key);
  if (experiment.holdoutPercent > 0 || holdout.exposures > 0) keys.push(HOLDOUT_ARM);
  const groups = keys.map((key): ArmResult => {
    const count = countOf(key);
    const isHoldout = key === HOLDOUT_ARM;
    const lift = isHoldout ? null : newcombeDifference(count.converted, count.exposures, holdout.converted, holdout.exposures);
    const armIndex = experiment.arms.findIndex((arm) => arm.key === key);
    return {
      key,
      exposures: count.exposures,
      orders: count.orders,
      converted: count.converted,
      conversion: wilsonInterval(count.converted, count.exposures),
      revenue: revenue
        .filter((row) => row.group === key)
        .map((row) => ({ currency: row.currency, total: row.total, perExposure: atLeastZero(meanInterval(row.total, row.sumOfSquares, count.exposures)!) })),
      probabilityBest: isHoldout ? null : (chances?.get(key) ?? null),
      liftOverHoldout: lift ? inPoints(lift) : null,
      trafficShare: !running ? 0 : isHoldout ? holdoutShare : (1 - holdoutShare) * (weights[armIndex] ?? 0),
    };
  });
  return { groups, summary: summaryOf(experiment, groups, counts) };
}

/** "97" for 0.97; never "100" for a probability short of certainty. */
function percentText(probability: number): string {
  const percent = probability * 100;
  return percent >= 99 && percent < 100 ? (Math.floor(percent * 10) / 10).toFixed(1) : Math.round(percent).toString();
}

const pointsText = (points: number) => (Math.abs(points) < 0.05 ? '0.0' : Math.abs(points).toFixed(1));
const signedPointsText = (points: number) => (points < 0 && Math.abs(points) >= 0.05 ? `−${Math.abs(points).toFixed(1)}` : pointsText(points));

function summaryOf(experiment: ExperimentRecord, groups: readonly ArmResult[], counts: readonly GroupCounts[]): string[] {
  if (counts.every((count) => count.exposures === 0)) return [m.summary.waiting];
  const sentences: string[] = [];
  const arms = groups.filter((group) => group.key !== HOLDOUT_ARM);
  if (arms.length >= 2) {
    const ranked = [...arms].sort((a, b) => (b.probabilityBest ?? 0) - (a.probabilityBest ?? 0));
    const leader = ranked[0]!;
    if (leader.probabilityBest === null) sentences.push(m.summary.notEnoughArms);
    else if (arms.length === 2) sentences.push(m.summary.betterOfTwo(leader.key, ranked[1]!.key, percentText(leader.probabilityBest)));
    else sentences.push(m.summary.bestOfMany(leader.key, arms.length, percentText(leader.probabilityBest)));
  }
  const holdout = groups.find((group) => group.key === HOLDOUT_ARM);
  if (holdout) {
    // What the AI text adds, all arms together against the holdout.
    const exposed = arms.reduce((sum, arm) => sum + arm.exposures, 0);
    const converted = arms.reduce((sum, arm) => sum + arm.converted, 0);
    const lift = newcombeDifference(converted, exposed, holdout.converted, holdout.exposures);
    if (!lift) sentences.push(m.summary.notEnoughHoldout);
    else {
      const points = inPoints(lift);
      const words = points.value >= 0 ? m.summary.lift : m.summary.loss;
      sentences.push(words(pointsText(points.value), signedPointsText(points.low), signedPointsText(points.high)));
      if (points.low <= 0 && points.high >= 0) sentences.push(m.summary.unsure);
    }
  }
  if (new Set(groups.flatMap((group) => group.revenue.map((row) => row.currency))).size > 1) sentences.push(m.summary.perCurrency);
  return sentences;
}

/** The experiment as the API answers it. */
export async function experimentForApi(db: Queryable, experiment: ExperimentRecord, windowDays: number, now: Date): Promise<Experiment> {
  const [counts, revenue] = await Promise.all([countGroups(db, experiment.id), sumGroupRevenue(db, experiment.id)]);
  const weights = experiment.endedAt === null ? await armWeights(db, experiment, now) : [];
  const figures = figuresOf(experiment, counts, revenue, weights);
  return {
    id: experiment.id,
    status: experiment.endedAt === null ? 'running' : 'ended',
    startedAt: experiment.startedAt.toISOString(),
    endedAt: experiment.endedAt?.toISOString() ?? null,
    endReason: experiment.endReason,
    winner: experiment.winner,
    holdoutPercent: experiment.holdoutPercent,
    split: experiment.split,
    minExposures: experiment.minExposures,
    autoPromote: experiment.autoPromote,
    arms: experiment.arms,
    windowDays,
    groups: figures.groups,
    summary: figures.summary,
  };
}
