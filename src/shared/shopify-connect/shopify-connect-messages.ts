/** The "Connect store" texts (PRODUCT.md, issue 7); SPEC.md has no such feature. */
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
  noneRegistered: 'No webhooks of your flows are registered in your store yet.',
  registeredTitle: 'Registered webhooks',
  connected: (changes: { created: number; updated: number; deleted: number }) =>
    changes.created + changes.updated + changes.deleted === 0
      ? 'Your store is connected; nothing needed to change.'
      : `Your store is connected: ${changes.created} added, ${changes.updated} updated, ${changes.deleted} removed.`,
  /** On a flow page the card is about that flow's topics, though one connect registers every active flow's. */
  flowDescription: (flowTitle: string, topics: readonly string[]) =>
    `Registers your store's webhooks for your active flows, so Shopify sends this flow's events (${topics.join(', ')}) here while ${flowTitle} is active. Flows you switch off are removed the next time you connect.`,
  flowNoneRegistered: 'No webhooks of this flow are registered in your store yet.',
  flowRegisteredTitle: 'Registered webhooks of this flow',
} as const;
