import { z } from 'zod';
import { ServiceError } from '../service-error.ts';
import { callService } from '../service-http.ts';
import { KLAVIYO_REVISION } from './klaviyo-profiles.ts';

/**
 * Klaviyo's OAuth endpoints for the deployment's own Klaviyo app
 * (docs/decisions/0048-connect-by-oauth.md): the code exchanged with its PKCE verifier,
 * the access token renewed with the refresh token, and the tokens revoked on disconnect.
 * All three live under KLAVIYO_BASE_URL (a.klaviyo.com), take a form body and authenticate
 * the app with HTTP Basic (client id and secret), as Klaviyo's OAuth guide shows.
 */
export interface KlaviyoOAuthTokens {
  accessToken: string;
  accessTokenExpiresAt: Date;
  refreshToken: string;
  /** Space-separated, as Klaviyo gives them. */
  scope: string;
}

export interface KlaviyoApp {
  clientId: string;
  clientSecret: string;
}

const TOKEN_REQUEST_TIMEOUT_MS = 8_000;

const tokenAnswerSchema = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  expires_in: z.number().positive(),
  refresh_token: z.string().min(1).optional(),
  scope: z.string().default(''),
});
const oauthErrorSchema = z.looseObject({ error: z.string().optional(), error_description: z.string().optional() });

/** Klaviyo refused the grant itself (code or refresh token used, expired or revoked). */
export class KlaviyoGrantRefused extends ServiceError {
  /** The service's own words for the refusal (its error_description), for the owner to read. */
  readonly said: string;
  constructor(said: string, status: number) {
    super('klaviyo', 'bad_request', `the grant was refused (${said})`, { status });
    this.name = 'KlaviyoGrantRefused';
    this.said = said;
  }
}

function basicAuth(app: KlaviyoApp): string {
  return `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`;
}

async function post<T>(baseUrl: string, app: KlaviyoApp, sent: { path: string; form: Record<string, string>; signal?: AbortSignal }, read: (body: unknown) => T): Promise<T> {
  const { path, form, signal } = sent;
  const timeout = AbortSignal.timeout(TOKEN_REQUEST_TIMEOUT_MS);
  const request = {
    url: `${baseUrl}${path}`,
    method: 'POST' as const,
    headers: { authorization: basicAuth(app), 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form).toString(),
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
  };
  return callService('klaviyo', request, async (answer) => {
    if (answer.status === 400 || answer.status === 401) {
      const said = oauthErrorSchema.safeParse(await answer.json().catch(() => null));
      const error = said.success ? said.data.error : undefined;
      if (error === 'invalid_client' || (answer.status === 401 && error !== 'invalid_grant')) {
        throw new ServiceError('klaviyo', 'invalid_client', "the deployment's Klaviyo app was refused (KLAVIYO_CLIENT_ID, KLAVIYO_CLIENT_SECRET)", { status: answer.status });
      }
      const words = said.success ? (said.data.error_description ?? error) : undefined;
      throw new KlaviyoGrantRefused((words ?? `HTTP ${answer.status}`).slice(0, 200).replace(/\.$/, ''), answer.status);
    }
    if (!answer.ok) throw answer.error();
    return read(await answer.text().then((text) => (text ? (JSON.parse(text) as unknown) : null)).catch(() => null));
  });
}

function readTokens(now: Date, previousRefreshToken: string | null) {
  return (body: unknown): KlaviyoOAuthTokens => {
    const token = tokenAnswerSchema.safeParse(body);
    const refreshToken = token.success ? (token.data.refresh_token ?? previousRefreshToken) : null;
    if (!token.success || !refreshToken) throw new ServiceError('klaviyo', 'invalid_response', 'its answer to the token request could not be read (Klaviyo may be having trouble); try again in a minute');
    return {
      accessToken: token.data.access_token,
      accessTokenExpiresAt: new Date(now.getTime() + token.data.expires_in * 1000),
      refreshToken,
      scope: token.data.scope,
    };
  };
}

export function exchangeKlaviyoCode(
  baseUrl: string,
  app: KlaviyoApp,
  grant: { code: string; codeVerifier: string; redirectUri: string },
  now: Date,
): Promise<KlaviyoOAuthTokens> {
  const form = { grant_type: 'authorization_code', code: grant.code, code_verifier: grant.codeVerifier, redirect_uri: grant.redirectUri };
  return post(baseUrl, app, { path: '/oauth/token', form }, readTokens(now, null));
}

/** Klaviyo may answer a refresh without a new refresh token: the one used then stays. The expiry counts from `now`. */
export function refreshKlaviyoToken(baseUrl: string, app: KlaviyoApp, refreshToken: string, asked: { now: Date; signal?: AbortSignal }): Promise<KlaviyoOAuthTokens> {
  return post(baseUrl, app, { path: '/oauth/token', form: { grant_type: 'refresh_token', refresh_token: refreshToken }, signal: asked.signal }, readTokens(asked.now, refreshToken));
}

/** Revokes the refresh token and, with it, the access tokens it gave. */
export async function revokeKlaviyoToken(baseUrl: string, app: KlaviyoApp, refreshToken: string): Promise<void> {
  await post(baseUrl, app, { path: '/oauth/revoke', form: { token: refreshToken, token_type_hint: 'refresh_token' } }, () => undefined);
}

const accountSchema = z.looseObject({
  data: z.array(z.looseObject({ id: z.string(), attributes: z.looseObject({ contact_information: z.looseObject({ organization_name: z.string().nullish() }).optional() }).optional() })),
});

/** The account an OAuth access token acts for: its id and its organisation's name. */
export async function fetchKlaviyoAccount(baseUrl: string, accessToken: string): Promise<{ id: string; name: string | null }> {
  const request = {
    url: `${baseUrl}/api/accounts`,
    headers: { authorization: `Bearer ${accessToken}`, revision: KLAVIYO_REVISION, accept: 'application/vnd.api+json' },
    signal: AbortSignal.timeout(TOKEN_REQUEST_TIMEOUT_MS),
  };
  return callService('klaviyo', request, async (answer) => {
    if (!answer.ok) throw answer.error();
    const parsed = accountSchema.safeParse(await answer.json().catch(() => null));
    const account = parsed.success ? parsed.data.data[0] : undefined;
    if (!account) throw new ServiceError('klaviyo', 'invalid_response', 'its answer about the account could not be read (Klaviyo may be having trouble)', { status: answer.status });
    return { id: account.id, name: account.attributes?.contact_information?.organization_name ?? null };
  });
}
