import type { Contract, FakeReply, RecordedRequest } from '../fakes/fake-server.ts';
import { refusalPage } from '../fakes/oauth-consent-page.ts';

/**
 * The OAuth side of the vendors' definitions (docs/decisions/0048-connect-by-oauth.md),
 * held against the stand-ins' traffic like the API definitions are (fake-server's
 * `Contract`): a request of a shape the service refuses gets the service's refusal and is
 * a violation (a test that meant to send it takes it with `takeViolations`). What depends
 * on the stand-in's state — a wrong client secret, a used or unknown code, a dead refresh
 * token, a PKCE verifier that does not match — is not a shape problem: the stand-in
 * answers it as the service does, and no violation is recorded.
 *
 * Sources (as checked; see each function):
 * - Shopify: https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens/authorization-code-grant
 *   (authorize, callback, code exchange), the official library @shopify/shopify-api 15
 *   (lib/auth/oauth/oauth.mjs and refresh-token.mjs: the exact JSON bodies; utils/hmac-validator.mjs),
 *   https://shopify.dev/changelog/offline-access-tokens-now-support-expiry-and-refresh and
 *   https://shopify.dev/changelog/more-resilient-refreshes-for-expiring-offline-access-tokens.
 * - Klaviyo: https://developers.klaviyo.com/en/docs/set_up_oauth and
 *   https://developers.klaviyo.com/en/docs/troubleshoot_oauth_errors (Basic client
 *   authentication, form bodies, a.klaviyo.com/oauth/token and /oauth/revoke, PKCE S256),
 *   the official klaviyo-api SDK's OAuthApi (api/apis.ts: the token answer's fields, the
 *   refresh request), RFC 6749 §4.1 and §5.2 (errors), RFC 7636 (PKCE), RFC 7009 (revocation).
 */

const formType = 'application/x-www-form-urlencoded';
const bodyOf = (request: RecordedRequest): Record<string, unknown> => (request.body && typeof request.body === 'object' ? (request.body as Record<string, unknown>) : {});
const listed = (names: string[]) => names.join(', ') || 'nothing';

// ---------------------------------------------------------------- Shopify

/** The error RFC 6749 §5.2 names for a malformed token request, in Shopify's words for it. */
export const shopifyInvalidRequest: FakeReply = {
  status: 400,
  body: { error: 'invalid_request', error_description: 'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.' },
};

/**
 * The token request's shape per grant, as Shopify documents it and its library sends it
 * (a JSON body; a form body is accepted too):
 * - client credentials: exactly grant_type, client_id, client_secret;
 * - authorization code: client_id, client_secret, code, and optionally expiring ('1' for
 *   an expiring offline token, '0' otherwise; the library always sends it). No grant_type:
 *   neither Shopify's guide nor its library sends one, and the docs are silent on whether
 *   Shopify takes it, so the stricter reading refuses it;
 * - refresh: exactly client_id, client_secret, grant_type=refresh_token, refresh_token.
 * Anything else is Shopify's 400 invalid_request. Another grant_type with exactly
 * grant_type, client_id and client_secret is left to the stand-in (unsupported_grant_type).
 */
export function checkShopifyTokenRequest(request: RecordedRequest): { reply: FakeReply; problems: string[] } | undefined {
  const contentType = String(request.headers['content-type'] ?? '');
  const problems: string[] = [];
  if (!/application\/(?:x-www-form-urlencoded|json)/.test(contentType)) problems.push(`content-type ${contentType || 'missing'}: a form or JSON body is expected`);
  const body = bodyOf(request);
  const fields = Object.keys(body).sort();
  const grant = body.grant_type;
  const exactly = (expected: string[], what: string) => {
    if (fields.join() !== [...expected].sort().join()) problems.push(`the body has ${listed(fields)}; Shopify takes exactly ${[...expected].sort().join(', ')} ${what}`);
  };
  if (grant === undefined && 'code' in body) {
    const required = ['client_id', 'client_secret', 'code'];
    const allowed = [...required, 'expiring'];
    const missing = required.filter((field) => !(field in body));
    const extra = fields.filter((field) => !allowed.includes(field));
    if (missing.length > 0 || extra.length > 0) problems.push(`the body has ${listed(fields)}; Shopify takes client_id, client_secret, code and optionally expiring for an authorization code`);
    if ('expiring' in body && body.expiring !== '0' && body.expiring !== '1') problems.push(`expiring is ${JSON.stringify(body.expiring)}; Shopify takes '1' (an expiring offline token) or '0'`);
  } else if (grant === 'refresh_token') {
    exactly(['client_id', 'client_secret', 'grant_type', 'refresh_token'], 'for a refresh');
  } else {
    exactly(['client_id', 'client_secret', 'grant_type'], grant === 'client_credentials' ? 'for client credentials' : '');
  }
  if (Object.values(body).some((value) => typeof value !== 'string' || value === '')) problems.push('every field is a non-empty string');
  return problems.length === 0 ? undefined : { problems, reply: shopifyInvalidRequest };
}

