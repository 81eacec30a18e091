import type { ConnectedService, ConnectionErrorCode } from './connection-outcomes.ts';

const serviceNames: Record<ConnectedService, string> = { shopify: 'Shopify', klaviyo: 'Klaviyo' };

/**
 * Every word the owner reads about "Connect in one click" (docs/decisions/0048-connect-by-oauth.md):
 * the buttons, the status of each connection, what came back from the service's consent
 * page, and disconnecting Klaviyo. The server's own words (a refused callback's page, the
 * problem kept with a stopped connection) are in src/server/connections/connection-words.ts.
 */
export const connectionMessages = {
  serviceName: (service: ConnectedService): string => serviceNames[service],

  // The buttons.
  connectShopify: 'Connect Shopify',
  connectKlaviyo: 'Connect Klaviyo',
  reconnectShopify: 'Reconnect Shopify',
  reconnectKlaviyo: 'Reconnect Klaviyo',
  disconnect: 'Disconnect',
  cancel: 'Cancel',
  retry: 'Retry',

  // The connections card of API Settings.
  sectionTitle: 'Connections',
  sectionIntro:
    "How Flowsmith reaches your store and your Klaviyo account. Connecting in one click needs no keys: you approve Flowsmith on Shopify's or Klaviyo's own page and come back here.",
  loading: 'Loading your connections',
  loadFailed: 'Could not load your connections',

  // Connecting: the setup screen, the credentials form and the connections card.
  shopifyIntro: "Enter your store's myshopify.com domain, then approve Flowsmith in Shopify. You come back here connected, with no keys to copy.",
  klaviyoIntro: 'Approve Flowsmith in your Klaviyo account. You come back here connected, with no key to create.',
  /** The shop field of the connections card (the credentials form keeps its "Shopify Store Domain"). */
  shopDomainLabel: 'Shop domain',
  shopDomainPlaceholder: 'your-store.myshopify.com',
  shopDomainHint: "Your store's myshopify.com address (Settings → Domains in your Shopify admin).",
  /** The disclosures that show today's key fields. */
  useShopifyKeys: "Use your own app's keys instead",
  useKlaviyoKey: 'Use a private key instead',
  /** Shown while the browser leaves for the service's consent page. */
  leavingFor: (service: ConnectedService) => `Opening ${serviceNames[service]} to approve Flowsmith…`,
  startFailed: (service: ConnectedService) => `Could not start connecting ${serviceNames[service]}. Please try again in a moment.`,
  /** Saving with the one-click choice before the service is connected. */
  shopifyNotConnectedYet: 'Your store is not connected yet. Connect it with "Connect Shopify" first, or use your own app\'s keys instead.',
  klaviyoNotConnectedYet: 'Klaviyo is not connected yet. Connect it with "Connect Klaviyo" first, or use a private key instead.',

  // How each service is connected, and as whom.
  how: {
    oauth: 'Connected in one click (OAuth)',
    shopifyKeys: "Connected with your own app's keys",
    klaviyoKey: 'Connected with a private API key',
  },
  notConnected: 'Not connected',
  shopifyConnectedTo: (shopName: string | null, domain: string) => (shopName ? `Connected to ${shopName} (${domain})` : `Connected to ${domain}`),
  klaviyoConnectedAs: (accountName: string | null, accountId: string) => (accountName ? `Connected as ${accountName}` : `Connected to Klaviyo account ${accountId}`),
  shopifyWithKeys: (domain: string) => `Your store ${domain}, with your own app's keys`,
  scopes: (scopes: readonly string[]) => (scopes.length > 0 ? `Scopes: ${scopes.join(', ')}` : 'Scopes: none granted'),
  scopesMissing: (missing: readonly string[]) =>
    `Flowsmith also needs ${missing.join(', ')}, which ${missing.length === 1 ? 'was' : 'were'} not granted. Connect again and approve every permission asked for.`,
  connectedOn: (time: string) => `Connected ${time}`,
  renewedAt: (time: string) => `Token last renewed ${time}`,
  notRenewed: 'Token not renewed yet',

  // A connection that stopped: its title, its problem (the server's words, else these), what it means, and the reconnect button.
  shopifyStoppedTitle: 'Shopify is no longer connected',
  klaviyoStoppedTitle: 'Klaviyo is no longer connected',
  shopifyUninstalled: (domain: string) => `Flowsmith's app was uninstalled from ${domain}.`,
  shopifyRenewalRefused: (domain: string) => `Shopify refused to renew Flowsmith's access to ${domain}.`,
  klaviyoRenewalRefused: "Klaviyo refused to renew Flowsmith's access to the account.",
  shopifyStopped: "No texts are written and nothing is delivered for the store's events until you reconnect it; they wait and go out then.",
  klaviyoStopped: 'Nothing is delivered to Klaviyo until you reconnect it or save a private API key.',

  // What the service's consent page came back with.
  connected: { shopify: 'Shopify is connected', klaviyo: 'Klaviyo is connected' } satisfies Record<ConnectedService, string>,
  connectedOnSetup: 'Fill in the rest below, then save to finish your setup.',
  notConnectedTitle: (service: ConnectedService) => `${serviceNames[service]} was not connected`,
  errors: {
    denied: (service: ConnectedService) =>
      `The connection was declined on ${serviceNames[service]}'s page, so nothing changed. Click "Connect ${serviceNames[service]}" to try again.`,
    scopes_missing: (service: ConnectedService) =>
      `${serviceNames[service]} granted fewer permissions than Flowsmith needs; the status names the missing ones. Connect again and approve every permission asked for.`,
    taken: (service: ConnectedService) =>
      service === 'shopify'
        ? 'This shop is connected to another Flowsmith account. Disconnect it there first (or uninstall the app from the shop), then connect it here.'
        : 'This Klaviyo account is connected to another Flowsmith account. Disconnect it there first, then connect it here.',
    failed: (service: ConnectedService) =>
      `${serviceNames[service]} could not be reached or did not complete the connection, so nothing changed. Please try again in a moment.`,
  } satisfies Record<ConnectionErrorCode, (service: ConnectedService) => string>,

  // Disconnecting Klaviyo.
  disconnectTitle: 'Disconnect Klaviyo?',
  disconnectExplanation:
    'Deliveries to Klaviyo stop until Klaviyo is connected again or a private API key is saved. Texts written meanwhile wait and go out once it is.',
  disconnectConfirm: 'Disconnect Klaviyo',
  disconnected: 'Klaviyo is disconnected. Deliveries to Klaviyo stop until it is connected again or a private key is saved.',
  disconnectedNotRevoked:
    "Klaviyo is disconnected here, but Klaviyo did not confirm that it ended Flowsmith's access: remove Flowsmith from your Klaviyo account's integrations to be sure.",
  disconnectFailed: 'Klaviyo could not be disconnected. Please try again in a moment.',

  // The stored credentials of API Settings, for a service connected in one click.
  rows: { shopify: 'Shopify Connection', klaviyo: 'Klaviyo Connection' } satisfies Record<ConnectedService, string>,
} as const;
