import { describeShopifyScopes, shopifyScopes } from '../shopify-connect/shopify-scopes.ts';
import { klaviyoKeyScopes, klaviyoScopeInWords, listInWords } from './klaviyo-scopes.ts';

/** How to make a key with every scope Flowsmith uses, in the words of Klaviyo's API key screen. */
const klaviyoKeyAccess = `Read access to Accounts and Full access to Events, Lists and Profiles (scopes ${klaviyoKeyScopes.join(', ')})`;
const klaviyoWriteScopes = klaviyoKeyScopes.filter((scope) => scope.endsWith(':write'));

/**
 * The credentials' user-facing texts, worded as docs/product/specification.md §2, §5
 * and §8 give them; the ones the screens do not have (the model, the Shopify domain and
 * app, the live checks) are ours, after docs/product/product-rules.md §1.
 */
export const credentialMessages = {
  invalidKeys: 'One or more API keys are invalid',
  servicesUnreachable: 'A service could not be reached to check your keys, so nothing was saved. Please try again in a moment.',
  saveFailed: 'Failed to save API credentials',
  unexpected: 'An unexpected error occurred',
  loadError: (reason: string) => `Error loading credentials: ${reason}`,
  loadFailed: 'Failed to load API credentials',
  updated: 'API credentials updated successfully',
  setupCompleted: 'Setup completed successfully',
  encryptionWarningTitle: 'Encryption Warning',
  encryptionWarning:
    'There may be an issue with the encryption system. Your API keys might not be properly encrypted. Please contact support if this issue persists.',
  footer: 'Your API credentials are encrypted before storage and are never shared with third parties.',
  notSet: 'Not set',
  sameAsClientSecret: 'Same as the client secret',
  undecryptable: '(cannot be decrypted)',
  /** What the owner gives the Shopify app: exactly the scopes of every query and webhook topic Flowsmith uses. */
  shopifyScopesHint: `Give the app the Admin API access scopes ${describeShopifyScopes(shopifyScopes)}.`,
  /** Under the Klaviyo key field of the setup and API settings pages. */
  klaviyoKeyHint: `A private API key (Settings → API keys) with ${klaviyoKeyAccess}. Lists are needed for bulk delivery under a backlog.`,
} as const;

export const credentialValidationMessages = {
  klaviyoApiKeyRequired: 'Klaviyo API Key is required',
  openaiApiKeyRequired: 'OpenAI API Key is required',
  openaiModelRequired: 'OpenAI model is required',
  shopifyAccessTokenRequired: 'Shopify Access Token is required',
  shopifyDomainRequired: 'Shopify store domain is required',
  shopifyDomainInvalid: "Enter your store's myshopify.com domain, such as your-store.myshopify.com",
  shopifyClientIdRequired: 'Shopify client ID is required',
  shopifyClientSecretRequired: 'Shopify client secret is required',
  shopifySigningSecretRequired: 'Shopify webhook signing secret is required',
  oneWord: (label: string) => `${label} must be pasted as one piece, without spaces or line breaks`,
  tooLong: (label: string, max: number) => `${label} must be at most ${max} characters`,
  openaiModelInvalid: 'Enter an OpenAI model name such as gpt-5-mini',
  assistantIdRetired:
    'OpenAI shut the Assistants API down on 26 August 2026, so assistant IDs (asst_…) no longer work. Enter a model such as gpt-5-mini instead: your prompts now live in Flowsmith.',
  storedPromptRetired:
    'OpenAI retired stored prompts (pmpt_…) on 30 November 2026. Enter a model such as gpt-5-mini instead: your prompts now live in Flowsmith.',
  unresolvableMasked: 'The stored value cannot be decrypted; please enter it again',
} as const;

/**
 * What the live check says under a field (docs/product/product-rules.md §1: each
 * credential is checked against its service).
 */
export const credentialCheckMessages = {
  klaviyoKeyInvalid: 'Klaviyo did not accept this API key. Create a private API key under Settings → API keys in Klaviyo.',
  /** The read scopes the check found missing; the write scopes cannot be checked without writing, so they are named. */
  klaviyoKeyMissingScope: (missing: string[]) =>
    `This Klaviyo API key lacks ${listInWords(missing.map(klaviyoScopeInWords))}. Edit the key in Klaviyo (Settings → API keys) to give it ${klaviyoKeyAccess}; the write access (${klaviyoWriteScopes.join(', ')}) cannot be checked without writing, so make sure it is there too.`,
  klaviyoUnreachable: 'Klaviyo could not be reached to check this key. Nothing was saved; please try again in a moment.',
  klaviyoNotConnected: 'Klaviyo is not connected to this account. Click "Connect Klaviyo", or use a private API key instead.',
  shopifyNotConnected: 'This shop is not connected to this account. Click "Connect Shopify" for it, or use your own app\'s keys instead.',
  openaiKeyInvalid: 'OpenAI did not accept this API key. Create a key at platform.openai.com → API keys.',
  openaiModelUnavailable: (model: string) => `This OpenAI key cannot use the model "${model}". Choose one of the models offered.`,
  openaiModelShutDown: (model: string, shutdownDate: string) =>
    `OpenAI shut the model "${model}" down on ${shutdownDate}, so it can no longer write texts. Choose one of the models offered.`,
  openaiUnreachable: 'OpenAI could not be reached to check this key. Nothing was saved; please try again in a moment.',
  shopifyTokenInvalid: 'Shopify did not accept this access token for this store.',
  shopifyTokenForbidden: 'This access token may not read the store. Check the app’s Admin API access scopes.',
  /** The app's Admin API scopes lack some Flowsmith uses; `scopes` as describeShopifyScopes gives them. */
  shopifyScopesMissing: (scopes: string, count: number) =>
    `The app lacks the Admin API access ${count === 1 ? 'scope' : 'scopes'} ${scopes}. Add ${count === 1 ? 'it' : 'them'} to the app’s access scopes, release and install the new version on your store, then save again.`,
  shopifyClientInvalid: 'Shopify did not accept this client ID and client secret for this store.',
  shopifyStoreNotFound: 'No Shopify store answers at this domain. Check the myshopify.com domain of your store.',
  shopifyStoreUnavailable: 'Shopify says this store is unavailable (closed, frozen or paused).',
  shopifyUnreachable: 'Shopify could not be reached to check this store. Nothing was saved; please try again in a moment.',
} as const;
