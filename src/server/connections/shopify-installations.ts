import '@shopify/shopify-api/adapters/node';
import { ApiVersion, LogSeverity, shopifyApi } from '@shopify/shopify-api';
import type pg from 'pg';
import { inTransaction } from '../database/database.ts';
import type { Logger } from 'pino';
import type { CredentialCipher } from '../platform/credential-cipher.ts';
import type { Clock } from '../platform/clock.ts';
import type { ServiceConditions } from '../service-conditions/service-conditions.ts';
import { ServiceError } from '../integrations/service-error.ts';
import { fetchShop, shopifyShopUrl, type ShopifyAdminConnection } from '../integrations/shopify/shopify-admin.ts';
import { exchangeShopifyCode, refreshShopifyToken, ShopifyGrantRefused, type ShopifyOAuthTokens } from '../integrations/shopify/shopify-oauth-tokens.ts';
import { createShopSubscription, listShopSubscriptions, updateShopSubscription } from '../shopify-connect/webhook-subscriptions.ts';
import { shopifyScopes } from '../../shared/shopify-connect/shopify-scopes.ts';
import { shopifyWebhookAddressProblem } from '../../shared/flows/flow-schemas.ts';
import type { ConnectionErrorCode } from '../../shared/connections/connection-outcomes.ts';
import type { ShopifyConnectionStatus } from '../../shared/connections/connection-schemas.ts';
import { consumeOAuthState, issueOAuthState } from './oauth-state-queries.ts';
import { findInstallation, findInstallationOwner, markUninstalled, saveInstallation, updateInstallationScopes } from './shopify-installation-queries.ts';
import { createTokenRenewal, RenewalRefused, tokenContext, type TokenRenewal } from './token-renewal.ts';
import { connectionWords as w } from './connection-words.ts';
import { switchCredentialsToShopifyOAuth } from '../credentials/credential-queries.ts';

/**
 * Shops connected through the deployment's own Shopify app, by OAuth
 * (docs/decisions/0048-connect-by-oauth.md). Shopify's official library checks what it is
 * best placed to check: the `hmac` of the install link and of the callback (with its
 * timestamp) and the form of the shop's name. The code exchange and the renewals are
 * ours (integrations/shopify/shopify-oauth-tokens.ts), since they must go through
 * SHOPIFY_BASE_URL, our timeouts and our error words, and the tokens are kept encrypted
 * in shopify_installations, which this module owns.
 */
export interface ShopifyApp {
  clientId: string;
  clientSecret: string;
}

/** Where the app's own webhooks (uninstall, scopes, compliance) come: one address for every shop. */
export const SHOPIFY_APP_WEBHOOKS_PATH = '/api/shopify-app/webhooks';
export const SHOPIFY_CALLBACK_PATH = '/api/connections/shopify/callback';
export const SHOPIFY_INSTALL_PATH = '/api/connections/shopify/install';
const APP_TOPICS = ['APP_UNINSTALLED', 'APP_SCOPES_UPDATE'] as const;

/** How a callback ended: back to the app's page with a code, or refused with a page of its own. */
export type CallbackOutcome =
  | { kind: 'connected'; returnTo: string }
  | { kind: 'error'; returnTo: string; code: ConnectionErrorCode }
  | { kind: 'refused'; reason: string };


export interface ShopifyInstallations {
  readonly offered: boolean;
  /** The address of Shopify's consent page for the owner and shop; the state is bound to the owner. */
  begin(userId: string, shopDomain: string, returnTo: string): Promise<string>;
  /** Checks and completes Shopify's callback for the signed-in owner (null: nobody is signed in). */
  complete(query: Record<string, string>, sessionUserId: string | null): Promise<CallbackOutcome>;
  /** The shop of a genuine install link (Shopify's hmac over it), or null. */
  launchedShop(query: Record<string, string>): Promise<string | null>;
  /** Whether a webhook body was signed by the deployment's app. */
  appSecret(): string | null;
  status(userId: string): Promise<ShopifyConnectionStatus | null>;
  /** How to call the owner's shop now, renewing the token when it is near its expiry or was refused. */
  connectionFor(userId: string, options?: { refused?: string; signal?: AbortSignal }): Promise<{ domain: string; shopUrl: string; accessToken: string }>;
  ownerOfShop(shopDomain: string): Promise<string | null>;
  /** Shopify said the app was uninstalled: the tokens go at once; the row stays for a re-install. */
  uninstalled(shopDomain: string): Promise<string | null>;
  scopesUpdated(shopDomain: string, scopes: string[]): Promise<void>;
}

