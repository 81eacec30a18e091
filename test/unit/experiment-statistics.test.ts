import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  Z_95,
  assignmentPoint,
  chooseGroup,
  meanInterval,
  newcombeDifference,
  probabilityBest,
  seededRandom,
  thompsonWeights,
  wilsonInterval,
} from '../../src/server/experiments/experiment-statistics.ts';

/** The chi-squared critical value for p = 0.001 at 3 degrees of freedom (holdout and three arms). */
const CHI_SQUARED_DF3_P001 = 16.266;

/** Wilson's interval in its other closed form: (2np + z² ∓ z·√(z² + 4np(1 − p))) / (2(n + z²)). */
function wilson(successes: number, trials: number): { low: number; high: number } {
  const z = 1.959963984540054;
  const p = successes / trials;
  const root = z * Math.sqrt(z * z + 4 * trials * p * (1 - p));
  return { low: (2 * trials * p + z * z - root) / (2 * (trials + z * z)), high: (2 * trials * p + z * z + root) / (2 * (trials + z * z)) };
}

/** ln Γ(x) for x ≥ 0.5 by Lanczos' approximation (g = 7, nine coefficients). */
function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
    9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  const shifted = x - 1;
  let sum = c[0]!;
  for (let i = 1; i < c.length; i += 1) sum += c[i]! / (shifted + i);
  const t = shifted + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (shifted + 0.5) * Math.log(t) - t + Math.log(sum);
}

const logBeta = (a: number, b: number) => logGamma(a) + logGamma(b) - logGamma(a + b);

/** P(p_B > p_A) for Beta(1 + s, 1 + f) posteriors, exactly (Evan Miller, "Formulas for Bayesian A/B testing"). */
function exactProbabilityBBeatsA(a: { successes: number; trials: number }, b: { successes: number; trials: number }): number {
  const [alphaA, betaA] = [1 + a.successes, 1 + a.trials - a.successes];
  const [alphaB, betaB] = [1 + b.successes, 1 + b.trials - b.successes];
  let total = 0;
  for (let i = 0; i < alphaB; i += 1) {
    total += Math.exp(logBeta(alphaA + i, betaB + betaA) - Math.log(betaB + i) - logBeta(1 + i, betaB) - logBeta(alphaA, betaA));
  }
  return total;
}

function chiSquared(observed: readonly number[], expected: readonly number[]): number {
  return observed.reduce((sum, count, index) => sum + (count - expected[index]!) ** 2 / expected[index]!, 0);
}

describe('assigning shoppers to groups', () => {
  it('gives a shopper the same point every time, the first 52 bits of SHA-256, and another point in another experiment', () => {
    const point = assignmentPoint('experiment-1', 'ada@shop.example');
    const hex = createHash('sha256').update('experiment-1\u0000ada@shop.example').digest('hex');
    expect(point).toBe(Number(BigInt(`0x${hex.slice(0, 13)}`)) / 2 ** 52);
    expect(assignmentPoint('experiment-1', 'ada@shop.example')).toBe(point);
    expect(assignmentPoint('experiment-2', 'ada@shop.example')).not.toBe(point);
    expect(assignmentPoint('experiment-1', 'bob@shop.example')).not.toBe(point);
  });

  it.each([
    { name: 'three equal arms', weights: [1 / 3, 1 / 3, 1 / 3] },
    { name: 'unequal arms', weights: [0.2, 0.3, 0.5] },
  ])('splits 100,000 shoppers as set, holdout 10 % and $name (chi-squared below p = 0.001)', ({ weights }) => {
    const shoppers = 100_000;
    const holdoutShare = 0.1;
    const counts = [0, 0, 0, 0]; // holdout, then the arms
    let lowest = 1;
    let highest = 0;
    for (let i = 0; i < shoppers; i += 1) {
      const point = assignmentPoint('experiment-balance', `shopper-${i}@shop.example`);
      lowest = Math.min(lowest, point);
      highest = Math.max(highest, point);
      const group = chooseGroup(point, { holdoutShare, weights });
      counts[group === 'holdout' ? 0 : group + 1]! += 1;
    }
    const expected = [holdoutShare, ...weights.map((weight) => (1 - holdoutShare) * weight)].map((share) => share * shoppers);
    expect(chiSquared(counts, expected)).toBeLessThan(CHI_SQUARED_DF3_P001);
    expect(lowest).toBeGreaterThanOrEqual(0);
    expect(highest).toBeLessThan(1);
  });

  it('puts the holdout below its share and never picks an arm of weight 0, even at the top of the range', () => {
    const split = { holdoutShare: 0.2, weights: [0.5, 0, 0.5] };
    expect(chooseGroup(0, split)).toBe('holdout');
    expect(chooseGroup(0.19999, split)).toBe('holdout');
    expect(chooseGroup(0.2, split)).toBe(0);
    expect(chooseGroup(0.7, split)).toBe(2);
    for (let point = 0.2; point < 1; point += 0.001) expect(chooseGroup(point, split)).not.toBe(1);
    // Weights a hair under 1, and a last arm of weight 0: the last arm with a weight takes the remainder.
    expect(chooseGroup(1 - 2 ** -52, { holdoutShare: 0, weights: [0.5, 0.4999999, 0] })).toBe(1);
  });
});

