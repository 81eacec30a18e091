import type { Queryable } from '../database/database.ts';
import { experimentArmLabel, experimentMessages as m } from '../../shared/experiments/experiment-messages.ts';
import { HOLDOUT_ARM, type ExperimentGroupKey } from '../../shared/experiments/experiment-settings.ts';
import type { ArmResult, Estimate, Experiment } from '../../shared/experiments/experiment-schemas.ts';
import { countGroups, sumGroupRevenue, type ExperimentRecord, type GroupCounts, type GroupRevenue } from './experiment-queries.ts';
import { armWeights } from './experiment-assignment.ts';
import { chancesOfBest, revenueCurrencyOf, revenueSumsOf } from './experiment-objective.ts';
import { meanDifference, meanInterval, newcombeDifference, wilsonInterval, type MeanSums } from './experiment-statistics.ts';

/**
 * An experiment's results as the flow page shows them (docs/decisions/0043-experiments.md):
 * per group, exposures, orders, conversion and revenue per exposure with their 95 %
 * intervals; per arm, the probability of being best by the experiment's objective and the
 * lifts over the holdout (conversion, and revenue per exposure in each currency); and the
 * whole said plainly. A group without exposures has no figures (null: "not enough data").
 */
export interface ExperimentFigures {
  groups: ArmResult[];
  summary: string[];
}

/** Revenue is never negative: a normal interval around a small mean is cut at zero. */
const atLeastZero = (estimate: Estimate): Estimate => ({ ...estimate, low: Math.max(0, estimate.low) });

const inPoints = (estimate: Estimate): Estimate => ({ value: estimate.value * 100, low: estimate.low * 100, high: estimate.high * 100 });

/**
 * The currencies every group is shown in: each one an order came in, and the objective's. A group
 * without orders in a currency shows 0 in it, so its lift over the holdout can be read there too.
 */
function currenciesOf(experiment: ExperimentRecord, revenue: readonly GroupRevenue[]): string[] {
  const currencies = new Set(revenue.map((row) => row.currency));
  const objective = revenueCurrencyOf(experiment);
  if (objective !== null) currencies.add(objective);
  return [...currencies].sort();
}

export function figuresOf(experiment: ExperimentRecord, counts: readonly GroupCounts[], revenue: readonly GroupRevenue[], weights: readonly number[]): ExperimentFigures {
  const countOf = (group: ExperimentGroupKey): GroupCounts => counts.find((count) => count.group === group) ?? { group, exposures: 0, converted: 0, orders: 0 };
  const holdout = countOf(HOLDOUT_ARM);
  const chanceList = chancesOfBest(experiment, counts, revenue);
  const chances = chanceList ? new Map(experiment.arms.map((arm, index) => [arm.key, chanceList[index]!])) : null;
  const currencies = currenciesOf(experiment, revenue);
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
      revenue:
        count.exposures === 0
          ? []
          : currencies.map((currency) => {
              const sums = revenueSumsOf(key, count.exposures, currency, revenue);
              return {
                currency,
                total: sums.sum,
                perExposure: atLeastZero(meanInterval(sums.sum, sums.sumOfSquares, sums.count)!),
                liftOverHoldout: isHoldout ? null : meanDifference(sums, revenueSumsOf(HOLDOUT_ARM, holdout.exposures, currency, revenue)),
              };
            }),
      probabilityBest: isHoldout ? null : (chances?.get(key) ?? null),
      liftOverHoldout: lift ? inPoints(lift) : null,
      trafficShare: !running ? 0 : isHoldout ? holdoutShare : (1 - holdoutShare) * (weights[armIndex] ?? 0),
    };
  });
  return { groups, summary: summaryOf(experiment, groups, counts, revenue) };
}

/** "97" for 0.97; never "100" for a probability short of certainty. */
function percentText(probability: number): string {
  const percent = probability * 100;
  return percent >= 99 && percent < 100 ? (Math.floor(percent * 10) / 10).toFixed(1) : Math.round(percent).toString();
}

const pointsText = (points: number) => (Math.abs(points) < 0.05 ? '0.0' : Math.abs(points).toFixed(1));
const signedPointsText = (points: number) => (points < 0 && Math.abs(points) >= 0.05 ? `−${Math.abs(points).toFixed(1)}` : pointsText(points));

