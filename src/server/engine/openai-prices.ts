/**
 * What OpenAI charges, in US dollars per million tokens: the one place prices live, so a
 * price change is one edit here. Figures are OpenAI's published standard-tier prices for
 * text tokens; `flexDiscount` is the share of the price the flex tier takes off on the
 * models that offer it (about half, INTEGRATIONS.md).
 *
 * A model missing here (a new one) is priced like the dearest model listed, so a budget
 * errs on the side of stopping early rather than overspending; `priceOf` says so.
 */
export interface ModelPrice {
  inputPerMillion: number;
  cachedInputPerMillion: number;
  outputPerMillion: number;
  /** Models that serve `service_tier: "flex"`. */
  flex: boolean;
}

export const flexDiscount = 0.5;

export const openAiPrices: Record<string, ModelPrice> = {
  'gpt-5': { inputPerMillion: 1.25, cachedInputPerMillion: 0.125, outputPerMillion: 10, flex: true },
  'gpt-5-mini': { inputPerMillion: 0.25, cachedInputPerMillion: 0.025, outputPerMillion: 2, flex: true },
  'gpt-5-nano': { inputPerMillion: 0.05, cachedInputPerMillion: 0.005, outputPerMillion: 0.4, flex: true },
  'gpt-4.1': { inputPerMillion: 2, cachedInputPerMillion: 0.5, outputPerMillion: 8, flex: false },
  'gpt-4.1-mini': { inputPerMillion: 0.4, cachedInputPerMillion: 0.1, outputPerMillion: 1.6, flex: false },
  'gpt-4.1-nano': { inputPerMillion: 0.1, cachedInputPerMillion: 0.025, outputPerMillion: 0.4, flex: false },
  'gpt-4o': { inputPerMillion: 2.5, cachedInputPerMillion: 1.25, outputPerMillion: 10, flex: false },
  'gpt-4o-mini': { inputPerMillion: 0.15, cachedInputPerMillion: 0.075, outputPerMillion: 0.6, flex: false },
  o3: { inputPerMillion: 2, cachedInputPerMillion: 0.5, outputPerMillion: 8, flex: true },
  'o4-mini': { inputPerMillion: 1.1, cachedInputPerMillion: 0.275, outputPerMillion: 4.4, flex: true },
};

const dearest: ModelPrice = Object.values(openAiPrices).reduce((a, b) => (b.inputPerMillion + b.outputPerMillion > a.inputPerMillion + a.outputPerMillion ? b : a));

/**
 * A model's price. Dated snapshots ("gpt-5-mini-2025-08-07") cost what their model costs.
 * `known` is false for a model not in the table (priced as the dearest one, and never flex).
 */
export function priceOf(model: string): ModelPrice & { known: boolean } {
  const exact = openAiPrices[model];
  if (exact) return { ...exact, known: true };
  const base = model.replace(/-\d{4}-\d{2}-\d{2}$/, '');
  const snapshot = openAiPrices[base];
  if (snapshot) return { ...snapshot, known: true };
  return { ...dearest, flex: false, known: false };
}

export interface CallUsage {
  inputTokens: number;
  /** Of `inputTokens`, those OpenAI served from its prompt cache (billed at the cached price). */
  cachedInputTokens: number;
  outputTokens: number;
}

/** One call's cost in dollars. `serviceTier` is the tier OpenAI says served it. */
export function callCostUsd(model: string, usage: CallUsage, serviceTier: string | null): number {
  const price = priceOf(model);
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const standard =
    ((usage.inputTokens - cached) * price.inputPerMillion + cached * price.cachedInputPerMillion + usage.outputTokens * price.outputPerMillion) / 1_000_000;
  return serviceTier === 'flex' ? standard * (1 - flexDiscount) : standard;
}