describe('conversion intervals', () => {
  it.each([
    { successes: 81, trials: 263 },
    { successes: 0, trials: 10 },
    { successes: 10, trials: 10 },
    { successes: 3, trials: 1_000 },
  ])("matches Wilson's closed form for $successes of $trials", ({ successes, trials }) => {
    const expected = wilson(successes, trials);
    const estimate = wilsonInterval(successes, trials)!;
    expect(estimate.value).toBe(successes / trials);
    expect(estimate.low).toBeCloseTo(expected.low, 12);
    expect(estimate.high).toBeCloseTo(expected.high, 12);
  });

  it("matches Newcombe's published single-proportion values, and has none without trials", () => {
    // Newcombe (1998), "Two-sided confidence intervals for the single proportion", method 3.
    expect(wilsonInterval(81, 263)).toMatchObject({ low: expect.closeTo(0.2553, 4), high: expect.closeTo(0.3662, 4) });
    expect(wilsonInterval(0, 10)).toMatchObject({ low: 0, high: expect.closeTo(0.2775, 4) });
    expect(wilsonInterval(10, 10)).toMatchObject({ low: expect.closeTo(0.7225, 4), high: 1 });
    expect(wilsonInterval(0, 0)).toBeNull();
  });

  it("matches Newcombe's published differences (1998, method 10)", () => {
    const first = newcombeDifference(56, 70, 48, 80)!;
    expect(first.value).toBeCloseTo(0.2, 12);
    expect(first.low).toBeCloseTo(0.0524, 4);
    expect(first.high).toBeCloseTo(0.3339, 4);
    const second = newcombeDifference(9, 10, 3, 10)!;
    expect(second.low).toBeCloseTo(0.1705, 4);
    expect(second.high).toBeCloseTo(0.809, 4);
  });

  it('builds the difference from the two Wilson intervals, and has none when either side has no trials', () => {
    const [one, zero] = [wilson(12, 400), wilson(30, 410)];
    const [p1, p0] = [12 / 400, 30 / 410];
    const estimate = newcombeDifference(12, 400, 30, 410)!;
    expect(estimate.value).toBeCloseTo(p1 - p0, 14);
    expect(estimate.low).toBeCloseTo(p1 - p0 - Math.sqrt((p1 - one.low) ** 2 + (zero.high - p0) ** 2), 12);
    expect(estimate.high).toBeCloseTo(p1 - p0 + Math.sqrt((one.high - p1) ** 2 + (p0 - zero.low) ** 2), 12);
    expect(newcombeDifference(1, 0, 3, 10)).toBeNull();
    expect(newcombeDifference(1, 10, 0, 0)).toBeNull();
  });
});

describe('revenue per exposure', () => {
  it('is the mean with ± z·s/√n, s the sample standard deviation', () => {
    const revenues = [0, 0, 49.9, 0, 120, 0, 0, 35.5, 0, 0, 0, 89.95];
    const mean = revenues.reduce((sum, revenue) => sum + revenue, 0) / revenues.length;
    const variance = revenues.reduce((sum, revenue) => sum + (revenue - mean) ** 2, 0) / (revenues.length - 1);
    const estimate = meanInterval(
      revenues.reduce((sum, revenue) => sum + revenue, 0),
      revenues.reduce((sum, revenue) => sum + revenue * revenue, 0),
      revenues.length,
    )!;
    expect(estimate.value).toBeCloseTo(mean, 12);
    expect(estimate.low).toBeCloseTo(mean - 1.959963984540054 * Math.sqrt(variance / revenues.length), 10);
    expect(estimate.high).toBeCloseTo(mean + 1.959963984540054 * Math.sqrt(variance / revenues.length), 10);
  });

  it('has no width for one shopper, or when every shopper spent the same, and none without shoppers', () => {
    expect(meanInterval(42, 42 * 42, 1)).toEqual({ value: 42, low: 42, high: 42 });
    const same = meanInterval(3 * 19.99, 3 * 19.99 * 19.99, 3)!;
    expect(same.high - same.low).toBeCloseTo(0, 6);
    expect(meanInterval(0, 0, 0)).toBeNull();
  });
});

