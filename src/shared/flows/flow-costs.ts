/*
 * How the pages write what flows cost: dollars, estimates, the shopper context's share. The
 * answers that carry the costs are described in flow-cost-schemas.ts.
 */

/** Dollars as an owner reads them: cents, or four decimals below a cent. */
export function formatUsd(amount: number): string {
  if (amount === 0) return '$0.00';
  return amount < 0.01 ? `$${amount.toFixed(4)}` : `$${amount.toFixed(2)}`;
}

/** Why a cost is an estimate, for the owner. */
export const estimatedCostReason = 'a model without a known price is counted at the dearest known OpenAI price';
/** Beside a table of costs, some marked ≈. */
export const estimatedCostNote = `≈ marks an estimate: ${estimatedCostReason}.`;

/** A cost, marked as an estimate when any of it was counted without a known price. */
export function formatCost(amount: number, estimated: boolean): string {
  return estimated ? `≈ ${formatUsd(amount)}` : formatUsd(amount);
}

/** The context's cost as the flow page says it. */
export const contextCostMessages = {
  title: 'What the shopper context costs',
  none: 'No prompt of the last 7 days used the shopper context.',
  perEvent: (tokens: string, dollars: string, events: number) =>
    `About ${tokens} tokens of each event's prompts are the shopper context, ${dollars} per event (measured on ${events} event${events === 1 ? '' : 's'} of the last 7 days).`,
  per1000: (dollars: string) => `${dollars} per 1,000 events.`,
} as const;
