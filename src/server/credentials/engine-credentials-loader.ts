import type { Clock } from '../platform/clock.ts';
import type { CredentialsLoader } from '../engine/engine-credentials.ts';
import type { CredentialCipher } from './credential-cipher.ts';
import { loadServiceCredentials } from './credential-store.ts';

/** The engine's view of an owner's credentials, decrypted with the app's one cipher. */
export function createEngineCredentialsLoader(cipher: CredentialCipher, clock: Clock): CredentialsLoader {
  return async (db, userId) => {
    const credentials = await loadServiceCredentials(db, cipher, userId, clock.now());
    if (!credentials) return null;
    return {
      klaviyoApiKey: credentials.klaviyoApiKey,
      openaiApiKey: credentials.openaiApiKey,
      openaiModel: credentials.openaiModel,
      shopifySigningSecrets: credentials.shopify.signingSecrets,
    };
  };
}
