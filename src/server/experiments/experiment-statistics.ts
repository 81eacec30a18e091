import { createHash } from 'node:crypto';
import type { Estimate } from '../../shared/experiments/experiment-schemas.ts';

/**
 * The arithmetic of a flow's prompt experiment (docs/decisions/0043-experiments.md): which
 * group a shopper lands in, how sure the results are, and how an adaptive split moves traffic.
 * Pure functions, so the numbers the flow page shows can be checked against published
 * examples and closed forms, and a shopper's group never depends on when or where it is asked.
 */

export type { Estimate };

/** The normal quantile for a two-sided 95 % interval. */
export const Z_95 = 1.959963984540054;

const TWO_POW_52 = 2 ** 52;

/**
 * A shopper's place in [0, 1) for an experiment. A hash rather than a stored draw: every
 * worker assigns a returning shopper to the same group without asking the database, and a
 * new experiment reshuffles everyone (the experiment's id is part of the hash).
 */
export function assignmentPoint(experimentId: string, shopperKey: string): number {
  const digest = createHash('sha256').update(`${experimentId}\u0000${shopperKey}`).digest();
  // 52 bits: as many as a double holds exactly, so every point is a distinct multiple of 2^-52.
  return (digest.readUIntBE(0, 6) * 16 + (digest[6]! >> 4)) / TWO_POW_52;
}

/**
 * The group at a point: the holdout first, then the arms by their weights. Weights that sum to
 * a hair under 1 must not leave the top of the range unassigned, so the last arm that has a
 * weight catches the remainder; an arm of weight 0 (e.g. one an adaptive split has left) never does.
 */
export function chooseGroup(point: number, split: { holdoutShare: number; weights: readonly number[] }): number | 'holdout' {
  if (point < split.holdoutShare) return 'holdout';
  const scaled = (point - split.holdoutShare) / (1 - split.holdoutShare);
  let cumulative = 0;
  let lastWeighted = -1;
  for (const [index, weight] of split.weights.entries()) {
    if (!(weight > 0)) continue;
    cumulative += weight;
    lastWeighted = index;
    if (scaled < cumulative) return index;
  }
  if (lastWeighted < 0) throw new RangeError('An experiment needs at least one arm with a weight above 0.');
  return lastWeighted;
}

/**
 * A conversion rate with its 95 % Wilson score interval. Not the textbook Wald interval
 * (p ± z·√(p(1−p)/n)): with the few orders an arm sees early on, Wald's interval collapses to
 * nothing at 0 orders and spills below 0 and above 1, while Wilson's keeps close to its 95 % coverage.
 */
export function wilsonInterval(successes: number, trials: number): Estimate | null {
  if (trials === 0) return null;
  const p = successes / trials;
  const z2 = Z_95 * Z_95;
  const denominator = 1 + z2 / trials;
  const centre = (p + z2 / (2 * trials)) / denominator;
  const half = (Z_95 / denominator) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  // At no or all successes the bound is 0 or 1 exactly; the arithmetic gets it only up to rounding.
  return { value: p, low: successes === 0 ? 0 : centre - half, high: successes === trials ? 1 : centre + half };
}

/**
 * p1 − p0 (an arm's conversion over the holdout's) with Newcombe's hybrid score interval
 * (Newcombe 1998, method 10): each side's distance taken from the two Wilson intervals. Again
 * not Wald's, which is too narrow for small counts and rates near 0, where shop conversions live.
 */
export function newcombeDifference(successes1: number, trials1: number, successes0: number, trials0: number): Estimate | null {
  const one = wilsonInterval(successes1, trials1);
  const zero = wilsonInterval(successes0, trials0);
  if (!one || !zero) return null;
  const value = one.value - zero.value;
  return {
    value,
    low: value - Math.hypot(one.value - one.low, zero.high - zero.value),
    high: value + Math.hypot(one.high - one.value, zero.value - zero.low),
  };
}

/** Running sums of a per-shopper amount (revenue, non-buyers counting as 0): what the database adds up. */
export interface MeanSums {
  sum: number;
  sumOfSquares: number;
  count: number;
}

