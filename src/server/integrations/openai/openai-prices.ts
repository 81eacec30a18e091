import type { OpenAiModel } from './openai-models.ts';

/**
 * The OpenAI models Flowsmith offers and what they cost, in US dollars per million
 * tokens: the one place prices live, so a price change is one edit here
 * (docs/decisions/0022-budgets.md).
 *
 * Source: OpenAI's published API prices (https://openai.com/api/pricing and
 * https://platform.openai.com/docs/pricing), standard tier, text tokens; table reviewed
 * 2026-11-26. The entries added that day (gpt-5.1, gpt-5-pro, o1, o3-mini, o3-pro) were
 * taken from copies of that page and are to be confirmed against it at the next price
 * change. `flexDiscount` is the share the flex tier takes off on the models that
 * offer it (about half, docs/product/service-contracts.md §2).
 *
 * Every model listed serves Structured Outputs (`text.format` json_schema, strict), which
 * the engine uses whenever assistants share a model (docs/decisions/0021): OpenAI's
 * Structured Outputs guide names gpt-4o from its 2024-08-06 snapshot on, gpt-4o-mini,
 * the gpt-4.1 and gpt-5 families and the o-series reasoning models from o1 (2024-12-17)
 * on, o1-mini excepted. gpt-3.5-turbo, gpt-4, gpt-4-turbo, o1-mini, chatgpt-4o-latest
 * and gpt-4o-2024-05-13 do not, so they are not listed and never offered.
 *
 * A model missing here (a new one, or one typed by hand) is budgeted at the dearest
 * price listed, per kind of token, so a budget errs on the side of stopping early; its
 * cost is shown as an estimate.
 */
export interface ModelPrice {
  inputPerMillion: number;
  cachedInputPerMillion: number;
  outputPerMillion: number;
  /** Models that serve `service_tier: "flex"`. */
  flex: boolean;
}

interface ListedModel extends ModelPrice {
  /**
   * Dated snapshots ("gpt-4o-2024-11-20") cost what their model costs and serve Structured
   * Outputs from this date on; older snapshots are neither priced nor offered.
   */
  snapshotsFrom?: string;
}

export const flexDiscount = 0.5;

export const openAiPrices: Record<string, ListedModel> = {
  'gpt-5.1': { inputPerMillion: 1.25, cachedInputPerMillion: 0.125, outputPerMillion: 10, flex: true },
  'gpt-5': { inputPerMillion: 1.25, cachedInputPerMillion: 0.125, outputPerMillion: 10, flex: true },
  'gpt-5-mini': { inputPerMillion: 0.25, cachedInputPerMillion: 0.025, outputPerMillion: 2, flex: true },
  'gpt-5-nano': { inputPerMillion: 0.05, cachedInputPerMillion: 0.005, outputPerMillion: 0.4, flex: true },
  // No cached-input price is published for gpt-5-pro: cached input is billed as input.
  'gpt-5-pro': { inputPerMillion: 15, cachedInputPerMillion: 15, outputPerMillion: 120, flex: false },
  'gpt-4.1': { inputPerMillion: 2, cachedInputPerMillion: 0.5, outputPerMillion: 8, flex: false },
  'gpt-4.1-mini': { inputPerMillion: 0.4, cachedInputPerMillion: 0.1, outputPerMillion: 1.6, flex: false },
  'gpt-4.1-nano': { inputPerMillion: 0.1, cachedInputPerMillion: 0.025, outputPerMillion: 0.4, flex: false },
  'gpt-4o': { inputPerMillion: 2.5, cachedInputPerMillion: 1.25, outputPerMillion: 10, flex: false, snapshotsFrom: '2024-08-06' },
  'gpt-4o-mini': { inputPerMillion: 0.15, cachedInputPerMillion: 0.075, outputPerMillion: 0.6, flex: false },
  o1: { inputPerMillion: 15, cachedInputPerMillion: 7.5, outputPerMillion: 60, flex: false, snapshotsFrom: '2024-12-17' },
  o3: { inputPerMillion: 2, cachedInputPerMillion: 0.5, outputPerMillion: 8, flex: true },
  'o3-mini': { inputPerMillion: 1.1, cachedInputPerMillion: 0.55, outputPerMillion: 4.4, flex: false },
  'o3-pro': { inputPerMillion: 20, cachedInputPerMillion: 20, outputPerMillion: 80, flex: false },
  'o4-mini': { inputPerMillion: 1.1, cachedInputPerMillion: 0.275, outputPerMillion: 4.4, flex: true },
};

/** The dearest listed price of each kind of token (not one model's: an unknown model may be dear at any of them). */
const dearest: ModelPrice = {
  inputPerMillion: Math.max(...Object.values(openAiPrices).map((price) => price.inputPerMillion)),
  cachedInputPerMillion: Math.max(...Object.values(openAiPrices).map((price) => price.cachedInputPerMillion)),
  outputPerMillion: Math.max(...Object.values(openAiPrices).map((price) => price.outputPerMillion)),
  flex: false,
};

/** The listed model `model` is, itself or as a dated snapshot recent enough; undefined when none. */
function listedModel(model: string): ListedModel | undefined {
  const exact = openAiPrices[model];
  if (exact) return exact;
  const snapshot = /^(.+)-(\d{4}-\d{2}-\d{2})$/.exec(model);
  if (!snapshot) return undefined;
  const base = openAiPrices[snapshot[1]!];
  if (!base || (base.snapshotsFrom !== undefined && snapshot[2]! < base.snapshotsFrom)) return undefined;
  return base;
}

/**
 * A model's price. `known` is false for a model not listed: it is priced at the dearest
 * listed price and never sent to the flex tier, and its cost is an estimate.
 */
export function priceOf(model: string): ModelPrice & { known: boolean } {
  const listed = listedModel(model);
  if (!listed) return { ...dearest, known: false };
  const { snapshotsFrom: _from, ...price } = listed;
  return { ...price, known: true };
}

/** True once `shutdownDate` (a date, or Unix seconds) has come; an unreadable date is not taken as passed. */
export function isShutDown(shutdownDate: string | null, now: Date): boolean {
  if (!shutdownDate) return false;
  const at = /^\d+$/.test(shutdownDate) ? Number(shutdownDate) * 1000 : Date.parse(shutdownDate);
  return Number.isFinite(at) && at <= now.getTime();
}

/**
 * The models to offer for writing texts, sorted: those of the key's list that serve the
 * engine's call (Structured Outputs) with a known price, and are not past their shutdown
 * date. Embedding, audio, image, realtime and older chat models are never listed here.
 */
export function offeredModels(models: OpenAiModel[], now: Date): string[] {
  return [...new Set(models.filter((model) => listedModel(model.id) && !isShutDown(model.shutdownDate, now)).map((model) => model.id))].sort();
}

export interface CallUsage {
  inputTokens: number;
  /** Of `inputTokens`, those OpenAI served from its prompt cache (billed at the cached price). */
  cachedInputTokens: number;
  outputTokens: number;
}

/**
 * One call's cost in dollars. `serviceTier` is the tier OpenAI says served it; `estimated`
 * when the model has no known price.
 */
export function callCost(model: string, usage: CallUsage, serviceTier: string | null): { costUsd: number; estimated: boolean } {
  const price = priceOf(model);
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const standard =
    ((usage.inputTokens - cached) * price.inputPerMillion + cached * price.cachedInputPerMillion + usage.outputTokens * price.outputPerMillion) / 1_000_000;
  return { costUsd: serviceTier === 'flex' ? standard * (1 - flexDiscount) : standard, estimated: !price.known };
}