describe('the probability of being best', () => {
  it('uses the 95 % normal quantile', () => {
    expect(Z_95).toBe(1.959963984540054);
  });

  it.each([
    { a: { successes: 30, trials: 1_000 }, b: { successes: 45, trials: 1_000 } },
    { a: { successes: 5, trials: 100 }, b: { successes: 5, trials: 100 } },
    { a: { successes: 12, trials: 150 }, b: { successes: 4, trials: 90 } },
  ])('matches the exact two-arm closed form within 0.01 ($a.successes/$a.trials vs $b.successes/$b.trials)', ({ a, b }) => {
    const exact = exactProbabilityBBeatsA(a, b);
    const [bestA, bestB] = probabilityBest([a, b], { seed: 'closed-form' });
    expect(bestB).toBeCloseTo(exact, 2);
    expect(Math.abs(bestB! - exact)).toBeLessThan(0.01);
    expect(bestA! + bestB!).toBeCloseTo(1, 12);
  });

  it('checks its own yardstick: the closed form is 0.5 for equal arms and ln Γ is right', () => {
    expect(logGamma(5)).toBeCloseTo(Math.log(24), 12);
    expect(logGamma(101)).toBeCloseTo(Array.from({ length: 100 }, (_, i) => Math.log(i + 1)).reduce((sum, term) => sum + term, 0), 9);
    expect(exactProbabilityBBeatsA({ successes: 5, trials: 100 }, { successes: 5, trials: 100 })).toBeCloseTo(0.5, 10);
  });

  it('is the same for the same seed, sums to 1 for three arms, and is 1 for a single arm', () => {
    const arms = [
      { successes: 20, trials: 500 },
      { successes: 28, trials: 500 },
      { successes: 24, trials: 500 },
    ];
    const first = probabilityBest(arms, { seed: 'experiment-7', draws: 5_000 });
    expect(probabilityBest(arms, { seed: 'experiment-7', draws: 5_000 })).toEqual(first);
    expect(first.reduce((sum, share) => sum + share, 0)).toBeCloseTo(1, 12);
    expect(first[1]).toBeGreaterThan(first[2]!);
    expect(first[2]).toBeGreaterThan(first[0]!);
    expect(probabilityBest([{ successes: 3, trials: 10 }], { seed: 'one' })).toEqual([1]);
  });

  it('draws uniform numbers in [0, 1) from a seed, the same for the same seed', () => {
    const random = seededRandom('uniform');
    const again = seededRandom('uniform');
    const draws = Array.from({ length: 50_000 }, () => random());
    expect(draws.slice(0, 5)).toEqual(Array.from({ length: 5 }, () => again()));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(1);
    const tenths = Array.from({ length: 10 }, () => 0);
    for (const draw of draws) tenths[Math.floor(draw * 10)]! += 1;
    // df = 9, p = 0.001: 27.877.
    expect(chiSquared(tenths, tenths.map(() => draws.length / 10))).toBeLessThan(27.877);
    expect(seededRandom('another')()).not.toBe(draws[0]);
  });
});

describe('an adaptive split', () => {
  it('keeps equal weights until every arm has its minimum exposures, then follows the probability of being best', () => {
    const early = [
      { successes: 30, trials: 200 },
      { successes: 0, trials: 99 },
    ];
    expect(thompsonWeights(early, { minExposures: 100, seed: 's' })).toEqual([0.5, 0.5]);
    const later = [
      { successes: 30, trials: 200 },
      { successes: 2, trials: 100 },
    ];
    const weights = thompsonWeights(later, { minExposures: 100, seed: 's' });
    // The losing arm keeps its floor of 5 %; the rest goes to the likely best.
    expect(probabilityBest(later, { seed: 's' })[0]).toBeGreaterThan(0.99);
    expect(weights[1]).toBeCloseTo(0.05, 10);
    expect(weights[0]).toBeCloseTo(0.95, 10);
    const close = [
      { successes: 30, trials: 200 },
      { successes: 33, trials: 200 },
      { successes: 5, trials: 200 },
    ];
    const chances = probabilityBest(close, { seed: 's' });
    const shared = thompsonWeights(close, { minExposures: 100, seed: 's' });
    expect(chances[2]).toBeLessThan(0.05);
    expect(shared[2]).toBeCloseTo(0.05, 10);
    // The two above the floor give up the difference in proportion to what they had above it, and the weights still sum to 1.
    expect(shared[0]! + shared[1]! + shared[2]!).toBeCloseTo(1, 12);
    expect((shared[0]! - 0.05) / (shared[1]! - 0.05)).toBeCloseTo((chances[0]! - 0.05) / (chances[1]! - 0.05), 10);
  });

  it('moves traffic to the arm that converts better (5 % against 10 %, 20,000 shoppers)', () => {
    const random = seededRandom('thompson-simulation');
    const truth = [0.05, 0.1];
    const counts = truth.map(() => ({ successes: 0, trials: 0 }));
    const lastShoppers = [0, 0];
    let weights = [0.5, 0.5];
    for (let shopper = 0; shopper < 20_000; shopper += 1) {
      if (shopper % 200 === 0) weights = thompsonWeights(counts, { minExposures: 100, seed: `round-${shopper}`, draws: 2_000 });
      const arm = chooseGroup(random(), { holdoutShare: 0, weights });
      if (arm === 'holdout') throw new Error('No holdout was set.');
      counts[arm]!.trials += 1;
      if (random() < truth[arm]!) counts[arm]!.successes += 1;
      if (shopper >= 15_000) lastShoppers[arm]! += 1;
    }
    expect(counts[0]!.trials).toBeGreaterThanOrEqual(100);
    expect(lastShoppers[1]! / 5_000).toBeGreaterThan(0.8);
    expect(probabilityBest(counts, { seed: 'final' })[1]).toBeGreaterThan(0.95);
  });
});
