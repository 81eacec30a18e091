/**
 * The experiments' words (docs/decisions/0043-experiments.md): what the form refuses,
 * what the API answers, and the results said plainly. Shared, so the flow page and the
 * server say the same thing.
 */
export const experimentMessages = {
  splitChoice: 'Choose a fixed or an adaptive split',
  armNeedsPrompts: 'Every variant needs a prompt for each assistant',
  armCount: 'An experiment has 1 to 4 variants',
  holdoutRange: 'The holdout is a whole percentage from 0 to 50',
  minExposuresRange: 'The minimum is a whole number of shoppers from 10 to 100,000',
  autoPromoteChoice: 'Choose whether a winner is promoted automatically',
  nothingToCompare: 'Add a second variant or a holdout: one variant alone has nothing to be compared with',
  promoteChoice: 'Choose the variant to promote: A, B, C or D',
  objectiveChoice: 'Choose what decides the best variant: conversion or revenue per shopper',
  currencyFormat: 'A currency is its three-letter ISO code in capitals, such as USD or EUR',
  currencyRequired: 'Revenue per shopper is judged in one currency: name it, such as USD or EUR',
  shopperContextChoice: 'Choose whether the variant uses what is known of the shopper',
  /** A variant's checkbox: off, its texts are written without the shopper's context (to measure what it adds). */
  shopperContextLabel: 'Use what is known of the shopper (history, Klaviyo predictions, recommendations)',
  /** What decides the best variant, as the form offers it and the results name it. */
  objectiveLabel: 'Best variant by',
  objectiveNames: { conversion: 'Conversion', revenue_per_exposure: 'Revenue per shopper' },
  objectiveHint: 'Conversion: the share of shoppers who order. Revenue per shopper: what the orders bring per shopper reached, shoppers who did not order counting as nothing.',
  objectiveCurrencyLabel: 'Currency',
  objectiveCurrencyHint: 'Only orders in this currency count towards the best variant; nothing is converted.',
  /** A variant's revenue per shopper over the holdout's, in the results: "+€1.20 over the holdout". */
  overHoldout: (amount: string) => `${amount} over the holdout`,
  /** Under a variant's prompts, when its texts leave the shopper's context out. */
  withoutShopperContext: 'Written without what is known of the shopper (history, Klaviyo predictions, recommendations).',
  /** The objective as the settings and results name it: "Revenue per shopper (EUR)". */
  objectiveName: (objective: 'conversion' | 'revenue_per_exposure', currency: string | null) =>
    objective === 'revenue_per_exposure' ? `Revenue per shopper (${currency ?? '?'})` : 'Conversion',
  /** A variant's prompts do not match the flow's assistants. */
  unknownProperty: (property: string) => `No assistant of this flow writes "${property}"; each variant's prompts are for the flow's assistants`,
  missingProperty: (variant: string, property: string) => `Variant ${variant} has no prompt for "${property}"`,
  noExperiment: 'This flow has no experiment running.',
  noSuchArm: (arm: string) => `This experiment has no variant ${arm}.`,
  started: 'Experiment started',
  restarted: 'The variants changed, so a new experiment started; the last one’s results are kept below',
  updated: 'Experiment settings saved',
  promoted: (arm: string) => `Variant ${arm} promoted: its prompts are now the flow's prompts`,
  stopped: 'Experiment ended without a winner',
  notEnoughData: 'not enough data',
  /** The flow's configuration form, while an experiment runs. */
  promptsWaitTitle: 'An experiment is running on this flow',
  promptsWait: 'Shoppers get the prompts of their experiment variant until it ends. Prompts saved here are used once it ends without a winner; promoting a winner replaces them with its own.',
  /** The event log's line for a holdout shopper's delivery. */
  holdoutDelivered: "held out: the flow's properties cleared, so the shopper gets your ordinary email",
  /** The results, said plainly. */
  summary: {
    waiting: 'No shopper has been assigned yet: the results start with the next event.',
    notEnoughArms: 'Not enough data to compare the variants yet: every variant needs shoppers.',
    betterOfTwo: (leader: string, other: string, percent: string) => `${leader} converts better than ${other} with ${percent} % probability.`,
    bestOfMany: (leader: string, count: number, percent: string) => `${leader} is the best of the ${count} variants at conversion with ${percent} % probability.`,
    betterOfTwoByRevenue: (leader: string, other: string, percent: string, currency: string) =>
      `${leader} brings more revenue per shopper (${currency}) than ${other} with ${percent} % probability.`,
    bestOfManyByRevenue: (leader: string, count: number, percent: string, currency: string) =>
      `${leader} is the best of the ${count} variants at revenue per shopper (${currency}) with ${percent} % probability.`,
    /** What the AI text adds to revenue per shopper, all variants together, in the objective's currency. */
    revenueLift: (amount: string, low: string, high: string) => `AI text adds ${amount} of revenue per shopper over your ordinary email, between ${low} and ${high}.`,
    revenueLoss: (amount: string, low: string, high: string) => `AI text brings ${amount} less revenue per shopper than your ordinary email (a difference between ${low} and ${high}).`,
    otherCurrencies: (currency: string) => `Only orders in ${currency} decide the best variant; revenue in other currencies is shown but not compared.`,
    notEnoughHoldout: 'Not enough data to tell what AI text adds yet: the holdout and the variants need shoppers.',
    lift: (points: string, low: string, high: string) => `AI text adds ${points} points of conversion over your ordinary email, between ${low} and ${high}.`,
    loss: (points: string, low: string, high: string) => `AI text converts ${points} points less than your ordinary email (a difference between ${low} and ${high}).`,
    unsure: 'That interval includes no difference at all: keep the experiment running to be sure.',
    perCurrency: 'Revenue is counted per currency; nothing is converted.',
  },
  endReason: {
    promoted: (arm: string) => `Ended: variant ${arm} promoted by you.`,
    auto_promoted: (arm: string) => `Ended: variant ${arm} promoted automatically, as the best with at least 95 % probability.`,
    changed: 'Ended: the variants were changed, which started a new experiment.',
    stopped: 'Ended without a winner.',
  },
} as const;

/** An arm's name with what sets it apart beyond its prompts: "B (no shopper context)". */
export function experimentArmLabel(key: string, shopperContext: boolean): string {
  return shopperContext ? key : `${key} (no shopper context)`;
}

/** A group as the event log names it: "Variant B", or the holdout. */
export function experimentGroupLabel(group: string): string {
  return group === 'holdout' ? 'Holdout (your ordinary email)' : `Variant ${group}`;
}
