import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { inTransaction } from '../database/database.ts';
import type { Logger } from 'pino';
import type { CredentialCipher } from '../platform/credential-cipher.ts';
import type { Clock } from '../platform/clock.ts';
import type { ServiceConditions } from '../service-conditions/service-conditions.ts';
import type { KlaviyoOAuthAccess } from '../engine/spine/engine-credentials.ts';
import { ServiceError } from '../integrations/service-error.ts';
import {
  exchangeKlaviyoCode,
  fetchKlaviyoAccount,
  KlaviyoGrantRefused,
  refreshKlaviyoToken,
  revokeKlaviyoToken,
  type KlaviyoApp,
  type KlaviyoOAuthTokens,
} from '../integrations/klaviyo/klaviyo-oauth.ts';
import { klaviyoKeyScopes } from '../../shared/credentials/klaviyo-scopes.ts';
import type { KlaviyoConnectionStatus } from '../../shared/connections/connection-schemas.ts';
import { findKlaviyoAuthMethod, switchCredentialsToKlaviyoOAuth } from '../credentials/credential-queries.ts';
import { consumeOAuthState, issueOAuthState } from './oauth-state-queries.ts';
import { deleteKlaviyoConnection, findKlaviyoConnection, saveKlaviyoConnection } from './klaviyo-connection-queries.ts';
import { ConnectionUnavailable, createTokenRenewal, RenewalRefused, tokenContext } from './token-renewal.ts';
import { connectionWords as w } from './connection-words.ts';
import type { CallbackOutcome } from './shopify-installations.ts';

/**
 * Klaviyo accounts connected by OAuth, authorization code with PKCE (S256)
 * (docs/decisions/0048-connect-by-oauth.md). The scopes asked are exactly those a private
 * key needs for Flowsmith's calls. Tokens live encrypted in klaviyo_connections, which
 * this module owns; renewals go through the shared token renewal, once across processes.
 */
export const KLAVIYO_CALLBACK_PATH = '/api/connections/klaviyo/callback';


export interface KlaviyoConnections {
  readonly offered: boolean;
  begin(userId: string, returnTo: string): Promise<string>;
  complete(query: Record<string, string>, sessionUserId: string | null): Promise<CallbackOutcome>;
  status(userId: string): Promise<KlaviyoConnectionStatus | null>;
  /** The engine's access to the owner's connection (engine/spine/engine-credentials-loader.ts). */
  access(userId: string): Promise<KlaviyoOAuthAccess>;
  /**
   * Revokes the tokens at Klaviyo (best effort) and deletes ours. An owner's disconnect
   * raises their condition; an account being deleted has nothing left to tell.
   */
  disconnect(userId: string, options?: { reason?: 'owner' | 'account_deleted' }): Promise<{ revoked: boolean }>;
}