/** An amount in its currency for a sentence ("€1.20", "−€0.40"); a code Intl does not know goes after the amount. */
function moneyText(amount: number, currency: string, signed = false): string {
  const sign = signed && amount <= -0.005 ? '−' : '';
  try {
    return sign + new Intl.NumberFormat('en', { style: 'currency', currency }).format(Math.abs(amount));
  } catch {
    return `${sign}${Math.abs(amount).toFixed(2)} ${currency}`;
  }
}

/** Which arm leads, said for the objective. */
function leaderSentence(experiment: ExperimentRecord, arms: readonly ArmResult[]): string {
  const ranked = [...arms].sort((a, b) => (b.probabilityBest ?? 0) - (a.probabilityBest ?? 0));
  const leader = ranked[0]!;
  if (leader.probabilityBest === null) return m.summary.notEnoughArms;
  const label = (key: ExperimentGroupKey) => experimentArmLabel(key, experiment.arms.find((arm) => arm.key === key)?.shopperContext ?? true);
  const percent = percentText(leader.probabilityBest);
  const currency = revenueCurrencyOf(experiment);
  if (currency === null) {
    return arms.length === 2 ? m.summary.betterOfTwo(label(leader.key), label(ranked[1]!.key), percent) : m.summary.bestOfMany(label(leader.key), arms.length, percent);
  }
  return arms.length === 2
    ? m.summary.betterOfTwoByRevenue(label(leader.key), label(ranked[1]!.key), percent, currency)
    : m.summary.bestOfManyByRevenue(label(leader.key), arms.length, percent, currency);
}

/** What the AI text adds, all arms together against the holdout, in the objective's terms. */
function holdoutSentences(experiment: ExperimentRecord, arms: readonly ArmResult[], holdout: ArmResult, revenue: readonly GroupRevenue[]): string[] {
  const exposed = arms.reduce((sum, arm) => sum + arm.exposures, 0);
  const currency = revenueCurrencyOf(experiment);
  if (currency !== null) {
    const together = arms.reduce<MeanSums>(
      (sums, arm) => {
        const own = revenueSumsOf(arm.key, arm.exposures, currency, revenue);
        return { sum: sums.sum + own.sum, sumOfSquares: sums.sumOfSquares + own.sumOfSquares, count: sums.count + own.count };
      },
      { sum: 0, sumOfSquares: 0, count: 0 },
    );
    const lift = meanDifference(together, revenueSumsOf(HOLDOUT_ARM, holdout.exposures, currency, revenue));
    if (!lift) return [m.summary.notEnoughHoldout];
    const words = lift.value >= 0 ? m.summary.revenueLift : m.summary.revenueLoss;
    const sentence = words(moneyText(lift.value, currency), moneyText(lift.low, currency, true), moneyText(lift.high, currency, true));
    return lift.low <= 0 && lift.high >= 0 ? [sentence, m.summary.unsure] : [sentence];
  }
  const converted = arms.reduce((sum, arm) => sum + arm.converted, 0);
  const lift = newcombeDifference(converted, exposed, holdout.converted, holdout.exposures);
  if (!lift) return [m.summary.notEnoughHoldout];
  const points = inPoints(lift);
  const words = points.value >= 0 ? m.summary.lift : m.summary.loss;
  const sentence = words(pointsText(points.value), signedPointsText(points.low), signedPointsText(points.high));
  return points.low <= 0 && points.high >= 0 ? [sentence, m.summary.unsure] : [sentence];
}

function summaryOf(experiment: ExperimentRecord, groups: readonly ArmResult[], counts: readonly GroupCounts[], revenue: readonly GroupRevenue[]): string[] {
  if (counts.every((count) => count.exposures === 0)) return [m.summary.waiting];
  const sentences: string[] = [];
  const arms = groups.filter((group) => group.key !== HOLDOUT_ARM);
  if (arms.length >= 2) sentences.push(leaderSentence(experiment, arms));
  const holdout = groups.find((group) => group.key === HOLDOUT_ARM);
  if (holdout) sentences.push(...holdoutSentences(experiment, arms, holdout, revenue));
  const currencies = new Set(revenue.map((row) => row.currency));
  const objectiveCurrency = revenueCurrencyOf(experiment);
  if (objectiveCurrency !== null && [...currencies].some((currency) => currency !== objectiveCurrency)) sentences.push(m.summary.otherCurrencies(objectiveCurrency));
  else if (currencies.size > 1) sentences.push(m.summary.perCurrency);
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
    objective: experiment.objective,
    objectiveCurrency: experiment.objectiveCurrency,
    arms: experiment.arms,
    windowDays,
    groups: figures.groups,
    summary: figures.summary,
  };
}
