import { describe, expect, it } from 'vitest';
import { meanDifference, probabilityBestByMean, thompsonWeightsByMean, type MeanSums } from '../../src/server/experiments/experiment-statistics.ts';
import { adaptiveWeights, chancesOfBest } from '../../src/server/experiments/experiment-objective.ts';
import { armToPromote } from '../../src/server/experiments/experiment-changes.ts';
import { figuresOf } from '../../src/server/experiments/experiment-results.ts';
import type { ExperimentRecord, GroupCounts, GroupRevenue } from '../../src/server/experiments/experiment-queries.ts';
import { experimentMessages } from '../../src/shared/experiments/experiment-messages.ts';
import type { ExperimentGroupKey } from '../../src/shared/experiments/experiment-settings.ts';

/**
 * Experiments judged by revenue per exposure (docs/decisions/0043-experiments.md, "Objective"):
 * the lift over the holdout with Welch's interval, the probability of the highest mean against
 * a closed form (two arms) and a numerical integral (three), and the split, the promotion and
 * the summary following the objective. The yardsticks are computed here, from the raw amounts,
 * with this file's own normal distribution: nothing of the production arithmetic is reused.
 */

const Z = 1.959963984540054;

/** erf by its Maclaurin series (enough terms for 1e-12 up to |x| = 6, where erf is 1 to double precision). */
function erf(x: number): number {
  if (Math.abs(x) > 6) return Math.sign(x);
  let term = x;
  let sum = x;
  for (let n = 1; n < 200; n += 1) {
    term *= (-x * x) / n;
    const next = term / (2 * n + 1);
    sum += next;
    if (Math.abs(next) < 1e-17) break;
  }
  return (2 / Math.sqrt(Math.PI)) * sum;
}

const normalCdf = (x: number) => 0.5 * (1 + erf(x / Math.SQRT2));
const normalDensity = (x: number) => Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);

/** n shoppers, of whom the first ones spent `amounts` (cycled through `buyers` times); the rest spent nothing. */
function shoppers(count: number, buyers: number, amounts: readonly number[]): number[] {
  return Array.from({ length: count }, (_, index) => (index < buyers ? amounts[index % amounts.length]! : 0));
}

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const variance = (values: readonly number[]) => {
  const m = mean(values);
  return values.reduce((sum, value) => sum + (value - m) ** 2, 0) / (values.length - 1);
};
const sumsOf = (values: readonly number[]): MeanSums => ({
  sum: values.reduce((sum, value) => sum + value, 0),
  sumOfSquares: values.reduce((sum, value) => sum + value * value, 0),
  count: values.length,
});

/** The posterior of a mean as the decision takes it: Normal(mean, s²/n). */
const posteriorOf = (values: readonly number[]) => ({ mean: mean(values), sd: Math.sqrt(variance(values) / values.length) });

/** P(arm i has the highest mean) = ∫ φ_i(x) Π_{j≠i} Φ_j(x) dx, by the trapezoid rule on a fine grid. */
function integratedChances(posteriors: ReadonlyArray<{ mean: number; sd: number }>): number[] {
  const low = Math.min(...posteriors.map((p) => p.mean - 9 * p.sd));
  const high = Math.max(...posteriors.map((p) => p.mean + 9 * p.sd));
  const steps = 40_000;
  const width = (high - low) / steps;
  return posteriors.map((own, i) => {
    let total = 0;
    for (let step = 0; step <= steps; step += 1) {
      const x = low + step * width;
      let value = normalDensity((x - own.mean) / own.sd) / own.sd;
      for (const [j, other] of posteriors.entries()) if (j !== i) value *= normalCdf((x - other.mean) / other.sd);
      total += step === 0 || step === steps ? value / 2 : value;
    }
    return total * width;
  });
}

