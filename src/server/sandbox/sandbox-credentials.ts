import type { CredentialsLoader, EngineCredentials } from '../engine/spine/engine-credentials.ts';
import { CredentialDecryptionError, type CredentialCipher } from '../platform/credential-cipher.ts';
import type { Clock } from '../platform/clock.ts';
import { findSandboxAccount, isInSandboxPeriod, type SandboxAccount } from './sandbox-queries.ts';
import type { SandboxAddresses } from './sandbox-listener.ts';

/** The model the sample writer names when the owner has saved none (no call is made with it). */
export const SANDBOX_DEFAULT_MODEL = 'gpt-5-mini';

/** The context the sandbox's own OpenAI key is encrypted for (never another owner's, never another column's). */
export function sandboxKeyContext(userId: string): string {
  return `sandbox_accounts.openai_api_key:${userId}`;
}

/**
 * The engine's choice of services (docs/decisions/0026-sandbox.md): an event received
 * while its owner was in the sandbox goes to the sandbox services on this process's
 * loopback listener, with the owner's sandbox token as every key; any other event goes
 * to the configured services with the saved credentials (`real`). OpenAI is the one
 * exception: with a key of the owner's (given for the sandbox, or saved), the sandbox
 * asks the configured OpenAI with it, so the owner sees real texts for the sample shop.
 */
export function withSandboxServices(
  real: CredentialsLoader,
  deps: { addresses: () => SandboxAddresses; cipher: CredentialCipher; clock: Clock; openaiBaseUrl: string },
): CredentialsLoader {
  return async (db, userId, receivedAt) => {
    if (!(await isInSandboxPeriod(db, userId, receivedAt ?? deps.clock.now()))) return real(db, userId, receivedAt);
    const account = await findSandboxAccount(db, userId);
    if (!account) return real(db, userId, receivedAt);
    return sandboxCredentials(account, await real(db, userId), deps);
  };
}

/**
 * The sandbox's own OpenAI key; null when it no longer decrypts (the credentials key was
 * rotated, which re-encrypts the saved credentials only): the sandbox then writes as
 * without it, which sends nothing anywhere, and the owner can enter the key again.
 */
function decryptOwnKey(cipher: CredentialCipher, account: SandboxAccount): string | null {
  try {
    return cipher.decrypt(account.encryptedOpenaiApiKey!, sandboxKeyContext(account.userId));
  } catch (error) {
    if (error instanceof CredentialDecryptionError) return null;
    throw error;
  }
}

async function sandboxCredentials(
  account: SandboxAccount,
  saved: EngineCredentials | null,
  deps: { addresses: () => SandboxAddresses; cipher: CredentialCipher; openaiBaseUrl: string },
): Promise<EngineCredentials> {
  const addresses = deps.addresses();
  const ownKey = account.encryptedOpenaiApiKey ? decryptOwnKey(deps.cipher, account) : null;
  const openaiKey = ownKey ?? saved?.openaiApiKey ?? null;
  return {
    klaviyoApiKey: account.accessToken,
    openaiApiKey: openaiKey ?? account.accessToken,
    openaiModel: saved?.openaiModel ?? SANDBOX_DEFAULT_MODEL,
    // The sample shop signs its webhooks with its own secret; the owner's real shop, if
    // connected, still verifies (its events then go to the sandbox too).
    shopifySigningSecrets: [account.shopSigningSecret, ...(saved?.shopifySigningSecrets ?? [])],
    sandbox: {
      writer: openaiKey ? 'openai' : 'sample',
      openaiBaseUrl: openaiKey ? deps.openaiBaseUrl : addresses.openaiBaseUrl,
      klaviyoBaseUrl: addresses.klaviyoBaseUrl,
      // One request-slot key per owner: the sample shop is everyone's, its rate is not.
      shop: { domain: `sandbox-${account.userId}.invalid`, shopUrl: addresses.shopifyShopUrl, accessToken: account.accessToken },
    },
  };
}
