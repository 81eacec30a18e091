/**
 * What the connections feature says on the server: the refusal page of a callback, and
 * the problems kept with a connection that stopped. No word comes from the request.
 */
export const connectionWords = {
  shopifyNotOffered: 'This Flowsmith does not connect Shopify by OAuth; enter your own app\'s keys in API Settings.',
  klaviyoNotOffered: 'This Flowsmith does not connect Klaviyo by OAuth; enter a private API key in API Settings.',
  forgedCallback: 'This answer was not signed by Shopify (its hmac does not match, or it is too old). Nothing was changed. Start again from Flowsmith.',
  badShop: 'The shop named in this answer is not a *.myshopify.com store. Nothing was changed.',
  unknownState:
    'This connection link was already used, has expired, or was not started from Flowsmith. Nothing was changed. Start again from API Settings.',
  otherAccount:
    'This connection was started from another Flowsmith account, or you are signed out. Nothing was changed. Sign in to the account that started it and try again.',
  otherShop: 'Shopify answered for another shop than the one you named. Nothing was changed. Start again from API Settings.',
  missingCode: 'The answer carries no authorization code. Nothing was changed.',
  shopifyNotConnected: 'Your Shopify store is not connected. Connect it again under API Settings.',
  shopifyUninstalled: (shop: string) => `Flowsmith's app was uninstalled from ${shop}; its access ended at once.`,
  shopifyRenewalRefused: (detail: string) => `Shopify refused to renew Flowsmith's access to the store (${detail}).`,
  klaviyoNotConnected: 'Klaviyo is not connected. Connect it again under API Settings, or save a private API key.',
  klaviyoDisconnected: 'Klaviyo was disconnected from Flowsmith.',
  klaviyoRenewalRefused: (detail: string) => `Klaviyo refused to renew Flowsmith's access to the account (${detail}); the app may have been removed in Klaviyo.`,
  refusedPageTitle: 'This connection could not be completed',
  backToSettings: 'Back to API Settings',
} as const;