describe("the test's own yardsticks", () => {
  it('has a normal distribution function that matches published values', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 14);
    expect(normalCdf(1)).toBeCloseTo(0.8413447460685429, 12);
    expect(normalCdf(Z)).toBeCloseTo(0.975, 12);
    expect(normalCdf(-2.5)).toBeCloseTo(0.006209665325776132, 12);
  });

  it('integrates to the closed form for two arms, and to 1 over three', () => {
    const two = [
      { mean: 1.2, sd: 0.3 },
      { mean: 1.5, sd: 0.4 },
    ];
    expect(integratedChances(two)[1]).toBeCloseTo(normalCdf((1.5 - 1.2) / Math.hypot(0.3, 0.4)), 8);
    const three = integratedChances([...two, { mean: 1.4, sd: 0.2 }]);
    expect(three.reduce((sum, chance) => sum + chance, 0)).toBeCloseTo(1, 8);
  });
});

describe('revenue per exposure over the holdout', () => {
  it("is the difference of the means with Welch's interval, from the running sums", () => {
    const arm = shoppers(180, 14, [49.9, 120, 35.5, 89.95, 12]);
    const holdout = shoppers(60, 3, [40, 75.25]);
    const difference = mean(arm) - mean(holdout);
    const half = Z * Math.sqrt(variance(arm) / arm.length + variance(holdout) / holdout.length);
    const estimate = meanDifference(sumsOf(arm), sumsOf(holdout))!;
    expect(estimate.value).toBeCloseTo(difference, 10);
    expect(estimate.low).toBeCloseTo(difference - half, 9);
    expect(estimate.high).toBeCloseTo(difference + half, 9);
  });

  it('has none without exposures on either side, and no width where nobody spent anything', () => {
    expect(meanDifference(sumsOf([]), sumsOf([1, 0]))).toBeNull();
    expect(meanDifference(sumsOf([1, 0]), { sum: 0, sumOfSquares: 0, count: 0 })).toBeNull();
    expect(meanDifference(sumsOf([0, 0, 0]), sumsOf([0, 0]))).toEqual({ value: 0, low: 0, high: 0 });
  });
});

describe('the probability of the highest revenue per exposure', () => {
  it.each([
    { name: 'a clear leader', one: shoppers(400, 20, [60, 80, 45]), two: shoppers(400, 26, [90, 120, 70]) },
    { name: 'close arms', one: shoppers(300, 15, [50, 100]), two: shoppers(320, 16, [55, 95]) },
    { name: 'uneven sizes', one: shoppers(1_000, 40, [30, 20, 150]), two: shoppers(150, 9, [35, 60]) },
  ])('matches the two-arm closed form Φ((m2 − m1)/√(v1/n1 + v2/n2)) within 0.01 ($name)', ({ one, two }) => {
    const expected = normalCdf((mean(two) - mean(one)) / Math.sqrt(variance(one) / one.length + variance(two) / two.length));
    const [chanceOne, chanceTwo] = probabilityBestByMean([sumsOf(one), sumsOf(two)], { seed: 'closed-form' });
    expect(Math.abs(chanceTwo! - expected)).toBeLessThan(0.01);
    expect(chanceOne! + chanceTwo!).toBeCloseTo(1, 12);
  });

  it.each([
    { seed: 'three-a', arms: [shoppers(400, 20, [60, 80, 45]), shoppers(400, 24, [70, 80, 60]), shoppers(380, 18, [90, 70, 55])] },
    { seed: 'three-b', arms: [shoppers(250, 10, [100, 20]), shoppers(600, 30, [45, 70]), shoppers(500, 22, [40, 95, 60])] },
  ])('matches ∫ φ_i Π Φ_j within 0.01 for three arms ($seed)', ({ seed, arms }) => {
    const expected = integratedChances(arms.map(posteriorOf));
    // Not a case any answer would pass: every arm has a real chance.
    expect(Math.min(...expected)).toBeGreaterThan(0.05);
    const chances = probabilityBestByMean(arms.map(sumsOf), { seed });
    for (const [index, chance] of chances.entries()) expect(Math.abs(chance - expected[index]!), `arm ${index}`).toBeLessThan(0.01);
  });

  it('reads the same for the same sums and seed, and sums to 1', () => {
    const arms = [sumsOf(shoppers(200, 10, [50])), sumsOf(shoppers(200, 12, [45, 55])), sumsOf(shoppers(200, 8, [80]))];
    const first = probabilityBestByMean(arms, { seed: 'again', draws: 5_000 });
    expect(probabilityBestByMean(arms, { seed: 'again', draws: 5_000 })).toEqual(first);
    expect(first.reduce((sum, chance) => sum + chance, 0)).toBeCloseTo(1, 12);
    expect(probabilityBestByMean([arms[0]!], { seed: 'one' })).toEqual([1]);
  });

  it('lends an arm without any spread of its own the pooled spread of the others, instead of taking its mean as certain', () => {
    const nobodyOrdered = shoppers(100, 0, [0]);
    const oneOrdered = shoppers(100, 1, [100]);
    // Pooled within-arm variance: (99·0 + 99·s²) / (200 − 2), s² the second arm's own.
    const pooled = (99 * variance(oneOrdered)) / 198;
    const expected = normalCdf((mean(oneOrdered) - 0) / Math.sqrt(pooled / 100 + variance(oneOrdered) / 100));
    const [, chance] = probabilityBestByMean([sumsOf(nobodyOrdered), sumsOf(oneOrdered)], { seed: 'guard' });
    expect(Math.abs(chance! - expected)).toBeLessThan(0.01);
    // Had the first arm's 0 been taken as certain, B would be best with Φ(m/√(s²/n)) = Φ(1) ≈ 0.84; with the pooled spread it is less sure.
    expect(chance).toBeLessThan(normalCdf(mean(oneOrdered) / Math.sqrt(variance(oneOrdered) / 100)));
  });

  it('shares the chance equally when nobody spent anything, and gives it to the higher mean when nothing varies', () => {
    expect(probabilityBestByMean([sumsOf([0, 0, 0]), sumsOf([0, 0]), sumsOf([0, 0, 0, 0])], { seed: 'none' })).toEqual([1 / 3, 1 / 3, 1 / 3]);
    expect(probabilityBestByMean([sumsOf([5]), sumsOf([7])], { seed: 'single' })).toEqual([0, 1]);
  });
});

