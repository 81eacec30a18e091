import { pageRoutes } from '../routes.ts';
import { PROCESSING_LATE_AFTER_SECONDS } from './dashboard-processing.ts';
import type { FlowHealth, SetupStepId } from './dashboard-schemas.ts';

/** The setup checklist's items: what to do, and the page where it is done. */
export const setupSteps: Record<SetupStepId, { label: string; hint: string; path: string; action: string }> = {
  keys: {
    label: 'Save your API keys',
    hint: 'Klaviyo, OpenAI and Shopify, checked with each service as you save them.',
    path: pageRoutes.apiSettings,
    action: 'Open API Settings',
  },
  store: {
    label: 'Connect your Shopify store',
    hint: 'Connect store registers the webhooks; this is done once the store’s first webhook arrives.',
    path: pageRoutes.apiSettings,
    action: 'Connect store',
  },
  pixel: {
    label: 'Add the browsing pixel',
    hint: 'Paste the custom pixel into Shopify; this is done once it sends its first event.',
    path: pageRoutes.browserAbandonment,
    action: 'Get the pixel',
  },
  event: {
    label: 'Receive a first event',
    hint: 'Send a test event from a flow page, or wait for your store’s first one.',
    path: pageRoutes.abandonedCart,
    action: 'Send a test event',
  },
};

export const flowHealthLabels: Record<FlowHealth, string> = {
  no_events: 'No events yet',
  working: 'Working',
  failing: 'Failing',
};

export const dashboardMessages = {
  checklistHeading: 'Finish setting up',
  loadFailed: 'The dashboard could not be loaded',
  lastEvent: 'Last event',
  noEvent: 'None yet',
  deliveries: 'Delivered (24 h)',
  failures: 'Failed (24 h)',
} as const;

/** How long something has waited, as the owner reads it: "40 s", "12 min", "3 h 5 min", "2 d 4 h". */
export function formatWait(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  if (whole < 60) return `${whole} s`;
  const minutes = Math.floor(whole / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}

/** A size on disk in the units a file manager uses (1 KB = 1,024 bytes). */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} bytes` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** The dashboard's Processing section (docs/decisions/0027-dashboard-and-narrow-screens.md). */
export const processingMessages = {
  heading: 'Processing',
  nothingBehind: 'Nothing behind: every event that was due has been processed.',
  behind: (count: number, oldestSeconds: number) =>
    `${count.toLocaleString('en')} ${count === 1 ? 'event is' : 'events are'} due and not finished; the oldest has waited ${formatWait(oldestSeconds)}.`,
  figures: {
    behind: 'Behind now',
    oldest: 'Oldest waiting',
    arrived: 'Arrived (last hour)',
    finished: 'Finished (last hour)',
    databaseSize: 'Database size',
  },
  noOldest: '–',
  sizeUnknown: 'Unknown',
  databaseKinds: { embedded: 'embedded', server: 'PostgreSQL server' },
  lateTitle: `Events have waited more than ${PROCESSING_LATE_AFTER_SECONDS / 60} minutes`,
  lateAdvice: {
    embedded:
      'The workers are not keeping up. Check that the app runs with its worker (ROLE=all or worker). If the load stays this high, run Flowsmith on a PostgreSQL server: the embedded database does one thing at a time (README, “Run it in production”).',
    server:
      'The workers are not keeping up. Check that the workers are running (ROLE=worker or all) and what their logs say, and start more if the load stays this high (README, “Run it in production”).',
  },
} as const;