/** The sample variance from running sums; 0 for fewer than two values. */
function sampleVariance({ sum, sumOfSquares, count }: MeanSums): number {
  if (count < 2) return 0;
  // max(0, …): the one-pass formula can dip a hair below 0 when every value is the same.
  return Math.max(0, (sumOfSquares - (sum * sum) / count) / (count - 1));
}

/**
 * A mean with its 95 % normal interval, from running sums so the database can add them up.
 * Revenue per exposure counts a shopper who did not order as 0; with that many zeros the mean
 * is far from normal per shopper, but by the central limit theorem its average is, at the counts
 * where a shop would read it.
 */
export function meanInterval(sum: number, sumOfSquares: number, count: number): Estimate | null {
  if (count === 0) return null;
  const mean = sum / count;
  const half = Z_95 * Math.sqrt(sampleVariance({ sum, sumOfSquares, count }) / count);
  return { value: mean, low: mean - half, high: mean + half };
}

/**
 * The difference of two means (an arm's revenue per exposure over the holdout's) with Welch's
 * normal interval: each side keeps its own variance, (m1 − m0) ± z·√(s1²/n1 + s0²/n0). Not a
 * pooled variance: an arm whose texts bring a few large orders spreads far wider than a holdout
 * that mostly does not order, and pooling would make the interval too narrow on that side.
 */
export function meanDifference(one: MeanSums, zero: MeanSums): Estimate | null {
  if (one.count === 0 || zero.count === 0) return null;
  const value = one.sum / one.count - zero.sum / zero.count;
  const half = Z_95 * Math.sqrt(sampleVariance(one) / one.count + sampleVariance(zero) / zero.count);
  return { value, low: value - half, high: value + half };
}

/**
 * A seeded generator (sfc32, seeded from SHA-256 of the seed), numbers in [0, 1). Seeded rather
 * than Math.random so the probability of being best, and the split it sets, are the same each
 * time the same results are read: a page reload must not reorder the arms.
 */
export function seededRandom(seed: string): () => number {
  const digest = createHash('sha256').update(seed).digest();
  let a = digest.readUInt32LE(0);
  let b = digest.readUInt32LE(4);
  let c = digest.readUInt32LE(8);
  let d = digest.readUInt32LE(12);
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i += 1) next();
  return next;
}