const experiment = (overrides: Partial<ExperimentRecord> = {}): ExperimentRecord => ({
  id: 'experiment-revenue',
  userId: 'user-1',
  flowId: 'flow-1',
  arms: [
    { key: 'A', prompts: { subject: 'a' }, shopperContext: true },
    { key: 'B', prompts: { subject: 'b' }, shopperContext: false },
  ],
  holdoutPercent: 10,
  split: 'adaptive',
  minExposures: 100,
  autoPromote: true,
  objective: 'revenue_per_exposure',
  objectiveCurrency: 'EUR',
  startedAt: new Date('2025-01-01T00:00:00Z'),
  endedAt: null,
  endReason: null,
  winner: null,
  ...overrides,
});

/** Counts and revenue rows as the queries return them, from each group's per-shopper amounts in one currency. */
function evidence(groups: Partial<Record<ExperimentGroupKey, number[]>>, currency = 'EUR'): { counts: GroupCounts[]; revenue: GroupRevenue[] } {
  const counts: GroupCounts[] = [];
  const revenue: GroupRevenue[] = [];
  for (const [group, amounts] of Object.entries(groups) as Array<[ExperimentGroupKey, number[]]>) {
    const buyers = amounts.filter((amount) => amount > 0);
    counts.push({ group, exposures: amounts.length, converted: buyers.length, orders: buyers.length });
    if (buyers.length > 0) revenue.push({ group, currency, ...(({ sum, sumOfSquares }) => ({ total: sum, sumOfSquares }))(sumsOf(buyers)) });
  }
  return { counts, revenue };
}

// A converts more often with small baskets; B less often, with far larger ones.
const manySmall = shoppers(400, 60, [12, 9, 15]);
const fewLarge = shoppers(400, 30, [180, 240, 150]);

