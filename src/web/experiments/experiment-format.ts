import type { Estimate } from '../../shared/experiments/experiment-schemas.ts';

/**
 * How the experiment card writes its figures: shares as "3.4 %", intervals as
 * "2.1–4.9 %", lifts in points with their sign, money in its own currency. Shares and
 * probabilities arrive as fractions (0.034); lifts arrive in percentage points (1.2).
 */
const oneDecimal = (value: number) => value.toFixed(1);

/** A fraction as a percentage with one decimal: 0.0342 → "3.4 %". */
export function formatPercent(share: number): string {
  return `${oneDecimal(share * 100)} %`;
}

/** An interval of fractions: "2.1–4.9 %". */
export function formatPercentRange(estimate: Estimate): string {
  return `${oneDecimal(estimate.low * 100)}–${oneDecimal(estimate.high * 100)} %`;
}

/** Percentage points with their sign: "+1.2", "−0.4", "0.0" (a value that rounds to nothing has none). */
export function formatSignedPoints(points: number): string {
  const rounded = Number(oneDecimal(points));
  if (rounded === 0) return oneDecimal(0);
  return rounded > 0 ? `+${oneDecimal(rounded)}` : `−${oneDecimal(-rounded)}`;
}

/** An interval of points: "−0.4 to +2.8". */
export function formatPointsRange(estimate: Estimate): string {
  return `${formatSignedPoints(estimate.low)} to ${formatSignedPoints(estimate.high)}`;
}

/** An amount in its currency ("€64.00"); a code the browser does not know is written after the amount. */
export function formatMoney(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency}`;
  }
}

/** An amount with its sign: "+€1.20", "−€0.40", "€0.00" (an amount that rounds to nothing has none). */
export function formatSignedMoney(amount: number, currency: string): string {
  const rounded = Math.round(amount * 100) / 100;
  if (rounded === 0) return formatMoney(0, currency);
  return `${rounded > 0 ? '+' : '−'}${formatMoney(Math.abs(rounded), currency)}`;
}

/** An interval of differences in one currency: "−€0.40 to +€2.00". */
export function formatSignedMoneyRange(estimate: Estimate, currency: string): string {
  return `${formatSignedMoney(estimate.low, currency)} to ${formatSignedMoney(estimate.high, currency)}`;
}

/** An interval of amounts in one currency: "€0.40–€2.00". */
export function formatMoneyRange(estimate: Estimate, currency: string): string {
  return `${formatMoney(estimate.low, currency)}–${formatMoney(estimate.high, currency)}`;
}

/** A moment of an experiment, in the owner's locale. */
export function formatExperimentDate(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
