import { HOLDOUT_ARM, MAX_ARMS, MAX_HOLDOUT_PERCENT, PROMOTE_PROBABILITY, type ExperimentGroupKey } from '../../shared/experiments/experiment-settings.ts';
import type { ExperimentSplit } from '../../shared/experiments/experiment-schemas.ts';

/**
 * The experiment card's own words: headings, labels, buttons and confirmations, which only
 * the page says. What the server says too (what the form refuses, what the API answers,
 * the summary) is in src/shared/experiments/experiment-messages.ts.
 */
export const experimentTexts = {
  title: 'Experiment',
  intro:
    'Try up to 4 prompt variants on real shoppers and learn which one earns more orders. A holdout share of shoppers gets your ordinary email instead of AI text, so you also see what the texts add.',
  loading: 'Loading experiments',
  loadFailed: 'The experiments could not be loaded.',
  retry: 'Retry',

  // The set-up form.
  formLabel: 'Experiment set-up',
  changeFormLabel: 'Change the experiment',
  changeNote:
    'Changing a variant’s prompts, whether it uses what is known of the shopper, or the holdout starts a new experiment; the current results stay readable among the past experiments. What decides the best variant, the split, the minimum and automatic promotion change without a restart.',
  variantsHeading: 'Variants',
  variant: (key: string) => `Variant ${key}`,
  variantAHint: 'Variant A starts with the flow’s current prompts.',
  addVariant: 'Add variant',
  addVariantLimit: `An experiment has at most ${MAX_ARMS} variants`,
  removeVariant: (key: string) => `Remove variant ${key}`,
  remove: 'Remove',
  noAssistants: 'This flow has no AI assistant to write variants for: add one in the flow’s configuration first.',
  settingsHeading: 'Settings',
  holdoutLabel: 'Holdout (%)',
  holdoutHint: `Shoppers who get your ordinary email instead of AI text, from 0 to ${MAX_HOLDOUT_PERCENT} %.`,
  splitLegend: 'Traffic split',
  splitOptions: {
    fixed: 'Fixed: every variant gets the same share of shoppers',
    adaptive: 'Adaptive: once every variant has its minimum of shoppers, more shoppers go to the variants most likely to be best',
  } satisfies Record<ExperimentSplit, string>,
  autoPromoteLabel: `Promote a winner automatically once it is the best with ${Math.round(PROMOTE_PROBABILITY * 100)} % probability`,
  minExposuresLabel: 'Shoppers per variant first',
  minExposuresHint: 'How many shoppers every variant needs before an adaptive split moves traffic or a winner is promoted automatically.',
  start: 'Start experiment',
  starting: 'Starting…',
  saveChanges: 'Save changes',
  saving: 'Saving…',
  cancel: 'Cancel',
  saveFailed: 'The experiment could not be saved.',

  // The running experiment.
  runningHeading: 'Running experiment',
  runningNote: 'While it runs, each shopper gets the texts of their variant’s prompts. Changes to the prompts in the flow’s configuration take effect once it ends without a winner.',
  startedAt: (date: string) => `Started ${date}`,
  endedAt: (started: string, ended: string) => `${started} to ${ended}`,
  settingsSummary: {
    holdout: 'Holdout',
    split: 'Split',
    splitNames: { fixed: 'Fixed', adaptive: 'Adaptive' } satisfies Record<ExperimentSplit, string>,
    minExposures: 'Shoppers per variant first',
    autoPromote: 'Automatic promotion',
    on: 'On',
    off: 'Off',
    window: 'Orders counted within',
    days: (days: number) => (days === 1 ? '1 day' : `${days} days`),
  },
  changeVariants: 'Change variants',
  endExperiment: 'End experiment',
  promoteVariant: (key: string) => `Promote variant ${key}`,
  confirmPromote: (key: string) =>
    `Promote variant ${key}? Its prompts become the flow’s prompts for every shopper, and the experiment ends. Its results stay readable among the past experiments.`,
  confirmEnd: 'End the experiment without a winner? The flow keeps its current prompts, and the results stay readable among the past experiments.',
  confirmPromoteButton: (key: string) => `Yes, promote variant ${key}`,
  confirmEndButton: 'End without a winner',
  actionFailed: 'The experiment could not be changed.',

  // The results.
  resultsCaption: (started: string) => `Results by group of the experiment started ${started}`,
  summaryHeading: 'What the results say',
  groupName: (key: ExperimentGroupKey) => (key === HOLDOUT_ARM ? 'Holdout (ordinary email)' : `Variant ${key}`),
  columns: {
    group: 'Group',
    exposures: 'Shoppers',
    orders: 'Orders',
    converted: 'Converted',
    conversion: 'Conversion',
    revenue: 'Revenue',
    probabilityBest: 'Chance best',
    lift: 'Lift over holdout',
    trafficShare: 'Traffic now',
  },
  noRevenue: 'none',
  perShopper: (amount: string) => `${amount} per shopper`,
  /** Read before an interval by screen readers; on screen the interval is the smaller line under its value. */
  intervalLabel: '95 % interval',
  notApplicable: 'does not apply to the holdout',
  points: (signed: string) => `${signed} points`,
  winner: 'Winner',
  promptsHeading: 'The variants’ prompts',

  // Past experiments.
  pastHeading: (count: number) => `Past experiments (${count})`,
  pastExperiment: (started: string) => `Experiment started ${started}`,
} as const;