describe('an experiment judged by revenue per exposure', () => {
  it('moves traffic to the arm with the higher revenue per exposure, though it converts less', () => {
    const { counts, revenue } = evidence({ A: manySmall, B: fewLarge });
    const byConversion = adaptiveWeights(experiment({ objective: 'conversion', objectiveCurrency: null }), counts, revenue);
    const byRevenue = adaptiveWeights(experiment(), counts, revenue);
    expect(byConversion[0]).toBeGreaterThan(0.9);
    expect(byRevenue[1]).toBeGreaterThan(0.9);
    expect(byRevenue[0]).toBeCloseTo(0.05, 10);
    // Revenue in another currency decides nothing: judged in USD, nobody has spent anything.
    expect(adaptiveWeights(experiment({ objectiveCurrency: 'USD' }), counts, revenue)).toEqual([0.5, 0.5]);
    // Equal weights until every arm has its minimum.
    expect(thompsonWeightsByMean([sumsOf(manySmall), sumsOf(fewLarge.slice(0, 99))], { minExposures: 100, seed: 'early' })).toEqual([0.5, 0.5]);
  });

  it('promotes by the objective: B by revenue, A by conversion', () => {
    const { counts, revenue } = evidence({ A: manySmall, B: fewLarge });
    expect(armToPromote(experiment(), counts, revenue)?.key).toBe('B');
    expect(armToPromote(experiment({ objective: 'conversion', objectiveCurrency: null }), counts, revenue)?.key).toBe('A');
    expect(armToPromote(experiment({ minExposures: 401 }), counts, revenue)).toBeNull();
    expect(chancesOfBest(experiment(), counts, revenue)![1]).toBeGreaterThanOrEqual(0.95);
  });

  it("shows each variant's revenue lift over the holdout per currency, and says which objective decided", () => {
    const holdout = shoppers(100, 4, [60, 20]);
    const { counts, revenue } = evidence({ A: manySmall, B: fewLarge, holdout });
    // A USD order in the holdout: shown in its own currency, not compared.
    revenue.push({ group: 'holdout', currency: 'USD', total: 30, sumOfSquares: 900 });
    const figures = figuresOf(experiment(), counts, revenue, [0.05, 0.95]);
    const b = figures.groups.find((group) => group.key === 'B')!;
    const eur = b.revenue.find((row) => row.currency === 'EUR')!;
    const difference = mean(fewLarge) - mean(holdout);
    const half = Z * Math.sqrt(variance(fewLarge) / fewLarge.length + variance(holdout) / holdout.length);
    expect(eur.liftOverHoldout!.value).toBeCloseTo(difference, 9);
    expect(eur.liftOverHoldout!.low).toBeCloseTo(difference - half, 9);
    expect(eur.liftOverHoldout!.high).toBeCloseTo(difference + half, 9);
    // Every group is shown in every currency; B had no USD order, so its USD lift is the holdout's mean below 0.
    const usd = b.revenue.find((row) => row.currency === 'USD')!;
    expect(usd.total).toBe(0);
    expect(usd.liftOverHoldout!.value).toBeCloseTo(-30 / 100, 12);
    expect(figures.groups.find((group) => group.key === 'holdout')!.revenue.every((row) => row.liftOverHoldout === null)).toBe(true);
    expect(b.probabilityBest).toBeGreaterThan(0.95);
    expect(figures.summary[0]).toMatch(/^B \(no shopper context\) brings more revenue per shopper \(EUR\) than A with \d+(\.\d)? % probability\.$/);
    expect(figures.summary[1]).toMatch(/^AI text adds €\d+\.\d\d of revenue per shopper over your ordinary email, between/);
    expect(figures.summary).toContain(experimentMessages.summary.otherCurrencies('EUR'));
  });

  it('says conversion when conversion decides, with no revenue lift where there is no holdout', () => {
    const { counts, revenue } = evidence({ A: manySmall, B: fewLarge, C: shoppers(400, 40, [20]) });
    const threeArms = experiment({
      objective: 'conversion',
      objectiveCurrency: null,
      arms: [...experiment().arms, { key: 'C', prompts: { subject: 'c' }, shopperContext: true }],
      holdoutPercent: 0,
    });
    const figures = figuresOf(threeArms, counts, revenue, [1 / 3, 1 / 3, 1 / 3]);
    expect(figures.summary[0]).toMatch(/^A is the best of the 3 variants at conversion with \d+(\.\d)? % probability\.$/);
    expect(figures.groups.every((group) => group.revenue.every((row) => row.liftOverHoldout === null))).toBe(true);
  });
});