function challengeOf(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

export function createKlaviyoConnections(deps: {
  pool: pg.Pool;
  cipher: CredentialCipher;
  clock: Clock;
  logger: Logger;
  conditions: ServiceConditions;
  app: KlaviyoApp | null;
  publicUrl: string;
  klaviyoBaseUrl: string;
  klaviyoOAuthBaseUrl: string;
}): KlaviyoConnections {
  const { pool, cipher, clock, app } = deps;
  const logger = deps.logger.child({ module: 'klaviyo-connections' });
  const redirectUri = `${deps.publicUrl}${KLAVIYO_CALLBACK_PATH}`;
  const encrypt = (userId: string, column: 'access_token' | 'refresh_token', value: string) => cipher.encrypt(value, tokenContext('klaviyo_connections', column, userId));

  const renewal = createTokenRenewal({
    db: pool,
    cipher,
    clock,
    table: 'klaviyo_connections',
    service: 'klaviyo',
    notConnected: w.klaviyoNotConnected,
    async renew(_userId, refreshToken, signal) {
      try {
        const tokens = await refreshKlaviyoToken(deps.klaviyoBaseUrl, app!, refreshToken, { now: clock.now(), signal });
        return { accessToken: tokens.accessToken, accessTokenExpiresAt: tokens.accessTokenExpiresAt, refreshToken: tokens.refreshToken, refreshTokenExpiresAt: null, scopes: tokens.scope || null };
      } catch (error) {
        if (error instanceof KlaviyoGrantRefused) throw new RenewalRefused(w.klaviyoRenewalRefused(error.said));
        throw error;
      }
    },
    async onRefused(userId, problem) {
      await deps.conditions.raise({ userId, kind: 'klaviyo_disconnected', detail: problem });
    },
  });

  const row = (userId: string) => findKlaviyoConnection(pool, userId);

  return {
    offered: app !== null,

    async begin(userId, returnTo) {
      if (!app) throw new ServiceError('klaviyo', 'bad_request', w.klaviyoNotOffered);
      const verifier = randomBytes(32).toString('base64url');
      const state = await issueOAuthState(pool, cipher, { userId, service: 'klaviyo', shopDomain: null, codeVerifier: verifier, returnTo, now: clock.now() });
      const authorize = new URL(`${deps.klaviyoOAuthBaseUrl}/oauth/authorize`);
      authorize.searchParams.set('response_type', 'code');
      authorize.searchParams.set('client_id', app.clientId);
      authorize.searchParams.set('redirect_uri', redirectUri);
      authorize.searchParams.set('scope', klaviyoKeyScopes.join(' '));
      authorize.searchParams.set('state', state);
      authorize.searchParams.set('code_challenge_method', 'S256');
      authorize.searchParams.set('code_challenge', challengeOf(verifier));
      return authorize.toString();
    },

    async complete(query, sessionUserId) {
      if (!app) return { kind: 'refused', reason: w.klaviyoNotOffered };
      const begun = await consumeOAuthState(pool, cipher, { state: query.state ?? '', service: 'klaviyo' }, clock.now());
      if (!begun || !begun.codeVerifier) return { kind: 'refused', reason: w.unknownState };
      if (!sessionUserId || begun.userId !== sessionUserId) return { kind: 'refused', reason: w.otherAccount };
      if (query.error) return { kind: 'error', returnTo: begun.returnTo, code: query.error === 'access_denied' ? 'denied' : 'failed' };
      if (!query.code) return { kind: 'refused', reason: w.missingCode };
      const now = clock.now();
      let tokens: KlaviyoOAuthTokens;
      let account: { id: string; name: string | null };
      try {
        tokens = await exchangeKlaviyoCode(deps.klaviyoBaseUrl, app, { code: query.code, codeVerifier: begun.codeVerifier, redirectUri }, now);
        account = await fetchKlaviyoAccount(deps.klaviyoBaseUrl, tokens.accessToken);
      } catch (error) {
        logger.warn({ error: (error as Error).message }, 'the Klaviyo code exchange failed');
        return { kind: 'error', returnTo: begun.returnTo, code: 'failed' };
      }
      const userId = begun.userId;
      // Any earlier connection's tokens are revoked: this one replaces it.
      const earlier = await row(userId);
      await inTransaction(pool, async (client) => {
          await saveKlaviyoConnection(client, {
            userId,
            accountId: account.id,
            accountName: account.name,
            scopes: tokens.scope,
            accessToken: encrypt(userId, 'access_token', tokens.accessToken),
            accessTokenExpiresAt: tokens.accessTokenExpiresAt,
            refreshToken: encrypt(userId, 'refresh_token', tokens.refreshToken),
            at: now,
          });
          await switchCredentialsToKlaviyoOAuth(client, userId, now);
      });
      if (earlier?.refresh_token) {
        try {
          await revokeKlaviyoToken(deps.klaviyoBaseUrl, app, cipher.decrypt(earlier.refresh_token, tokenContext('klaviyo_connections', 'refresh_token', userId)));
        } catch (error) {
          logger.info({ error: (error as Error).message }, 'the earlier Klaviyo connection could not be revoked');
        }
      }
      await deps.conditions.end(userId, 'klaviyo_disconnected');
      const granted = new Set(tokens.scope.split(/\s+/).filter(Boolean));
      const missing = klaviyoKeyScopes.filter((scope) => !granted.has(scope));
      if (tokens.scope && missing.length > 0) return { kind: 'error', returnTo: begun.returnTo, code: 'scopes_missing' };
      return { kind: 'connected', returnTo: begun.returnTo };
    },

    async status(userId) {
      const found = await row(userId);
      if (!found) return null;
      return {
        accountId: found.account_id,
        accountName: found.account_name,
        scopes: found.scopes.split(/\s+/).filter(Boolean),
        state: found.status,
        problem: found.problem,
        connectedAt: found.connected_at.toISOString(),
        renewedAt: found.renewed_at?.toISOString() ?? null,
        accessTokenExpiresAt: found.access_token_expires_at?.toISOString() ?? null,
      };
    },

    async access(userId) {
      const found = await row(userId);
      return {
        accountId: found?.account_id ?? `none:${userId}`,
        accessToken: async (signal) => {
          if (!found) throw new ConnectionUnavailable('klaviyo', w.klaviyoNotConnected);
          return renewal.accessToken(userId, { signal });
        },
        tokenRefused: async (token) => {
          await renewal.accessToken(userId, { refused: token }).catch(() => undefined);
        },
      };
    },

    async disconnect(userId, options = {}) {
      const refresh = await deleteKlaviyoConnection(pool, userId);
      let revoked = false;
      if (refresh && app) {
        try {
          await revokeKlaviyoToken(deps.klaviyoBaseUrl, app, cipher.decrypt(refresh, tokenContext('klaviyo_connections', 'refresh_token', userId)));
          revoked = true;
        } catch (error) {
          logger.warn({ error: (error as Error).message }, 'Klaviyo did not confirm the revocation; our tokens are deleted anyway');
        }
      }
      if (options.reason !== 'account_deleted' && (await findKlaviyoAuthMethod(pool, userId)) === 'oauth') await deps.conditions.raise({ userId, kind: 'klaviyo_disconnected', detail: w.klaviyoDisconnected });
      return { revoked };
    },
  };
}