/** Which grant a well-formed token request is for. */
export function shopifyGrantOf(body: Record<string, unknown>): 'authorization_code' | 'refresh_token' | 'client_credentials' | string {
  if (body.grant_type === undefined && typeof body.code === 'string') return 'authorization_code';
  return String(body.grant_type ?? '');
}

/**
 * A 200 token answer per grant: client credentials `access_token`, `scope`, `expires_in`;
 * an expiring offline token (code with expiring '1', or a refresh) also `refresh_token`
 * and `refresh_token_expires_in`; a non-expiring one `access_token` and `scope` only.
 */
export function checkShopifyTokenAnswer(request: RecordedRequest, reply: FakeReply): string[] {
  if (reply.status !== 200) return [];
  const body = (reply.body ?? {}) as Record<string, unknown>;
  const request_ = bodyOf(request);
  const grant = shopifyGrantOf(request_);
  const has = (names: string[]) => names.every((name) => (name.endsWith('_in') ? typeof body[name] === 'number' : typeof body[name] === 'string'));
  if (grant === 'client_credentials') return has(['access_token', 'scope', 'expires_in']) ? [] : ['a token answer has access_token, scope and expires_in'];
  const expiring = grant === 'refresh_token' || request_.expiring === '1';
  if (expiring) {
    return has(['access_token', 'scope', 'expires_in', 'refresh_token', 'refresh_token_expires_in'])
      ? []
      : ['an expiring offline token answer has access_token, scope, expires_in, refresh_token and refresh_token_expires_in'];
  }
  return has(['access_token', 'scope']) && body.expires_in === undefined && body.refresh_token === undefined ? [] : ['a non-expiring offline token answer has access_token and scope, and no expiry'];
}

export interface ShopifyOAuthAppDefinition {
  clientId: string;
  clientSecret: string;
  /** When given, the only redirect_uri values the app allows (its configuration's "Allowed redirection URL(s)"). */
  redirectUris?: string[];
}

/**
 * What Shopify refuses at /admin/oauth/authorize before showing the install page, each in
 * the form of Shopify's "Oauth error <code>: <words>" pages (the words are the stand-in's
 * where Shopify's are not known): an unknown client_id, a redirect_uri that
 * is missing (or not one the app allows), no state (the library always sends one; the docs
 * require it for the callback check, so the stricter reading refuses a request without),
 * no scope or a scope that is not a Shopify access scope (every `read_…`/`write_…` scope
 * the pinned Admin schema documents), grant_options[] other than '' (offline) or
 * 'per-user' (online tokens, which this stand-in does not issue: refused so a test knows).
 */
