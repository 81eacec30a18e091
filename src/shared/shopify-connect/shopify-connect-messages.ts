/** Shopify's webhook topics in words; a topic not listed is shown as Shopify names it. */
const topicWords: Record<string, string> = {
  CHECKOUTS_CREATE: 'Checkouts (created)',
  CHECKOUTS_UPDATE: 'Checkouts (updated)',
  CHECKOUTS_DELETE: 'Checkouts (deleted)',
  CARTS_CREATE: 'Carts (created)',
  CARTS_UPDATE: 'Carts (updated)',
  ORDERS_CREATE: 'Orders (created)',
  ORDERS_PAID: 'Orders (paid)',
};

/**
 * The "Connect store" texts (docs/product/product-rules.md §1, issue 7); the specified
 * screens have no such feature.
 */
export const shopifyConnectMessages = {
  title: 'Connect store',
  description: "Registers your store's webhooks for your active flows, so Shopify sends their events here. Flows you switch off are removed the next time you connect.",
  connect: 'Connect store',
  notPublic: 'Shopify can only deliver webhooks to a public address. Set PUBLIC_URL to the address your store can reach.',
  noCredentials: 'Save your Shopify store domain and credentials first.',
  /** Shopify refused the registration itself and said why (its own words, e.g. an address it will not deliver to). */
  shopifyFailed: (reason: string) => `Shopify did not accept the webhook registration: ${reason}`,
  /** Shopify refused the saved credentials, or they lack the webhook permissions. */
  shopifyRefusedCredentials:
    'Shopify refused your store credentials, or they lack permission to read and write webhooks. Check the store domain and credentials in API Settings, then try again.',
  /** The token reads the store but may not subscribe to these topics; `scopes` as describeShopifyScopes gives them. */
  shopifyMissingScopes: (scopes: string, count: number) =>
    `Your Shopify app lacks the Admin API access ${count === 1 ? 'scope' : 'scopes'} ${scopes} that your flows' webhooks need. Add ${count === 1 ? 'it' : 'them'} to the app's access scopes, install the new version on your store, then connect again.`,
  /** Shopify answered 403: the credentials work but may not do this. */
  shopifyForbidden: "Shopify refused access: your app lacks a permission this needs. Check the app's Admin API access scopes, then try again.",
  /** The saved domain names no store Shopify knows. */
  shopifyStoreNotFound: 'Shopify found no store at the saved domain. Check the store domain in API Settings, then try again.',
  /** No usable answer: down, slow, busy, or an answer that was not Shopify's usual one. */
  shopifyUnavailable: 'Shopify did not answer as expected just now, so nothing was changed. Please try again in a minute.',
  loadFailed: 'Could not read the webhooks registered in your store',
  connected: (changes: { created: number; updated: number; deleted: number }) =>
    changes.created + changes.updated + changes.deleted === 0
      ? 'Your store is connected; nothing needed to change.'
      : `Your store is connected: ${changes.created} added, ${changes.updated} updated, ${changes.deleted} removed.`,
  /** On a flow page the card is about the topics that flow needs, though one connect registers every active flow's. */
  flowDescription: (flowTitle: string) =>
    `Registers your store's webhooks for your active flows, so Shopify sends the events ${flowTitle} needs here while it is active. Flows you switch off are removed the next time you connect.`,

  /** The list of what Connect store registers (planStoreSubscriptions), with whether the store has it. */
  plannedTitle: 'Webhooks your active flows need',
  flowPlannedTitle: 'Webhooks this flow needs',
  noneNeeded: 'No flow that uses Shopify webhooks is switched on, so none need registering.',
  flowNoneNeeded: 'This flow is switched off, so it needs no webhooks. Switch it on, then connect your store.',
  /** Shopify topics in words, as the list names them. */
  topicInWords: (topic: string): string => topicWords[topic] ?? topic,
  /** Where a planned topic is delivered: the flow whose address receives it. */
  deliveredTo: (flowTitle: string) => `To ${flowTitle}'s address`,
  /** Before the address a planned topic is registered at today, when Connect moves it. */
  nowAt: 'Now at',
  state: {
    registered: 'Registered',
    elsewhere: 'Registered at another address: connect to move it here',
    missing: 'Not registered yet: connect to add it',
  },
  /** Something planned is not registered as planned, or something registered is no longer needed. */
  connectNeeded: 'Your store does not have these webhooks as your flows need them yet. Press Connect store to put them right.',
  staleTitle: 'Registered but no longer needed (removed when you connect)',

  /** Why each topic is registered, in the owner's words; `planStoreSubscriptions` picks the order topic's. */
  reasons: {
    CHECKOUTS_CREATE: "Abandoned Checkout starts a shopper's wait when they begin a checkout.",
    CHECKOUTS_UPDATE: 'Each change to a checkout starts its wait again, so the text is about what the shopper left behind.',
    CHECKOUTS_DELETE: 'A deleted checkout ends its wait, so no reminder is sent for it.',
    CARTS_CREATE: "Abandoned Cart starts a shopper's wait when they fill a cart.",
    CARTS_UPDATE: 'Each change to a cart starts its wait again, so the text is about what is in it.',
    ordersForPostPurchase: 'Post Purchase writes its texts from orders.',
    ordersForPostPurchaseAndTimers:
      "Post Purchase writes its texts from orders, and orders end the shoppers' abandonment timers in every flow, so a shopper who bought is not sent a reminder.",
    ordersForTimers: (flowTitle: string) =>
      `Orders end the shoppers' abandonment timers in every flow, so a shopper who bought is not sent a reminder. Post Purchase is off, so they go to ${flowTitle}'s address and no text is written for them.`,
  },
} as const;