export function createShopifyInstallations(deps: {
  pool: pg.Pool;
  cipher: CredentialCipher;
  clock: Clock;
  logger: Logger;
  conditions: ServiceConditions;
  app: ShopifyApp | null;
  publicUrl: string;
  shopifyBaseUrl: string | undefined;
}): ShopifyInstallations {
  const { pool, cipher, clock, app } = deps;
  const logger = deps.logger.child({ module: 'shopify-installations' });
  const library = app
    ? shopifyApi({
        apiKey: app.clientId,
        apiSecretKey: app.clientSecret,
        scopes: [...shopifyScopes],
        hostName: new URL(deps.publicUrl).host,
        hostScheme: new URL(deps.publicUrl).protocol === 'http:' ? 'http' : 'https',
        apiVersion: ApiVersion.October26,
        isEmbeddedApp: false,
        logger: { level: LogSeverity.Error, log: async () => {} },
      })
    : null;
  const shopUrlOf = (domain: string) => shopifyShopUrl(deps.shopifyBaseUrl, domain);
  const encrypt = (userId: string, column: 'access_token' | 'refresh_token', value: string) => cipher.encrypt(value, tokenContext('shopify_installations', column, userId));

  const renewal: TokenRenewal = createTokenRenewal({
    db: pool,
    cipher,
    clock,
    table: 'shopify_installations',
    service: 'shopify',
    notConnected: w.shopifyNotConnected,
    async renew(userId, refreshToken, signal) {
      const domain = await domainOf(userId);
      try {
        const tokens = await refreshShopifyToken(shopUrlOf(domain ?? ''), app!, refreshToken, { now: clock.now(), signal });
        return renewedFrom(tokens, refreshToken);
      } catch (error) {
        if (error instanceof ShopifyGrantRefused) throw new RenewalRefused(w.shopifyRenewalRefused(error.said));
        throw error;
      }
    },
    async onRefused(userId, problem) {
      await deps.conditions.raise({ userId, kind: 'shopify_uninstalled', detail: problem });
    },
  });

  async function domainOf(userId: string): Promise<string | null> {
    return (await findInstallation(pool, userId))?.shop_domain ?? null;
  }

  function renewedFrom(tokens: ShopifyOAuthTokens, previousRefreshToken: string) {
    return {
      accessToken: tokens.accessToken,
      accessTokenExpiresAt: tokens.accessTokenExpiresAt,
      refreshToken: tokens.refreshToken ?? previousRefreshToken,
      refreshTokenExpiresAt: tokens.refreshTokenExpiresAt,
      scopes: tokens.scope || null,
    };
  }

  async function validHmac(query: Record<string, string>): Promise<boolean> {
    if (!library || typeof query.hmac !== 'string') return false;
    try {
      return await library.utils.validateHmac(query);
    } catch {
      // A timestamp outside Shopify's tolerance, a malformed query: not Shopify's.
      return false;
    }
  }

  function shopOf(query: Record<string, string>): string | null {
    const raw = typeof query.shop === 'string' ? query.shop.trim().toLowerCase() : '';
    const sanitized = library && raw ? library.utils.sanitizeShop(raw) : null;
    return sanitized && sanitized.endsWith('.myshopify.com') ? sanitized : null;
  }

  /** Registers the app's uninstall and scope webhooks; PUBLIC_URL must be an https address Shopify accepts. */
  async function registerAppWebhooks(connection: ShopifyAdminConnection): Promise<void> {
    const uri = `${deps.publicUrl}${SHOPIFY_APP_WEBHOOKS_PATH}`;
    if (shopifyWebhookAddressProblem(uri)) {
      logger.warn({ uri }, 'app webhooks not registered: Shopify takes only https addresses (set them in the app configuration instead)');
      return;
    }
    const signal = AbortSignal.timeout(15_000);
    const existing = await listShopSubscriptions(connection, signal);
    for (const topic of APP_TOPICS) {
      const found = existing.filter((subscription) => subscription.topic === topic);
      if (found.some((subscription) => subscription.uri === uri)) continue;
      if (found[0]) await updateShopSubscription(connection, found[0].id, uri, signal);
      else await createShopSubscription(connection, topic, uri, signal);
    }
  }

  return {
    offered: app !== null,
    appSecret: () => app?.clientSecret ?? null,

    async begin(userId, shopDomain, returnTo) {
      if (!app) throw new ServiceError('shopify', 'bad_request', w.shopifyNotOffered);
      const state = await issueOAuthState(pool, cipher, { userId, service: 'shopify', shopDomain, codeVerifier: null, returnTo, now: clock.now() });
      const authorize = new URL(`${shopUrlOf(shopDomain)}/admin/oauth/authorize`);
      authorize.searchParams.set('client_id', app.clientId);
      authorize.searchParams.set('scope', shopifyScopes.join(','));
      authorize.searchParams.set('redirect_uri', `${deps.publicUrl}${SHOPIFY_CALLBACK_PATH}`);
      authorize.searchParams.set('state', state);
      return authorize.toString();
    },

    async launchedShop(query) {
      if (!(await validHmac(query))) return null;
      return shopOf(query);
    },

    async complete(query, sessionUserId) {
      if (!app) return { kind: 'refused', reason: w.shopifyNotOffered };
      // Shopify's signature first: a forged answer changes nothing, not even the state.
      if (!(await validHmac(query))) return { kind: 'refused', reason: w.forgedCallback };
      const shop = shopOf(query);
      if (!shop) return { kind: 'refused', reason: w.badShop };
      const begun = await consumeOAuthState(pool, cipher, { state: query.state ?? '', service: 'shopify' }, clock.now());
      if (!begun) return { kind: 'refused', reason: w.unknownState };
      if (!sessionUserId || begun.userId !== sessionUserId) return { kind: 'refused', reason: w.otherAccount };
      if (begun.shopDomain !== shop) return { kind: 'refused', reason: w.otherShop };
      const owner = await findInstallationOwner(pool, shop, { connectedOnly: true });
      if (owner && owner !== begun.userId) return { kind: 'error', returnTo: begun.returnTo, code: 'taken' };
      const code = typeof query.code === 'string' ? query.code : '';
      if (!code) return { kind: 'error', returnTo: begun.returnTo, code: 'denied' };

      let tokens: ShopifyOAuthTokens;
      const now = clock.now();
      try {
        tokens = await exchangeShopifyCode(shopUrlOf(shop), app, code, now);
      } catch (error) {
        logger.warn({ shop, error: (error as Error).message }, 'the Shopify code exchange failed');
        return { kind: 'error', returnTo: begun.returnTo, code: 'failed' };
      }
      const connection = { shopUrl: shopUrlOf(shop), accessToken: tokens.accessToken, now: () => clock.now() };
      let shopName: string | null = null;
      try {
        shopName = (await fetchShop(connection, AbortSignal.timeout(8_000))).name;
      } catch (error) {
        logger.info({ shop, error: (error as Error).message }, 'the shop name could not be read; connected without it');
      }
      const userId = begun.userId;
      try {
        await inTransaction(pool, async (client) => {
          await saveInstallation(client, {
            userId,
            shopDomain: shop,
            shopName,
            scopes: tokens.scope,
            accessToken: encrypt(userId, 'access_token', tokens.accessToken),
            accessTokenExpiresAt: tokens.accessTokenExpiresAt,
            refreshToken: tokens.refreshToken ? encrypt(userId, 'refresh_token', tokens.refreshToken) : null,
            refreshTokenExpiresAt: tokens.refreshTokenExpiresAt,
            at: now,
          });
          await switchCredentialsToShopifyOAuth(client, userId, shop, now);
        });
      } catch (error) {
        if ((error as { code?: string }).code === '23505') return { kind: 'error', returnTo: begun.returnTo, code: 'taken' };
        throw error;
      }
      await deps.conditions.end(userId, 'shopify_uninstalled');
      await deps.conditions.end(userId, 'shopify_refused');
      try {
        await registerAppWebhooks(connection);
      } catch (error) {
        logger.warn({ shop, error: (error as Error).message }, 'the app webhooks could not be registered; uninstalls are known from the app configuration only');
      }
      const granted = new Set(tokens.scope.split(',').map((scope) => scope.trim()));
      const missing = shopifyScopes.filter((scope) => !granted.has(scope) && !granted.has(scope.replace(/^read_/, 'write_')));
      if (missing.length > 0) return { kind: 'error', returnTo: begun.returnTo, code: 'scopes_missing' };
      return { kind: 'connected', returnTo: begun.returnTo };
    },

    async status(userId) {
      const row = await findInstallation(pool, userId);
      if (!row) return null;
      return {
        shopDomain: row.shop_domain,
        shopName: row.shop_name,
        scopes: row.scopes.split(',').map((scope) => scope.trim()).filter(Boolean),
        state: row.status,
        problem: row.problem,
        connectedAt: row.connected_at.toISOString(),
        renewedAt: row.renewed_at?.toISOString() ?? null,
        accessTokenExpiresAt: row.access_token_expires_at?.toISOString() ?? null,
      };
    },

    async connectionFor(userId, options = {}) {
      const accessToken = await renewal.accessToken(userId, options);
      const domain = (await domainOf(userId)) ?? '';
      return { domain, shopUrl: shopUrlOf(domain), accessToken };
    },

    async ownerOfShop(shopDomain) {
      return findInstallationOwner(pool, shopDomain.toLowerCase());
    },

    async uninstalled(shopDomain) {
      const userId = await markUninstalled(pool, shopDomain.toLowerCase(), w.shopifyUninstalled(shopDomain), clock.now());
      if (userId) await deps.conditions.raise({ userId, kind: 'shopify_uninstalled', detail: w.shopifyUninstalled(shopDomain) });
      return userId;
    },

    async scopesUpdated(shopDomain, scopes) {
      await updateInstallationScopes(pool, shopDomain.toLowerCase(), scopes.join(','), clock.now());
    },
  };
}
