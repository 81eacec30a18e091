import type { Clock } from '../../platform/clock.ts';
import type { CredentialsLoader, EngineCredentials, KlaviyoOAuthAccess } from './engine-credentials.ts';
import type { CredentialCipher } from '../../platform/credential-cipher.ts';
import { loadServiceCredentials } from '../../credentials/credential-store.ts';

/**
 * What an owner connected by OAuth adds to their saved record (docs/decisions/0048-connect-by-oauth.md),
 * handed in by the app so this feature does not depend on the connections feature.
 */
export interface OAuthCredentialSources {
  /** The deployment's Shopify app secret: it signs the webhooks of the subscriptions its app made. */
  shopifyAppSecret: string | null;
  /** The owner's Klaviyo connection: its account (read, not asked of Klaviyo) and its tokens when a call needs one. */
  klaviyoAccess(userId: string): Promise<KlaviyoOAuthAccess>;
  /** Why the owner's OAuth connection of this service cannot be used, or null while it is connected. */
  connectionProblem(userId: string, service: 'shopify' | 'klaviyo'): Promise<string | null>;
}

/**
 * The engine's view of an owner's credentials, decrypted with the app's one cipher. Loading
 * asks no service: an OAuth token is asked for right before the call that uses it, so the
 * webhook intake (which reads the signing secrets here) never waits for a renewal.
 */
export function createEngineCredentialsLoader(cipher: CredentialCipher, clock: Clock, oauth?: OAuthCredentialSources): CredentialsLoader {
  return async (db, userId) => {
    const credentials = await loadServiceCredentials(db, cipher, userId, clock.now());
    if (!credentials) return null;
    const signingSecrets = credentials.shopify.signingSecrets;
    const appSecret = credentials.shopify.authMethod === 'oauth' ? (oauth?.shopifyAppSecret ?? null) : null;
    const engineCredentials: EngineCredentials = {
      klaviyoApiKey: credentials.klaviyoApiKey ?? '',
      openaiApiKey: credentials.openaiApiKey,
      openaiModel: credentials.openaiModel,
      shopifySigningSecrets: appSecret ? [...new Set([...signingSecrets, appSecret])] : signingSecrets,
    };
    if (credentials.klaviyoAuthMethod === 'oauth' && oauth) engineCredentials.klaviyoOAuth = await oauth.klaviyoAccess(userId);
    if (oauth) {
      const shopifyProblem = credentials.shopify.authMethod === 'oauth' ? await oauth.connectionProblem(userId, 'shopify') : null;
      const klaviyoProblem = !shopifyProblem && credentials.klaviyoAuthMethod === 'oauth' ? await oauth.connectionProblem(userId, 'klaviyo') : null;
      if (shopifyProblem) engineCredentials.connectionProblem = { service: 'shopify', detail: shopifyProblem };
      else if (klaviyoProblem) engineCredentials.connectionProblem = { service: 'klaviyo', detail: klaviyoProblem };
    }
    return engineCredentials;
  };
}
