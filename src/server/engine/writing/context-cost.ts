import { placeholdersIn, shopperContextPlaceholders } from '../../../shared/flows/prompt-placeholders.ts';
import { priceOf } from '../../integrations/openai/openai-prices.ts';
import { SHOP_DATA_CLOSE, SHOP_DATA_OPEN } from './prompt-rendering.ts';

/**
 * What the shopper's context (history, Klaviyo's figures, recommendations) adds to the
 * prompts, measured on the prompts actually written: the characters of its placeholders
 * in the task and of their values in the shop data block, at OpenAI's rule of thumb of
 * about four characters a token for English text. An estimate, and said to be one: the
 * exact count would need the model's tokenizer, and the figure is for judging whether
 * the context is worth its price, not for billing.
 */
export const CHARACTERS_PER_TOKEN = 4;

const contextKeys: ReadonlySet<string> = new Set(shopperContextPlaceholders.map((token) => token.slice(1, -1)));

/** The characters of one prompt that are the shopper's context. */
export function contextCharactersOf(prompt: string): number {
  const open = prompt.indexOf(SHOP_DATA_OPEN);
  const close = prompt.lastIndexOf(SHOP_DATA_CLOSE);
  const task = open >= 0 ? prompt.slice(0, open) : prompt;
  let characters = placeholdersIn(task)
    .filter((token) => contextKeys.has(token.slice(1, -1)))
    .reduce((sum, token) => sum + token.length, 0);
  if (open < 0 || close < open) return characters;
  let data: unknown;
  try {
    data = JSON.parse(prompt.slice(open + SHOP_DATA_OPEN.length, close));
  } catch {
    return characters;
  }
  if (!data || typeof data !== 'object') return characters;
  for (const [key, value] of Object.entries(data)) {
    // The key, its value and the JSON around them on their line ("  "key": "value",\n").
    if (contextKeys.has(key)) characters += JSON.stringify(key).length + JSON.stringify(value).length + 5;
  }
  return characters;
}

export interface ContextCost {
  /** Events measured (those with at least one prompt written). */
  events: number;
  /** Context tokens per event, all of its prompts together. */
  tokensPerEvent: number;
  /** What those tokens cost per event at each prompt's model's input price, in dollars. */
  usdPerEvent: number;
}

/** The context's cost per event over the prompts given; null when there are none. */
export function contextCostOf(prompts: ReadonlyArray<{ eventId: string; model: string; prompt: string }>): ContextCost | null {
  if (prompts.length === 0) return null;
  const events = new Set(prompts.map((prompt) => prompt.eventId)).size;
  let tokens = 0;
  let usd = 0;
  for (const { model, prompt } of prompts) {
    const promptTokens = contextCharactersOf(prompt) / CHARACTERS_PER_TOKEN;
    tokens += promptTokens;
    // The context is in the per-event part of the input, after the cached fixed part: full input price.
    usd += (promptTokens * priceOf(model).inputPerMillion) / 1_000_000;
  }
  return { events, tokensPerEvent: tokens / events, usdPerEvent: usd / events };
}
