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
    betterOfTwo: (leader: string, other: string, percent: string) => `${leader} earns more than ${other} with ${percent} % probability.`,
    bestOfMany: (leader: string, count: number, percent: string) => `${leader} is the best of the ${count} variants with ${percent} % probability.`,
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

/** A group as the event log names it: "Variant B", or the holdout. */
export function experimentGroupLabel(group: string): string {
  return group === 'holdout' ? 'Holdout (your ordinary email)' : `Variant ${group}`;
}
