import type { Queryable } from '../database/database.ts';
import type { Clock } from '../platform/clock.ts';
import type { CredentialCipher } from '../platform/credential-cipher.ts';
import { clearObtainedShopifyToken, encryptionContext, findStoredCredentials, storeObtainedShopifyToken } from './credential-queries.ts';
import { shopifyShopUrl, type ShopifyAdminConnection } from '../integrations/shopify/shopify-admin.ts';
import { obtainClientCredentialsToken } from '../integrations/shopify/shopify-client-credentials.ts';
import { ServiceError } from '../integrations/service-error.ts';

/** Tokens of the client-credentials grant live about 24 h; a new one is obtained this long before. */
export const SHOPIFY_TOKEN_RENEW_BEFORE_MS = 60 * 60_000;
const TOKEN_REQUEST_TIMEOUT_MS = 8_000;

export interface ShopifyConnection extends ShopifyAdminConnection {
  domain: string;
}

export interface ShopifyAccessTokenProvider {
  /**
   * How to call the owner's shop now: its URL and a token that is valid for at least
   * SHOPIFY_TOKEN_RENEW_BEFORE_MS. Null when the owner has no credentials. Throws
   * ServiceError when Shopify refuses or cannot be reached, and
   * CredentialDecryptionError when stored values do not decrypt.
   */
  connectionFor(userId: string, signal?: AbortSignal): Promise<ShopifyConnection | null>;
  /** Call after Shopify answered 401 to a token from connectionFor: the next call obtains a new one. */
  invalidate(userId: string, accessToken: string): Promise<void>;
  /** The shop domain the owner saved, without asking Shopify for a token; null without credentials. */
  domainFor(userId: string): Promise<string | null>;
}

/**
 * Obtains and renews the 24-hour tokens of a Dev Dashboard app. The token is kept,
 * encrypted, in the owner's record so every process shares it; concurrent callers in
 * one process share one exchange.
 */
export function createShopifyAccessTokenProvider(deps: {
  db: Queryable;
  cipher: CredentialCipher;
  clock: Clock;
  shopifyBaseUrl: string | undefined;
  /**
   * The shop connected through the deployment's app (the connections feature, handed in by
   * the app): its expiring token, renewed when near its expiry or when `refused`.
   */
  oauth?: { connectionFor(userId: string, options: { refused?: string; signal?: AbortSignal }): Promise<ShopifyConnection> };
}): ShopifyAccessTokenProvider {
  const { db, cipher, clock } = deps;
  const pending = new Map<string, Promise<ShopifyConnection | null>>();

  async function connect(userId: string, signal: AbortSignal | undefined): Promise<ShopifyConnection | null> {
    const row = await findStoredCredentials(db, userId);
    if (!row) return null;
    const shopUrl = shopifyShopUrl(deps.shopifyBaseUrl, row.shopify_domain);
    const decrypt = (column: 'shopify_access_token' | 'shopify_client_id' | 'shopify_client_secret' | 'shopify_obtained_token') =>
      cipher.decrypt(row[column]!, encryptionContext(column, userId));
    if (row.shopify_auth_method === 'oauth') {
      if (!deps.oauth) throw new ServiceError('shopify', 'unauthorized', 'this Flowsmith no longer has a Shopify app (SHOPIFY_API_KEY); save your own app\'s keys in API Settings');
      return deps.oauth.connectionFor(userId, { signal });
    }
    if (row.shopify_auth_method === 'access_token') {
      return { domain: row.shopify_domain, shopUrl, accessToken: decrypt('shopify_access_token') };
    }
    const now = clock.now();
    if (row.shopify_obtained_token && row.shopify_obtained_token_expires_at && row.shopify_obtained_token_expires_at.getTime() - now.getTime() > SHOPIFY_TOKEN_RENEW_BEFORE_MS) {
      return { domain: row.shopify_domain, shopUrl, accessToken: decrypt('shopify_obtained_token') };
    }
    const timeout = AbortSignal.timeout(TOKEN_REQUEST_TIMEOUT_MS);
    const token = await obtainClientCredentialsToken(
      shopUrl,
      { clientId: decrypt('shopify_client_id'), clientSecret: decrypt('shopify_client_secret') },
      now,
      signal ? AbortSignal.any([signal, timeout]) : timeout,
    );
    await storeObtainedShopifyToken(
      db,
      userId,
      { encrypted: cipher.encrypt(token.accessToken, encryptionContext('shopify_obtained_token', userId)), expiresAt: token.expiresAt },
      { encryptedClientSecret: row.shopify_client_secret! },
    );
    return { domain: row.shopify_domain, shopUrl, accessToken: token.accessToken };
  }

  return {
    connectionFor(userId, signal) {
      const running = pending.get(userId);
      if (running) return running;
      const started = connect(userId, signal).finally(() => pending.delete(userId));
      pending.set(userId, started);
      return started;
    },
    async domainFor(userId) {
      return (await findStoredCredentials(db, userId))?.shopify_domain ?? null;
    },
    async invalidate(userId, accessToken) {
      const row = await findStoredCredentials(db, userId);
      if (row?.shopify_auth_method === 'oauth') {
        // Renewed now, once across processes; a refusal for good is kept with the connection.
        await deps.oauth?.connectionFor(userId, { refused: accessToken }).catch(() => undefined);
        return;
      }
      if (!row?.shopify_obtained_token) return;
      let stored: string;
      try {
        stored = cipher.decrypt(row.shopify_obtained_token, encryptionContext('shopify_obtained_token', userId));
      } catch {
        stored = accessToken;
      }
      if (stored === accessToken) await clearObtainedShopifyToken(db, userId, row.shopify_obtained_token);
    },
  };
}
