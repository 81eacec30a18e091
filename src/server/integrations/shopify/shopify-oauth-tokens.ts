import { z } from 'zod';
import { ServiceError } from '../service-error.ts';
import { callService } from '../service-http.ts';

/**
 * Shopify's token endpoint for the deployment's own app (docs/decisions/0048-connect-by-oauth.md):
 * the authorization code exchanged for an expiring offline token, and its renewal with
 * the refresh token, which Shopify replaces at each use. The request bodies are those of
 * Shopify's official library (`auth.callback` with `expiring: '1'`, `auth.refreshToken`);
 * they go to the shop through SHOPIFY_BASE_URL like every Shopify call, with our timeouts
 * and error words.
 */
export interface ShopifyOAuthTokens {
  accessToken: string;
  /** The scopes granted, comma-separated, as Shopify lists them. */
  scope: string;
  /** Null for a token that does not expire (Shopify answered without `expires_in`). */
  accessTokenExpiresAt: Date | null;
  refreshToken: string | null;
  refreshTokenExpiresAt: Date | null;
}

const TOKEN_REQUEST_TIMEOUT_MS = 8_000;

const tokenAnswerSchema = z.looseObject({
  access_token: z.string().min(1),
  scope: z.string().default(''),
  expires_in: z.number().positive().optional(),
  refresh_token: z.string().min(1).optional(),
  refresh_token_expires_in: z.number().positive().optional(),
});
const oauthErrorSchema = z.looseObject({ error: z.string().optional(), error_description: z.string().optional(), errors: z.unknown().optional() });

/** A refusal of the grant itself (used, expired or revoked code or refresh token): asking again changes nothing. */
export class ShopifyGrantRefused extends ServiceError {
  /** The service's own words for the refusal (its error_description), for the owner to read. */
  readonly said: string;
  constructor(said: string, status: number) {
    super('shopify', 'bad_request', `the grant was refused (${said})`, { status });
    this.name = 'ShopifyGrantRefused';
    this.said = said;
  }
}

async function requestToken(shopUrl: string, body: Record<string, string>, now: Date, signal?: AbortSignal): Promise<ShopifyOAuthTokens> {
  const timeout = AbortSignal.timeout(TOKEN_REQUEST_TIMEOUT_MS);
  const request = {
    url: `${shopUrl}/admin/oauth/access_token`,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    now: () => now,
  };
  return callService('shopify', request, async (answer) => {
    if (answer.redirected) throw answer.error('no shop answers at this address', 'not_found');
    if (answer.status === 400 || answer.status === 401 || answer.status === 403) {
      const said = oauthErrorSchema.safeParse(await answer.json().catch(() => null));
      const words = said.success ? (said.data.error_description ?? said.data.error ?? (typeof said.data.errors === 'string' ? said.data.errors : null)) : null;
      if (said.success && said.data.error === 'invalid_client') {
        throw new ServiceError('shopify', 'invalid_client', "the deployment's app id and secret were refused (SHOPIFY_API_KEY, SHOPIFY_API_SECRET)", { status: answer.status });
      }
      throw new ShopifyGrantRefused((words ?? `HTTP ${answer.status}`).slice(0, 200).replace(/\.$/, ''), answer.status);
    }
    if (!answer.ok) throw answer.error();
    const token = tokenAnswerSchema.safeParse(await answer.json().catch(() => null));
    if (!token.success) throw new ServiceError('shopify', 'invalid_response', 'its answer to the token request could not be read (Shopify may be having trouble); try again in a minute', { status: answer.status });
    const after = (seconds: number | undefined) => (seconds === undefined ? null : new Date(now.getTime() + seconds * 1000));
    return {
      accessToken: token.data.access_token,
      scope: token.data.scope,
      accessTokenExpiresAt: after(token.data.expires_in),
      refreshToken: token.data.refresh_token ?? null,
      refreshTokenExpiresAt: after(token.data.refresh_token_expires_in),
    };
  });
}

/** The authorization code of a callback, exchanged for an expiring offline token. */
export function exchangeShopifyCode(shopUrl: string, app: { clientId: string; clientSecret: string }, code: string, now: Date): Promise<ShopifyOAuthTokens> {
  return requestToken(shopUrl, { client_id: app.clientId, client_secret: app.clientSecret, code, expiring: '1' }, now);
}

/** A new access token and refresh token for the refresh token; the expiries count from `now`. */
export function refreshShopifyToken(
  shopUrl: string,
  app: { clientId: string; clientSecret: string },
  refreshToken: string,
  asked: { now: Date; signal?: AbortSignal },
): Promise<ShopifyOAuthTokens> {
  const { now, signal } = asked;
  return requestToken(shopUrl, { client_id: app.clientId, client_secret: app.clientSecret, refresh_token: refreshToken, grant_type: 'refresh_token' }, now, signal);
}