export function shopifyAuthorizeProblems(query: URLSearchParams, app: ShopifyOAuthAppDefinition | undefined, knownScopes: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const clientId = query.get('client_id');
  if (!app || clientId !== app.clientId) problems.push(`Oauth error invalid_request: Could not find Shopify API application with api_key ${clientId ?? '(none)'}`);
  const redirect = query.get('redirect_uri');
  if (!redirect) problems.push('Oauth error invalid_request: The redirect_uri is missing');
  else if (!/^https?:\/\//.test(redirect)) problems.push(`Oauth error invalid_request: The redirect_uri ${redirect} is not an absolute http(s) address`);
  else if (app?.redirectUris && !app.redirectUris.includes(redirect)) problems.push(`Oauth error invalid_request: The redirect_uri ${redirect} is not whitelisted`);
  if (!query.get('state')) problems.push('Oauth error invalid_request: The state parameter is missing');
  const scope = query.get('scope') ?? '';
  const scopes = scope.split(',').map((item) => item.trim()).filter(Boolean);
  if (scopes.length === 0) problems.push('Oauth error invalid_scope: The access scope is missing');
  for (const unknown of scopes.filter((item) => !knownScopes.has(item))) problems.push(`Oauth error invalid_scope: Scope undefined: ${unknown}`);
  for (const option of query.getAll('grant_options[]')) {
    if (option === 'per-user') problems.push('Oauth error invalid_request: online (per-user) access is not served by the Shopify stand-in; Flowsmith asks for offline tokens');
    else if (option !== '') problems.push(`Oauth error invalid_request: grant_options[] ${option} is not one Shopify takes`);
  }
  return problems;
}

export function shopifyAuthorizeRefusal(problems: string[]): FakeReply {
  return refusalPage('Something went wrong', problems.join('\n'));
}

// ---------------------------------------------------------------- Klaviyo

export interface KlaviyoOAuthAppDefinition {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  /** The scopes set in the app's settings; when given, a request may ask only for these. */
  scopes?: string[];
}

/** RFC 6749 §5.2 token errors (and RFC 7009's unsupported_token_type) as Klaviyo answers them: JSON `{ error }`. */
export function oauthError(status: number, error: string, description?: string, headers?: Record<string, string>): FakeReply {
  return { status, headers, body: description ? { error, error_description: description } : { error } };
}

const rfcTokenErrors = new Set(['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope', 'unsupported_token_type']);

/** `Authorization: Basic base64(client_id:client_secret)`, decoded; undefined when absent or malformed. */
export function basicCredentials(header: string | undefined): { clientId: string; clientSecret: string } | undefined {
  const match = /^Basic ([A-Za-z0-9+/]+=*)$/.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  // As Klaviyo's guide builds it: base64 of the id and secret as they are (not form-encoded first).
  return { clientId: decoded.slice(0, colon), clientSecret: decoded.slice(colon + 1) };
}

/** A PKCE S256 code challenge: base64url without padding of a SHA-256 digest, 43 characters (RFC 7636 §4.2). */
export const s256Challenge = /^[A-Za-z0-9_-]{43}$/;
/** A PKCE code verifier: 43 to 128 unreserved characters (RFC 7636 §4.1). */
export const codeVerifierForm = /^[A-Za-z0-9._~-]{43,128}$/;

/**
 * What Klaviyo's authorize endpoint refuses, in words: the guide's request is
 * response_type=code, client_id, redirect_uri (one the app registered, exactly), scope
 * (space-separated Klaviyo scopes: each one some Klaviyo operation asks for, and one set
 * in the app's settings when those are known), state, code_challenge and
 * code_challenge_method=S256. The guide requires PKCE with S256: `plain` and a missing
 * method are refused (RFC 7636 would let a server default to plain; Klaviyo's guide does
 * not offer it).
 */
export function klaviyoAuthorizeProblems(query: URLSearchParams, app: KlaviyoOAuthAppDefinition | undefined, knownScopes: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  if (query.get('response_type') !== 'code') problems.push(`response_type must be "code" (it is ${JSON.stringify(query.get('response_type'))})`);
  const clientId = query.get('client_id');
  if (!app || clientId !== app.clientId) problems.push(`no Klaviyo app has the client_id ${JSON.stringify(clientId)}`);
  const redirect = query.get('redirect_uri');
  if (!redirect) problems.push('redirect_uri is missing');
  else if (app && !app.redirectUris.includes(redirect)) problems.push(`redirect_uri ${redirect} is not one of the app's redirect URLs`);
  const scopes = (query.get('scope') ?? '').split(' ').filter(Boolean);
  if (scopes.length === 0) problems.push('scope is missing');
  for (const scope of scopes) {
    if (!knownScopes.has(scope)) problems.push(`${scope} is not a Klaviyo scope`);
    else if (app?.scopes && !app.scopes.includes(scope)) problems.push(`${scope} is not one of the scopes set for the app`);
  }
  if ((query.get('scope') ?? '').includes(',')) problems.push('scopes are separated by spaces, not commas');
  if (!query.get('state')) problems.push('state is missing');
  const method = query.get('code_challenge_method');
  if (method !== 'S256') problems.push(method ? `code_challenge_method ${method} is not supported: use S256` : 'code_challenge_method is missing: use S256');
  const challenge = query.get('code_challenge');
  if (!challenge) problems.push('code_challenge is missing');
  else if (!s256Challenge.test(challenge)) problems.push('code_challenge is not a base64url SHA-256 digest (43 characters, no padding)');
  return problems;
}

export function klaviyoAuthorizeRefusal(problems: string[]): FakeReply {
  return refusalPage('This app could not be authorized', problems.join('\n'));
}

const tokenParameters: Record<string, { required: string[]; optional: string[] }> = {
  authorization_code: { required: ['grant_type', 'code', 'code_verifier', 'redirect_uri'], optional: ['client_id'] },
  refresh_token: { required: ['grant_type', 'refresh_token'], optional: ['client_id'] },
};

/**
 * The shape of a request to Klaviyo's /oauth/token or /oauth/revoke: a POST with a form
 * body (`application/x-www-form-urlencoded`, as the guide and the troubleshooting page
 * require) and the app authenticated by `Authorization: Basic base64(id:secret)`. The
 * guide authenticates the app only that way: a client_secret in the body is refused
 * (RFC 6749 §2.3: one method per request); a client_id in the body is accepted when it
 * names the same app. Parameters a grant does not take are refused (the stricter reading
 * where the guide lists exactly what each grant sends).
 */
export function checkKlaviyoOAuthRequest(request: RecordedRequest): { reply: FakeReply; problems: string[] } | undefined {
  const refuse = (reply: FakeReply, problem: string) => ({ reply, problems: [`${request.method} ${request.path}: ${problem}`] });
  if (request.method !== 'POST') return refuse(oauthError(405, 'invalid_request', `${request.method} is not allowed.`), `${request.method} instead of POST`);
  const contentType = String(request.headers['content-type'] ?? '');
  if (!contentType.includes(formType)) return refuse(oauthError(400, 'invalid_request', 'The body must be application/x-www-form-urlencoded.'), `content-type ${contentType || 'missing'}, not ${formType}`);
  const body = bodyOf(request);
  const credentials = basicCredentials(request.headers.authorization);
  const challenge = { 'WWW-Authenticate': 'Basic realm="klaviyo"' };
  if (!credentials) {
    return refuse(oauthError(401, 'invalid_client', 'Client authentication failed.', challenge), 'no Authorization: Basic base64(client_id:client_secret) header');
  }
  if ('client_secret' in body) return refuse(oauthError(400, 'invalid_request', 'Use one client authentication method.'), 'client_secret in the body besides Basic authentication');
  if ('client_id' in body && body.client_id !== credentials.clientId) return refuse(oauthError(401, 'invalid_client', 'Client authentication failed.', challenge), 'client_id in the body is not the Basic one');
  const fields = Object.keys(body);
  if (Object.values(body).some((value) => typeof value !== 'string' || value === '')) return refuse(oauthError(400, 'invalid_request'), 'a parameter is empty');
  if (request.path === '/oauth/revoke') {
    const extra = fields.filter((field) => !['token', 'token_type_hint', 'client_id'].includes(field));
    if (!('token' in body) || extra.length > 0) return refuse(oauthError(400, 'invalid_request'), `revoke takes token and optionally token_type_hint; the body has ${listed(fields)}`);
    if ('token_type_hint' in body && body.token_type_hint !== 'access_token' && body.token_type_hint !== 'refresh_token') {
      return refuse(oauthError(400, 'unsupported_token_type'), `token_type_hint ${String(body.token_type_hint)} is neither access_token nor refresh_token`);
    }
    return undefined;
  }
  const grant = typeof body.grant_type === 'string' ? body.grant_type : '';
  const shape = tokenParameters[grant];
  if (!shape) {
    return grant
      ? refuse(oauthError(400, 'unsupported_grant_type'), `grant_type ${grant} is not one Klaviyo takes (authorization_code, refresh_token)`)
      : refuse(oauthError(400, 'invalid_request', 'grant_type is required.'), 'no grant_type');
  }
  const missing = shape.required.filter((field) => !(field in body));
  const extra = fields.filter((field) => !shape.required.includes(field) && !shape.optional.includes(field));
  if (missing.length > 0 || extra.length > 0) {
    return refuse(oauthError(400, 'invalid_request'), `${grant} takes ${shape.required.join(', ')}; the body has ${listed(fields)}`);
  }
  return undefined;
}

/**
 * Klaviyo's token answers: 200 with access_token, token_type Bearer, expires_in,
 * refresh_token and scope (the fields of the official SDK's TokenServerResponse); a refusal
 * with an RFC 6749 `error`; /oauth/revoke answers 200 with nothing the client must read.
 */
export function checkKlaviyoOAuthAnswer(request: RecordedRequest, reply: FakeReply): string[] {
  const body = reply.body as Record<string, unknown> | undefined;
  if (reply.status >= 500) return [];
  if (reply.status >= 400) return typeof body?.error === 'string' && rfcTokenErrors.has(body.error) ? [] : [`${request.path} ${reply.status}: an OAuth refusal has an RFC 6749 error`];
  if (request.path === '/oauth/revoke') return reply.status === 200 ? [] : [`/oauth/revoke answers 200, not ${reply.status}`];
  const problems: string[] = [];
  if (reply.status !== 200) problems.push(`/oauth/token answers 200, not ${reply.status}`);
  if (typeof body?.access_token !== 'string' || typeof body.refresh_token !== 'string' || typeof body.scope !== 'string') problems.push('a token answer has access_token, refresh_token and scope');
  if (body?.token_type !== 'Bearer' || typeof body.expires_in !== 'number') problems.push('a token answer has token_type Bearer and expires_in');
  return problems;
}

/** A Bearer access token as Klaviyo's API takes it besides a private key: `Authorization: Bearer <token>`. */
export const bearerToken = (header: string | undefined): string | undefined => /^Bearer (\S+)$/.exec(header ?? '')?.[1];

/**
 * Klaviyo's contract with its OAuth endpoints: /oauth/token and /oauth/revoke held to
 * `checkKlaviyoOAuthRequest`, the authorize request to `klaviyoAuthorizeProblems`, and an
 * API call with `Authorization: Bearer <token>` held to everything `base` holds a
 * private-key call to (revision, accept, query, body), the Bearer scheme counting as the
 * key's. The consent page's own form posts (the stand-in's, not Klaviyo's API) are left
 * to the stand-in.
 */
export function withKlaviyoOAuth(base: Contract, app: () => KlaviyoOAuthAppDefinition | undefined, knownScopes: ReadonlySet<string>): Contract {
  return {
    checkRequest(request) {
      if (request.path === '/oauth/token' || request.path === '/oauth/revoke') return checkKlaviyoOAuthRequest(request);
      if (request.path === '/oauth/authorize') {
        if (request.method !== 'GET') return { reply: klaviyoAuthorizeRefusal([`${request.method} is not allowed`]), problems: [`${request.method} /oauth/authorize`] };
        const problems = klaviyoAuthorizeProblems(request.query, app(), knownScopes);
        return problems.length > 0 ? { reply: klaviyoAuthorizeRefusal(problems), problems } : undefined;
      }
      if (request.path.startsWith('/oauth/')) return undefined;
      if (bearerToken(request.headers.authorization)) {
        return base.checkRequest({ ...request, headers: { ...request.headers, authorization: 'Klaviyo-API-Key oauth-bearer-token' } });
      }
      return base.checkRequest(request);
    },
    checkReply(request, reply) {
      if (request.path === '/oauth/token' || request.path === '/oauth/revoke') return checkKlaviyoOAuthAnswer(request, reply);
      if (request.path.startsWith('/oauth/')) return [];
      return base.checkReply(request, reply);
    },
  };
}