/** A standard normal draw (Box–Muller; 1 − u keeps the logarithm away from 0). */
function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** A Gamma(shape, 1) draw by Marsaglia and Tsang's method. */
function gamma(shape: number, random: () => number): number {
  // Below shape 1 the method fails; draw at shape + 1 and scale down by U^(1/shape). The
  // uniform prior keeps every posterior shape at 1 or above, but other priors would not.
  if (shape < 1) return gamma(shape + 1, random) * random() ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = normal(random);
    const v = (1 + c * x) ** 3;
    if (v <= 0) continue;
    const u = random();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

type ArmCounts = ReadonlyArray<{ successes: number; trials: number }>;

/**
 * The probability that each arm converts best, under Beta(1 + orders, 1 + non-orders) posteriors
 * (a uniform prior). By Monte Carlo because no closed form exists beyond two arms; 20,000 draws
 * put its standard error under 0.004, finer than the page shows.
 */
export function probabilityBest(arms: ArmCounts, options: { seed: string; draws?: number }): number[] {
  if (arms.length <= 1) return arms.map(() => 1);
  const draws = options.draws ?? 20_000;
  const random = seededRandom(options.seed);
  const wins = arms.map(() => 0);
  for (let draw = 0; draw < draws; draw += 1) {
    let best = 0;
    let bestRate = -1;
    for (const [index, arm] of arms.entries()) {
      const x = gamma(1 + arm.successes, random);
      const rate = x / (x + gamma(1 + arm.trials - arm.successes, random));
      if (rate > bestRate) [best, bestRate] = [index, rate];
    }
    wins[best]! += 1;
  }
  return wins.map((count) => count / draws);
}

/**
 * The probability that each arm has the highest mean (revenue per exposure), each arm's mean
 * taken as Normal(mean, s²/n): the large-sample posterior of a mean under a flat prior, which
 * is what the central limit theorem gives the average of many shoppers, most of them at 0.
 * By Monte Carlo, like the conversion's, and seeded the same way.
 *
 * An arm with fewer than two shoppers, or whose shoppers all spent the same (early on: none has
 * ordered yet), has no spread of its own, and taking it as certain would crown any arm with a
 * single order. It borrows the spread of a shopper within the other arms (the pooled within-arm
 * variance) instead. Without any spread at all, the highest mean is best for certain, and equal
 * means share it.
 */
export function probabilityBestByMean(arms: readonly MeanSums[], options: { seed: string; draws?: number }): number[] {
  if (arms.length <= 1) return arms.map(() => 1);
  const shoppers = arms.reduce((sum, arm) => sum + arm.count, 0);
  const withinSquares = arms.reduce((sum, arm) => sum + (arm.count > 1 ? sampleVariance(arm) * (arm.count - 1) : 0), 0);
  const pooled = shoppers > arms.length ? withinSquares / (shoppers - arms.length) : 0;
  const posteriors = arms.map((arm) => {
    const count = Math.max(arm.count, 1);
    const own = sampleVariance(arm);
    return { mean: arm.count === 0 ? 0 : arm.sum / arm.count, sd: Math.sqrt((arm.count >= 2 && own > 0 ? own : pooled) / count) };
  });
  if (posteriors.every((posterior) => posterior.sd === 0)) {
    const highest = Math.max(...posteriors.map((posterior) => posterior.mean));
    const leaders = posteriors.filter((posterior) => posterior.mean === highest).length;
    return posteriors.map((posterior) => (posterior.mean === highest ? 1 / leaders : 0));
  }
  const draws = options.draws ?? 20_000;
  const random = seededRandom(options.seed);
  const wins = arms.map(() => 0);
  for (let draw = 0; draw < draws; draw += 1) {
    let best = 0;
    let bestMean = -Infinity;
    for (const [index, posterior] of posteriors.entries()) {
      const mean = posterior.mean + posterior.sd * normal(random);
      if (mean > bestMean) [best, bestMean] = [index, mean];
    }
    wins[best]! += 1;
  }
  return wins.map((count) => count / draws);
}

/** The least share of the split's shoppers an arm keeps under an adaptive split. */
export const MIN_ARM_SHARE = 0.05;

/**
 * The traffic weights of an adaptive split. Until every arm has minExposures shoppers, equal
 * weights: early on a lucky order or two would starve an arm before it was measured. Then each
 * arm gets its probability of being best, which is what Thompson sampling gives it in expectation
 * (randomized probability matching), with the noise of a draw per shopper taken out. No arm
 * gets less than MIN_ARM_SHARE: a losing arm that got no more shoppers would keep the
 * uncertainty of its early count for ever, and the winner's probability of being best could
 * then stall short of the level that promotes it.
 */
export function thompsonWeights(arms: ArmCounts, options: { minExposures: number; seed: string; draws?: number }): number[] {
  if (arms.some((arm) => arm.trials < options.minExposures)) return arms.map(() => 1 / arms.length);
  return weightsOfChances(probabilityBest(arms, { seed: options.seed, draws: options.draws }));
}

/** The same split for an experiment judged by revenue per exposure: each arm gets its probability of the highest mean. */
export function thompsonWeightsByMean(arms: readonly MeanSums[], options: { minExposures: number; seed: string; draws?: number }): number[] {
  if (arms.some((arm) => arm.count < options.minExposures)) return arms.map(() => 1 / arms.length);
  return weightsOfChances(probabilityBestByMean(arms, { seed: options.seed, draws: options.draws }));
}

/** The probabilities of being best as weights, every arm raised to MIN_ARM_SHARE. */
export function weightsOfChances(chances: readonly number[]): number[] {
  // Raise the arms below the floor to it, taking the difference from the others in proportion.
  const floor = Math.min(MIN_ARM_SHARE, 1 / chances.length);
  const lifted = chances.map((chance) => Math.max(chance, floor));
  const above = lifted.reduce((sum, weight) => sum + (weight > floor ? weight - floor : 0), 0);
  const excess = lifted.reduce((sum, weight) => sum + weight, 0) - 1;
  return lifted.map((weight) => (weight > floor && above > 0 ? weight - (excess * (weight - floor)) / above : weight));
}
