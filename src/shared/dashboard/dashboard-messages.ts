import { pageRoutes } from '../routes.ts';
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
