import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { klaviyoContract, klaviyoError } from '../contracts/klaviyo-contract.ts';
import { checkKlaviyoType, klaviyoDocumentedLimits, klaviyoModelFields, klaviyoOperationFor, klaviyoOperations, prepareKlaviyoChecks } from '../contracts/klaviyo-definition.ts';
import { basicCredentials, bearerToken, codeVerifierForm, oauthError, withKlaviyoOAuth, type KlaviyoOAuthAppDefinition } from '../contracts/oauth-contract.ts';
import { delay, hang, SlidingWindow, startFakeServer, type Contract, type FakeReply, type RecordedRequest } from './fake-server.ts';
import { consentPage, refusalPage } from './oauth-consent-page.ts';

export type KlaviyoEndpoint =
  | 'accounts'
  | 'lists'
  | 'profiles'
  | 'profile-import'
  | 'events'
  | 'profile-bulk-import-jobs'
  | 'profile-bulk-import-job'
  | 'profile-bulk-import-errors'
  | 'event-bulk-create-jobs';

/**
 * A forced failure, used once from the queue (`failNext`) or every time a `failWhen`
 * rule returns it. `on` limits it to one endpoint; without it, any request takes it.
 * - `status`: 500, 503, or 429 (with `Retry-After` seconds) as a JSON:API error.
 * - `bad-property`: 400 with a JSON:API error pointing at a property.
 * - `hang`: no answer at all, until the fake is closed.
 */
export type KlaviyoFailure = { on?: KlaviyoEndpoint } & (
  | { kind: 'status'; status: number; retryAfterSeconds?: number; detail?: string }
  | { kind: 'bad-property'; property?: string; detail?: string }
  | { kind: 'hang' }
);

export interface FakeKlaviyoProfile {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  properties: Record<string, unknown>;
  created: string;
  updated: string;
}

/**
 * A profile's predictive analytics, under the wire names of the definition's
 * `PredictiveAnalytics` (klaviyo-api 23.0.0, revision 2026-07-15), every field nullable as
 * it defines them. Klaviyo answers them as `attributes.predictive_analytics` of a profile
 * only when a request asks for them (`additional-fields[profile]=predictive_analytics`).
 */
export interface FakePredictiveAnalytics {
  /** Total value of all historically placed orders. */
  historic_clv: number | null;
  /** Predicted value of all placed orders in the next 365 days. */
  predicted_clv: number | null;
  /** Sum of historic and predicted CLV. */
  total_clv: number | null;
  /** Number of already placed orders. */
  historic_number_of_orders: number | null;
  /** Predicted number of placed orders in the next 365 days. */
  predicted_number_of_orders: number | null;
  /** Average number of days between orders (null if only one order has been placed). */
  average_days_between_orders: number | null;
  /** Average value of placed orders. */
  average_order_value: number | null;
  /** Probability the customer has churned. */
  churn_probability: number | null;
  /** Expected date of next order, as calculated at the time of the most recent order: a date-time string (e.g. "2022-11-08T00:00:00+00:00"). */
  expected_date_of_next_order: string | null;
  /** Channels ranked by predicted effectiveness for this profile, the best first. */
  ranked_channel_affinity: Array<'email' | 'push' | 'sms' | 'whatsapp'> | null;
}

export interface FakeKlaviyoEvent {
  metric: string;
  email: string | undefined;
  properties: Record<string, unknown>;
  profileProperties: Record<string, unknown>;
  uniqueId: string | undefined;
  time: string | undefined;
  /** The private key the event came with, or, for an OAuth call, its access token. */
  apiKey: string;
}

export interface RateLimit {
  burstPerSecond: number;
  steadyPerMinute: number;
}

export interface FakeKlaviyoOptions {
  /** Private keys the fake accepts (default: ['pk_test_valid']). */
  validKeys?: string[];
  /**
   * The scopes of a valid key (e.g. ['profiles:read', 'profiles:write']); a key not named
   * here has every scope (a full-access key). A request whose operation needs a scope the
   * key lacks gets Klaviyo's 403 naming the missing scopes.
   */
  scopesForKey?: Record<string, string[]>;
  /** Valid keys that have every scope but accounts:read: GET /api/accounts answers 403. */
  keysWithoutAccountsScope?: string[];
  /**
   * What an unknown key gets: 401 (default) or 400, as docs/product/service-contracts.md
   * §3 leaves it open.
   */
  invalidKeyStatus?: 400 | 401;
  /** Enforce the per-account limits (default off). */
  enforceRateLimits?: boolean;
  /** Override the per-account limits (defaults: docs/product/service-contracts.md §3). */
  limits?: Partial<Record<KlaviyoEndpoint, RateLimit>>;
  latencyMs?: number;
  /** Time in milliseconds used for the rate windows (default Date.now). */
  now?: () => number;
  /** How long a bulk import job takes from queued to complete (default 300 ms). */
  bulkJobMs?: number;
  /**
   * The deployment's own Klaviyo OAuth app (KLAVIYO_CLIENT_ID, KLAVIYO_CLIENT_SECRET and the
   * redirect URLs set in its settings): turns on /oauth/authorize (the consent page, which
   * the app reaches through KLAVIYO_OAUTH_BASE_URL pointed at this same stand-in),
   * /oauth/token and /oauth/revoke (under KLAVIYO_BASE_URL, as on a.klaviyo.com), and
   * `Authorization: Bearer <access token>` on every API route. The account the owner
   * connects is the stand-in's one account (`accountId`, `accountName`).
   */
  oauthApp?: FakeKlaviyoOAuthApp;
  /** The account's id (default 'AbC123'), as GET /api/accounts answers it. */
  accountId?: string;
  /** The account's organisation name (default 'Fake Shop'): `attributes.contact_information.organization_name`. */
  accountName?: string;
  /** Lifetime of an OAuth access token (default 3600 s, the `expires_in` Klaviyo answers). */
  oauthAccessTokenLifetimeSeconds?: number;
  /**
   * What a refresh does to the refresh token used (default 'rotate'):
   * - 'rotate': every refresh answers a new refresh token, and the one used is refused
   *   from then on (invalid_grant). Klaviyo's guide does not say; integrations built
   *   against Klaviyo report that it rotates the refresh token at each grant and refuses
   *   the old one, so the stand-in does the stricter thing by default.
   * - 'rotate-with-recovery': a new refresh token each time, and the one used stays good
   *   until its replacement is used (what Shopify does since August 2026).
   * - 'keep': the same refresh token is answered again and stays good.
   */
  oauthRefreshRotation?: 'rotate' | 'rotate-with-recovery' | 'keep';
  /**
   * Whether the account has predictive analytics (default true). Klaviyo computes them
   * only for an account that meets its conditions (500 customers who ordered, 180 days of
   * order history, orders in the last 30 days: help.klaviyo.com/hc/en-us/articles/360020919731).
   * With false, every profile answers `predictive_analytics` with every field null,
   * whatever `setPredictiveAnalytics` gave it.
   */
  predictiveAnalytics?: boolean;
}

/** The deployment's Klaviyo OAuth app, as set up at https://www.klaviyo.com/oauth/client. */
export interface FakeKlaviyoOAuthApp extends KlaviyoOAuthAppDefinition {
  /** Shown on the consent page (default "Flowsmith"). */
  name?: string;
}

/** A request to /oauth/token as the stand-in received it (`oauthTokenRequests`). */
export interface KlaviyoTokenRequest {
  /** 'authorization_code' or 'refresh_token'. */
  grantType: string;
  code?: string;
  /** The refresh token the request renewed with. */
  refreshToken?: string;
  receivedAt: number;
  /** What was answered; null while unanswered (a hang); for a lost answer, the status it would have had. */
  readonly status: number | null;
  /** The request was carried out but its answer was never delivered (`loseNextTokenAnswer`). */
  lost: boolean;
}

/** What /oauth/revoke received (`revocations`). */
export interface KlaviyoRevocation {
  token: string;
  tokenTypeHint: string | undefined;
  clientId: string | undefined;
  receivedAt: number;
  /** Whether the token was live and is revoked now (false: unknown, already dead, or the app's credentials were refused). */
  revoked: boolean;
}

const defaultLimits: Record<KlaviyoEndpoint, RateLimit> = {
  accounts: { burstPerSecond: 1, steadyPerMinute: 15 },
  lists: { burstPerSecond: 75, steadyPerMinute: 750 },
  profiles: { burstPerSecond: 75, steadyPerMinute: 700 },
  'profile-import': { burstPerSecond: 75, steadyPerMinute: 700 },
  events: { burstPerSecond: 350, steadyPerMinute: 3500 },
  // The bulk endpoints are Klaviyo's "M" tier (docs/product/service-contracts.md §3).
  'profile-bulk-import-jobs': { burstPerSecond: 10, steadyPerMinute: 150 },
  'profile-bulk-import-job': { burstPerSecond: 10, steadyPerMinute: 150 },
  'profile-bulk-import-errors': { burstPerSecond: 10, steadyPerMinute: 150 },
  'event-bulk-create-jobs': { burstPerSecond: 10, steadyPerMinute: 150 },
};

/**
 * How an import job ends: `complete` (its rows applied, refused ones listed as import
 * errors), `cancelled` (nothing applied), or `expired` (Klaviyo no longer has it: its job
 * and import errors answer 404).
 */
export type ImportJobOutcome = 'complete' | 'cancelled' | 'expired';

/** A bulk profile import job as the fake keeps it. */
interface FakeImportJob {
  id: string;
  outcome: ImportJobOutcome;
  createdAt: number;
  /** When Klaviyo starts working on it: its creation, or the end of a hold (holdImportJobs). */
  startsAt: number;
  total: number;
  errors: Array<{ email: string; detail: string; original: Record<string, unknown> }>;
  /** Applied when the job completes. */
  apply: () => void;
  applied: boolean;
}

/** The sizes and counts Klaviyo's definition states in words (POST /api/profile-import: 100 KB; bulk jobs). */
const documented = klaviyoDocumentedLimits();

function apiError(status: number, code: string, title: string, detail: string, pointer = '/data/', headers?: Record<string, string>): FakeReply {
  return klaviyoError(status, code, title, detail, { pointer }, headers);
}

/** Every scope any Klaviyo operation asks for: what a full-access key has. */
const allScopes = [...new Set(klaviyoOperations.flatMap((operation) => operation.scopes))];

/** The fields of the definition's PredictiveAnalytics (wire names), each null: a profile without figures. */
const predictiveFields = klaviyoModelFields('PredictiveAnalytics') as Array<keyof FakePredictiveAnalytics>;
const noPredictions = (): FakePredictiveAnalytics => Object.fromEntries(predictiveFields.map((field) => [field, null])) as unknown as FakePredictiveAnalytics;

/**
 * Klaviyo's contract (klaviyoContract), and besides it the values a query parameter may
 * take where the definition lists them: `additional-fields[profile]` takes `subscriptions`
 * and `predictive_analytics` (comma-separated), `fields[profile]` the profile's fields,
 * `sort` one of its keys. Any other value gets Klaviyo's 400 (JSON:API `invalid`, its
 * `source.parameter` naming the parameter; the detail's words are ours) and is a violation.
 */
function withQueryValues(base: Contract): Contract {
  return {
    checkRequest(request) {
      const refused = base.checkRequest(request);
      if (refused) return refused;
      const operation = klaviyoOperationFor(request.method, request.path);
      if (!operation) return undefined;
      for (const [name, allowed] of Object.entries(operation.queryValues)) {
        for (const given of request.query.getAll(name)) {
          const unknown = (allowed.list ? given.split(',') : [given]).find((value) => !allowed.values.includes(value));
          if (unknown === undefined) continue;
          return {
            reply: klaviyoError(400, 'invalid', 'Invalid input.', `'${unknown}' is not a valid value for ${name}. Allowed: ${allowed.values.join(', ')}.`, { parameter: name }),
            problems: [`${operation.name}: ${name}=${given}: '${unknown}' is not one of the values the definition lists (${allowed.values.length > 8 ? `${allowed.values.slice(0, 8).join(', ')}, …` : allowed.values.join(', ')})`],
          };
        }
      }
      return undefined;
    },
    checkReply: (request, reply) => base.checkReply(request, reply),
  };
}

/**
 * Picks the paths a sparse fieldset names (`fields[profile]=email,predictive_analytics.churn_probability`)
 * out of a resource's attributes: a name keeps the whole field, a dotted one only that part.
 */
function sparse(attributes: Record<string, unknown>, paths: string[]): Record<string, unknown> {
  // Per field: null when the whole field is named, else the parts of it that are.
  const named = new Map<string, string[] | null>();
  for (const path of paths) {
    const [head, ...rest] = path.split('.');
    if (rest.length === 0) named.set(head!, null);
    else if (named.get(head!) !== null) named.set(head!, [...(named.get(head!) ?? []), rest.join('.')]);
  }
  const picked: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(attributes)) {
    if (!named.has(name)) continue;
    const parts = named.get(name)!;
    picked[name] = parts === null || value === null || typeof value !== 'object' || Array.isArray(value) ? value : sparse(value as Record<string, unknown>, parts);
  }
  return picked;
}

/** Import errors a page holds when page[size] is not given (the SDK's documented default). */
const defaultImportErrorsPageSize = 20;

function mergeProperties(target: Record<string, unknown>, changes: Record<string, unknown> | undefined): void {
  for (const [key, value] of Object.entries(changes ?? {})) {
    if (value === null) delete target[key];
    else target[key] = value;
  }
}

/**
 * A local Klaviyo: accounts check, profile import and events per
 * docs/product/service-contracts.md §3.
 */
export async function startFakeKlaviyo(options: FakeKlaviyoOptions = {}) {
  // The checks are compiled now, not on the first request (see fake-openai.ts).
  prepareKlaviyoChecks();
  const validKeys = new Set(options.validKeys ?? ['pk_test_valid']);
  const keysWithoutAccountsScope = new Set(options.keysWithoutAccountsScope ?? []);
  const scopesForKey = new Map(Object.entries(options.scopesForKey ?? {}));
  /** What the key may do: its listed scopes, else every scope but those it was made without. */
  const scopesOf = (key: string): string[] => scopesForKey.get(key) ?? allScopes.filter((scope) => !(scope === 'accounts:read' && keysWithoutAccountsScope.has(key)));
  const limits = { ...defaultLimits, ...options.limits };
  const now = options.now ?? Date.now;
  const profiles = new Map<string, FakeKlaviyoProfile>();
  /** Predictive analytics by profile id (setPredictiveAnalytics); a profile not here has none. */
  const predictions = new Map<string, FakePredictiveAnalytics>();
  const accountHasPredictions = options.predictiveAnalytics ?? true;
  const events: FakeKlaviyoEvent[] = [];
  const seenUniqueIds = new Set<string>();
  const queue: KlaviyoFailure[] = [];
  const rules: Array<(request: RecordedRequest) => KlaviyoFailure | undefined> = [];
  const burst = new SlidingWindow(1000);
  const steady = new SlidingWindow(60_000);
  const writes = new SlidingWindow(60_000);
  const state = {
    enforceRateLimits: options.enforceRateLimits ?? false,
    latencyMs: options.latencyMs ?? 0,
    throttled: 0,
    counts: Object.fromEntries(Object.keys(defaultLimits).map((endpoint) => [endpoint, 0])) as Record<KlaviyoEndpoint, number>,
    bulkJobMs: options.bulkJobMs ?? 300,
    /** Import jobs are accepted but not started while this is true (holdImportJobs). */
    holdingImportJobs: false,
    /** How jobs created from now on end (endImportJobsAs). */
    importJobOutcome: 'complete' as ImportJobOutcome,
    /** Import errors carry the refused row (original_payload); Klaviyo's definition lets it be null. */
    namingRefusedRows: true,
  };
  const importJobs = new Map<string, FakeImportJob>();
  /** Emails a bulk import refuses (listed in the job's import errors), with Klaviyo's detail. */
  const refusedInBulk = new Map<string, string>();

  // ---- OAuth (options.oauthApp): the app's grants on the stand-in's one account.
  const accountId = options.accountId ?? 'AbC123';
  const accountName = options.accountName ?? 'Fake Shop';
  const appName = options.oauthApp?.name ?? 'Flowsmith';
  const accessTokenLifetimeSeconds = options.oauthAccessTokenLifetimeSeconds ?? 3600;
  const rotation = options.oauthRefreshRotation ?? 'rotate';
  /** How long a refresh token may go unused (integrations report Klaviyo's as 90 days of inactivity). */
  const refreshIdleMs = 90 * 24 * 3_600_000;
  /** How long an authorization code waits for its exchange: the guide gives no figure; RFC 6749 §4.1.2 recommends at most 10 minutes. */
  const codeLifetimeMs = 10 * 60_000;
  /** One authorization (an Allow, and every token obtained from its code and refreshes): revoking a refresh token ends all of it (RFC 7009 §2.1). */
  interface Grant {
    id: number;
    scopes: string[];
    revoked: boolean;
  }
  interface RefreshToken {
    token: string;
    grant: Grant;
    lastUsedAt: number;
    /** Refused from now on (rotated away, or its replacement used). */
    retired: boolean;
    parent: RefreshToken | null;
    successors: RefreshToken[];
  }
  const pendingConsents = new Map<string, { redirectUri: string; state: string; scopes: string[]; challenge: string }>();
  const authorizationCodes = new Map<string, { redirectUri: string; challenge: string; scopes: string[]; expiresAt: number; used: boolean }>();
  const oauthAccessTokens = new Map<string, { grant: Grant; expiresAt: number }>();
  const oauthRefreshTokens = new Map<string, RefreshToken>();
  const oauthTokenRequests: KlaviyoTokenRequest[] = [];
  const revocations: KlaviyoRevocation[] = [];
  const tokenFaults: Array<number | 'timeout'> = [];
  const oauthState = { nextGrant: 1, loseAnswers: 0 };
  /** Klaviyo's tokens are opaque strings; the stand-in's prefixes (kat_, krt_) only make them readable in test output. */
  const opaque = (kind: string) => `${kind}_${randomBytes(24).toString('base64url')}`;

  /** A live access token's grant, or undefined (unknown, expired or revoked). */
  function bearerGrant(token: string): Grant | undefined {
    const found = oauthAccessTokens.get(token);
    return found && !found.grant.revoked && found.expiresAt > now() ? found.grant : undefined;
  }

  function issueTokens(grant: Grant, refresh: RefreshToken | null, parent: RefreshToken | null) {
    const accessToken = opaque('kat');
    oauthAccessTokens.set(accessToken, { grant, expiresAt: now() + accessTokenLifetimeSeconds * 1000 });
    let next = refresh;
    if (!next) {
      next = { token: opaque('krt'), grant, lastUsedAt: now(), retired: false, parent, successors: [] };
      oauthRefreshTokens.set(next.token, next);
      parent?.successors.push(next);
    }
    return { access_token: accessToken, token_type: 'Bearer', expires_in: accessTokenLifetimeSeconds, refresh_token: next.token, scope: grant.scopes.join(' ') };
  }

  const unauthorizedClient = () => oauthError(401, 'invalid_client', 'Client authentication failed.', { 'WWW-Authenticate': 'Basic realm="klaviyo"' });
  const invalidGrant = () => oauthError(400, 'invalid_grant');

  /** The app's Basic credentials, if they are the app's. The contract already refused a request without them. */
  function authenticatedClient(request: RecordedRequest): boolean {
    const credentials = basicCredentials(request.headers.authorization);
    return !!options.oauthApp && credentials?.clientId === options.oauthApp.clientId && credentials.clientSecret === options.oauthApp.clientSecret;
  }

  /**
   * GET /oauth/authorize, once the contract let it through (klaviyoAuthorizeProblems): the
   * consent page, naming the app, the account and the scopes, with Allow and Deny.
   */
  function handleAuthorize(request: RecordedRequest): FakeReply {
    const id = randomUUID();
    const scopes = request.query.get('scope')!.split(' ').filter(Boolean);
    pendingConsents.set(id, { redirectUri: request.query.get('redirect_uri')!, state: request.query.get('state')!, scopes, challenge: request.query.get('code_challenge')! });
    return consentPage({
      title: `${appName} would like to access your Klaviyo account`,
      paragraphs: [`Allow ${appName} to access the Klaviyo account ${accountName} (${accountId})?`],
      listHeading: `${appName} will be able to:`,
      items: scopes,
      action: '/oauth/authorize/decision',
      hidden: { consent_request: id },
      buttons: [
        { label: 'Allow', value: 'allow' },
        { label: 'Deny', value: 'deny' },
      ],
    });
  }

  /**
   * The consent page's buttons: Allow sends the browser to redirect_uri with `code` and
   * `state`; Deny with `error=access_denied` and `state` (RFC 6749 §4.1.2.1, which the
   * official SDK's OAuthCallbackQueryParams reads).
   */
  function handleDecision(request: RecordedRequest): FakeReply {
    const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, string>;
    const pending = pendingConsents.get(body.consent_request ?? '');
    if (!pending) return refusalPage('This page has expired', 'This authorization request was already answered or is unknown. Start again from the app.');
    pendingConsents.delete(body.consent_request!);
    const location = new URL(pending.redirectUri);
    if (body.decision === 'allow') {
      const code = randomBytes(24).toString('base64url');
      authorizationCodes.set(code, { redirectUri: pending.redirectUri, challenge: pending.challenge, scopes: pending.scopes, expiresAt: now() + codeLifetimeMs, used: false });
      location.searchParams.set('code', code);
    } else {
      location.searchParams.set('error', 'access_denied');
    }
    location.searchParams.set('state', pending.state);
    return { status: 302, headers: { location: location.toString() } };
  }

  /**
   * POST /oauth/token (the shape already held by the contract): the app authenticated by
   * Basic; an authorization code good once, for 10 minutes, for the redirect_uri it was
   * issued to, and only with the verifier whose BASE64URL(SHA256()) is its challenge; a
   * refresh token per `oauthRefreshRotation`. Refusals as RFC 6749 §5.2: 401 invalid_client,
   * 400 invalid_grant (code or refresh token unknown, used, expired, revoked, or a verifier
   * or redirect_uri that does not match).
   */
  function handleToken(request: RecordedRequest): FakeReply {
    if (!authenticatedClient(request)) return unauthorizedClient();
    const body = request.body as Record<string, string>;
    const at = now();
    if (body.grant_type === 'authorization_code') {
      const code = authorizationCodes.get(body.code!);
      if (!code || code.used || code.expiresAt <= at) return invalidGrant();
      // A code is spent by any attempt to exchange it (the stricter reading of RFC 6749 §4.1.2).
      code.used = true;
      const challenge = createHash('sha256').update(body.code_verifier!).digest('base64url');
      if (body.redirect_uri !== code.redirectUri || !codeVerifierForm.test(body.code_verifier!) || challenge !== code.challenge) return invalidGrant();
      const grant: Grant = { id: oauthState.nextGrant++, scopes: code.scopes, revoked: false };
      return { status: 200, body: issueTokens(grant, null, null) };
    }
    const refresh = oauthRefreshTokens.get(body.refresh_token!);
    if (!refresh || refresh.retired || refresh.grant.revoked || at - refresh.lastUsedAt > refreshIdleMs) return invalidGrant();
    refresh.lastUsedAt = at;
    if (rotation === 'keep') return { status: 200, body: issueTokens(refresh.grant, refresh, null) };
    if (rotation === 'rotate') refresh.retired = true;
    else if (refresh.parent && !refresh.parent.retired) {
      refresh.parent.retired = true;
      for (const sibling of refresh.parent.successors) if (sibling !== refresh) sibling.retired = true;
    }
    return { status: 200, body: issueTokens(refresh.grant, null, refresh) };
  }

  /**
   * POST /oauth/revoke (RFC 7009): 200 whatever the token (an unknown or dead one too), with
   * nothing to read. A refresh token ends its whole grant (every access and refresh token
   * of that authorization); an access token ends itself. With a hint, the token is looked
   * up as that kind first, then as the other (§2.1).
   */
  function handleRevoke(request: RecordedRequest): FakeReply {
    const body = request.body as Record<string, string>;
    const token = body.token!;
    const revocation: KlaviyoRevocation = { token, tokenTypeHint: body.token_type_hint, clientId: basicCredentials(request.headers.authorization)?.clientId, receivedAt: now(), revoked: false };
    revocations.push(revocation);
    if (!authenticatedClient(request)) return unauthorizedClient();
    const refresh = oauthRefreshTokens.get(token);
    const access = oauthAccessTokens.get(token);
    if (refresh && !refresh.retired && !refresh.grant.revoked) {
      refresh.grant.revoked = true;
      revocation.revoked = true;
    } else if (access && !access.grant.revoked && access.expiresAt > now()) {
      oauthAccessTokens.delete(token);
      revocation.revoked = true;
    }
    return { status: 200 };
  }

  /** The answer of a request carried out whose answer is lost: the client's HTTP parser refuses it, so no status or body reaches the app. */
  const lostAnswer = (status: number): FakeReply => ({ status, headers: { 'content-length': 'lost', connection: 'close' }, body: '{}', offContract: true });

  async function handleOAuth(request: RecordedRequest): Promise<FakeReply | typeof hang | undefined> {
    if (request.method === 'GET' && request.path === '/oauth/authorize') return handleAuthorize(request);
    if (request.method === 'POST' && request.path === '/oauth/authorize/decision') return handleDecision(request);
    if (request.path === '/oauth/revoke') return handleRevoke(request);
    if (request.path !== '/oauth/token') return undefined;
    const body = request.body as Record<string, string>;
    const received: KlaviyoTokenRequest = {
      grantType: body.grant_type!,
      ...(body.code !== undefined ? { code: body.code } : {}),
      ...(body.refresh_token !== undefined ? { refreshToken: body.refresh_token } : {}),
      receivedAt: now(),
      get status() {
        return request.status;
      },
      lost: false,
    };
    oauthTokenRequests.push(received);
    const fault = tokenFaults.shift();
    if (fault === 'timeout') return hang;
    if (fault !== undefined) return { ...apiError(fault, 'server_error', 'A server error occurred.', 'The service answered with an error.'), offContract: true };
    const reply = handleToken(request);
    if (oauthState.loseAnswers === 0) return reply;
    oauthState.loseAnswers -= 1;
    received.lost = true;
    return lostAnswer(reply.status);
  }

  const appliesTo = (failure: KlaviyoFailure, endpoint: KlaviyoEndpoint) => failure.on === undefined || failure.on === endpoint;

  function failureFor(request: RecordedRequest, endpoint: KlaviyoEndpoint): KlaviyoFailure | undefined {
    for (const rule of rules) {
      const failure = rule(request);
      if (failure && appliesTo(failure, endpoint)) return failure;
    }
    const index = queue.findIndex((failure) => appliesTo(failure, endpoint));
    return index === -1 ? undefined : queue.splice(index, 1)[0];
  }

  function throttledReply(retryAfterSeconds: number): FakeReply {
    state.throttled += 1;
    return apiError(
      429,
      'throttled',
      'Request was throttled.',
      `Request was throttled. Expected available in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}.`,
      '/data/',
      { 'Retry-After': String(retryAfterSeconds) },
    );
  }

  function failureReply(failure: KlaviyoFailure): FakeReply | typeof hang {
    switch (failure.kind) {
      case 'hang':
        return hang;
      case 'bad-property': {
        const property = failure.property ?? 'properties';
        return apiError(400, 'invalid', 'Invalid input.', failure.detail ?? `'${property}' is not a valid field for the resource 'profile'.`, `/data/attributes/${property}`);
      }
      case 'status':
        if (failure.status === 429) return throttledReply(failure.retryAfterSeconds ?? 1);
        return apiError(
          failure.status,
          failure.status >= 500 ? 'server_error' : 'error',
          failure.status >= 500 ? 'A server error occurred.' : 'Request failed.',
          failure.detail ?? 'The service answered with an error.',
        );
    }
  }

  /**
   * Applies the per-account burst and steady windows; returns a 429 when over either. A
   * `tier` is a bucket of its own with its own limits: getProfiles asking for predictive
   * analytics (profileLookupTier).
   */
  function rateLimit(key: string, endpoint: KlaviyoEndpoint, tier?: { name: string; limit: RateLimit }): FakeReply | undefined {
    const at = now();
    const windowKey = `${key}|${tier?.name ?? endpoint}`;
    if (state.enforceRateLimits) {
      const limit = tier?.limit ?? limits[endpoint];
      const overBurst = burst.count(windowKey, at) >= limit.burstPerSecond;
      const overSteady = steady.count(windowKey, at) >= limit.steadyPerMinute;
      if (overBurst || overSteady) {
        const waitMs = Math.max(overBurst ? burst.freeInMs(windowKey, at) : 0, overSteady ? steady.freeInMs(windowKey, at) : 0);
        return throttledReply(Math.max(1, Math.ceil(waitMs / 1000)));
      }
    }
    burst.add(windowKey, at);
    steady.add(windowKey, at);
    return undefined;
  }

  function upsertProfile(email: string, attributes: Record<string, any>): { profile: FakeKlaviyoProfile; created: boolean } {
    const stamp = new Date(now()).toISOString();
    let profile = profiles.get(email);
    const created = !profile;
    if (!profile) {
      profile = { id: randomUUID().replace(/-/g, '').slice(0, 26).toUpperCase(), email, first_name: null, last_name: null, properties: {}, created: stamp, updated: stamp };
      profiles.set(email, profile);
    }
    // An absent field is kept, null clears it.
    if (attributes.first_name !== undefined) profile.first_name = attributes.first_name;
    if (attributes.last_name !== undefined) profile.last_name = attributes.last_name;
    mergeProperties(profile.properties, attributes.properties);
    profile.updated = stamp;
    return { profile, created };
  }

  /** The additional fields a request asks for (`additional-fields[profile]`, comma-separated; the contract refused unknown ones). */
  const additionalFields = (query: URLSearchParams) => new Set(query.getAll('additional-fields[profile]').flatMap((value) => value.split(',')));

  /**
   * A profile's predictive analytics as Klaviyo answers them: its figures, every field the
   * definition has (those not given null). A profile Klaviyo has no figures for, and every
   * profile of an account without predictive analytics, answers the object with every field
   * null. Klaviyo's API reference does not say what an account without them gets; the help
   * centre says a profile's predictive section can be blank when Klaviyo lacks the data for
   * that person, and the definition makes each field nullable (the OpenAPI document lets
   * `predictive_analytics` itself be null too, the SDK's type does not), so the stand-in
   * answers null fields, which both accept. The app must read either.
   */
  const predictiveAnalyticsOf = (profile: FakeKlaviyoProfile): FakePredictiveAnalytics =>
    accountHasPredictions ? { ...noPredictions(), ...predictions.get(profile.id) } : noPredictions();

  /**
   * A profile as Klaviyo answers it. `additional-fields[profile]` adds what Klaviyo leaves
   * out unless asked: `predictive_analytics` (predictiveAnalyticsOf) and `subscriptions`
   * (the stand-in keeps no consent, so every profile answers as never subscribed to email
   * marketing, with no suppression: the fields the definition requires of EmailMarketing).
   * `fields[profile]` then narrows the attributes, as Klaviyo's sparse fieldsets do; the
   * definition lists `predictive_analytics` and its fields among them, so an additional
   * field the fieldset does not name is left out (our reading: the reference does not say).
   */
  const profileResource = (profile: FakeKlaviyoProfile, query: URLSearchParams) => {
    const attributes: Record<string, unknown> = {
      email: profile.email,
      first_name: profile.first_name,
      last_name: profile.last_name,
      properties: profile.properties,
      created: profile.created,
      updated: profile.updated,
    };
    const additional = additionalFields(query);
    if (additional.has('subscriptions')) attributes.subscriptions = { email: { marketing: { can_receive_email_marketing: true, consent: 'NEVER_SUBSCRIBED' } } };
    if (additional.has('predictive_analytics')) attributes.predictive_analytics = predictiveAnalyticsOf(profile);
    const fields = query.get('fields[profile]');
    return {
      type: 'profile',
      id: profile.id,
      attributes: fields ? sparse(attributes, fields.split(',')) : attributes,
      links: { self: `https://a.klaviyo.com/api/profiles/${profile.id}/` },
    };
  };

  /**
   * getProfiles asking for predictive analytics has a tier of its own in the definition
   * (Burst 10/s, Steady 150/m: klaviyoDocumentedLimits); counted apart from the lookups
   * without it (the definition does not say whether they share a bucket). getProfile
   * states no such tier.
   */
  const predictiveTier = { name: 'profiles+predictive_analytics', limit: { burstPerSecond: documented.profilesPredictiveBurstPerSecond, steadyPerMinute: documented.profilesPredictiveSteadyPerMinute } };
  const profileLookupTier = (request: RecordedRequest) =>
    operationOf(request)?.name === 'getProfiles' && additionalFields(request.query).has('predictive_analytics') ? predictiveTier : undefined;

  function handleProfileImport(request: RecordedRequest): FakeReply {
    if (Buffer.byteLength(request.rawBody) > documented.profileWriteMaxBytes) {
      return apiError(413, 'request_too_large', 'Request too large.', `The request payload exceeds the ${documented.profileWriteMaxBytes / 1024} KB limit.`);
    }
    const data = (request.body as any)?.data;
    if (data?.type !== 'profile') return apiError(400, 'invalid', 'Invalid input.', "'data.type' must be 'profile'.", '/data/type');
    const attributes = data.attributes ?? {};
    if (typeof attributes.email !== 'string' || !attributes.email.includes('@')) {
      return apiError(400, 'invalid', 'Invalid input.', 'One of email, phone_number or external_id is required.', '/data/attributes/email');
    }
    const { profile, created } = upsertProfile(attributes.email, attributes);
    const unset = data.meta?.patch_properties?.unset;
    for (const key of typeof unset === 'string' ? [unset] : Array.isArray(unset) ? unset : []) delete profile.properties[key];
    return { status: created ? 201 : 200, contentType: 'application/vnd.api+json', body: { data: profileResource(profile, request.query) } };
  }

  /** GET /api/profiles?filter=equals(email,"…") or any(email,["…","…"]): the filters the app uses. */
  function handleGetProfiles(request: RecordedRequest): FakeReply {
    const filter = request.query.get('filter') ?? '';
    const quoted = /"((?:[^"\\]|\\.)*)"/g;
    const equals = /^equals\(email,"((?:[^"\\]|\\.)*)"\)$/.exec(filter);
    const any = /^any\(email,\[(.*)\]\)$/.exec(filter);
    if (filter === '') {
      // Without a filter Klaviyo lists the account's profiles, a page at a time (20 unless page[size] says).
      const page = [...profiles.values()].slice(0, Number(request.query.get('page[size]') ?? 20));
      return { status: 200, contentType: 'application/vnd.api+json', body: { data: page.map((profile) => profileResource(profile, request.query)), links: { self: 'https://a.klaviyo.com/api/profiles/' } } };
    }
    if (!equals && !any) return apiError(400, 'invalid', 'Invalid input.', `Invalid filter provided: ${filter}`, '/filter');
    const emails = equals ? [equals[1]!] : [...any![1]!.matchAll(quoted)].map((match) => match[1]!);
    if (emails.length > 100) return apiError(400, 'invalid', 'Invalid input.', 'A filter may name at most 100 values.', '/filter');
    const wanted = new Set(emails.map((email) => email.replace(/\\(.)/g, '$1').toLowerCase()));
    const found = [...profiles.values()].filter((profile) => wanted.has(profile.email.toLowerCase()));
    return {
      status: 200,
      contentType: 'application/vnd.api+json',
      body: { data: found.map((profile) => profileResource(profile, request.query)), links: { self: 'https://a.klaviyo.com/api/profiles/' } },
    };
  }

  /** GET /api/profiles/{id}: the profile with this id, or Klaviyo's 404. */
  function handleGetProfile(request: RecordedRequest): FakeReply {
    const id = decodeURIComponent(/^\/api\/profiles\/([^/]+)\/?$/.exec(request.path)?.[1] ?? '');
    const profile = [...profiles.values()].find((candidate) => candidate.id === id);
    if (!profile) return apiError(404, 'not_found', 'Not found.', `A profile with id ${id} does not exist.`);
    return { status: 200, contentType: 'application/vnd.api+json', body: { data: profileResource(profile, request.query), links: { self: `https://a.klaviyo.com/api/profiles/${profile.id}/` } } };
  }

  function handleEvents(request: RecordedRequest, key: string): FakeReply {
    const attributes = (request.body as any)?.data?.attributes;
    if ((request.body as any)?.data?.type !== 'event' || !attributes) {
      return apiError(400, 'invalid', 'Invalid input.', "'data.type' must be 'event'.", '/data/type');
    }
    const metric = attributes.metric?.data?.attributes?.name;
    if (typeof metric !== 'string' || metric === '') {
      return apiError(400, 'invalid', 'Invalid input.', 'A metric name is required.', '/data/attributes/metric/data/attributes/name');
    }
    const profileAttributes = attributes.profile?.data?.attributes ?? {};
    if (typeof profileAttributes.email !== 'string') {
      return apiError(400, 'invalid', 'Invalid input.', 'The profile needs an email.', '/data/attributes/profile/data/attributes/email');
    }
    const uniqueId: string | undefined = attributes.unique_id;
    if (uniqueId !== undefined && seenUniqueIds.has(uniqueId)) return { status: 202 };
    if (uniqueId !== undefined) seenUniqueIds.add(uniqueId);
    upsertProfile(profileAttributes.email, profileAttributes);
    events.push({
      metric,
      email: profileAttributes.email,
      properties: attributes.properties ?? {},
      profileProperties: profileAttributes.properties ?? {},
      uniqueId,
      time: attributes.time,
      apiKey: key,
    });
    return { status: 202 };
  }

  /** POST /api/profile-bulk-import-jobs: up to 10,000 profiles and 5 MB; applied when the job completes. */
  function handleBulkImport(request: RecordedRequest): FakeReply {
    if (Buffer.byteLength(request.rawBody) > documented.importJobMaxBytes) return apiError(413, 'request_too_large', 'Request too large.', `The payload exceeds ${documented.importJobMaxBytes / 1024 / 1024} MB.`);
    const data = (request.body as any)?.data;
    const rows = data?.attributes?.profiles?.data;
    if (data?.type !== 'profile-bulk-import-job' || !Array.isArray(rows) || rows.length === 0) {
      return apiError(400, 'invalid', 'Invalid input.', "'data.attributes.profiles.data' must list profiles.", '/data/attributes/profiles');
    }
    if (rows.length > documented.importJobMaxProfiles) {
      return apiError(400, 'invalid', 'Invalid input.', `A job may import at most ${documented.importJobMaxProfiles.toLocaleString('en-US')} profiles.`, '/data/attributes/profiles/data');
    }
    const createdAt = now();
    const startsAt = state.holdingImportJobs ? Number.POSITIVE_INFINITY : createdAt;
    const job: FakeImportJob = { id: randomUUID(), outcome: state.importJobOutcome, createdAt, startsAt, total: rows.length, errors: [], applied: false, apply: () => undefined };
    const accepted: Array<Record<string, any>> = [];
    for (const row of rows) {
      const attributes = row?.attributes ?? {};
      const email = typeof attributes.email === 'string' ? attributes.email : '';
      const refusal = !email.includes('@') ? 'One of email, phone_number or external_id is required.' : refusedInBulk.get(email.toLowerCase());
      if (refusal) job.errors.push({ email, detail: refusal, original: attributes });
      else accepted.push(attributes);
    }
    job.apply = () => {
      // A cancelled job writes nothing; an expired one did its work long before it expired.
      if (job.outcome !== 'cancelled') for (const attributes of accepted) upsertProfile(attributes.email, attributes);
      job.applied = true;
    };
    importJobs.set(job.id, job);
    return { status: 202, contentType: 'application/vnd.api+json', body: { data: importJobResource(job) } };
  }

  function importJobResource(job: FakeImportJob) {
    const elapsed = now() - job.startsAt;
    const ended = elapsed >= state.bulkJobMs;
    if (ended && !job.applied) job.apply();
    const cancelled = job.outcome === 'cancelled';
    const endedAt = new Date(job.startsAt + state.bulkJobMs);
    return {
      type: 'profile-bulk-import-job',
      id: job.id,
      attributes: {
        status: ended ? (cancelled ? 'cancelled' : 'complete') : elapsed >= state.bulkJobMs / 2 ? 'processing' : 'queued',
        created_at: new Date(job.createdAt).toISOString(),
        total_count: job.total,
        completed_count: ended && !cancelled ? job.total - job.errors.length : 0,
        failed_count: ended && !cancelled ? job.errors.length : 0,
        completed_at: ended ? endedAt.toISOString() : null,
        // Klaviyo keeps a job's results for a while, then the job is gone (404).
        expires_at: ended ? new Date(endedAt.getTime() + 7 * 24 * 3_600_000).toISOString() : null,
        started_at: elapsed >= 0 ? new Date(job.startsAt).toISOString() : null,
      },
      links: { self: `https://a.klaviyo.com/api/profile-bulk-import-jobs/${job.id}/` },
    };
  }

  /** An expired job is gone once it has ended: Klaviyo answers 404 for it and its errors. */
  const isGone = (job: FakeImportJob) => job.outcome === 'expired' && now() - job.startsAt >= state.bulkJobMs;

  function handleImportJob(request: RecordedRequest, path: string): FakeReply {
    const match = /^\/api\/profile-bulk-import-jobs\/([^/]+)(\/import-errors)?$/.exec(path);
    const job = match ? importJobs.get(match[1]!) : undefined;
    if (!job || isGone(job)) return apiError(404, 'not_found', 'Not found.', `A profile-bulk-import-job with id ${match?.[1] ?? ''} does not exist.`);
    if (!match![2]) return { status: 200, contentType: 'application/vnd.api+json', body: { data: importJobResource(job), links: { self: `https://a.klaviyo.com/api/profile-bulk-import-jobs/${job.id}/` } } };
    return { status: 200, contentType: 'application/vnd.api+json', body: importErrorsPage(job, request.query) };
  }

  /**
   * One page of a job's import errors, as Klaviyo pages them: page[size] (default 20, at
   * most 100) and a cursor; `links.next` is an absolute URL on Klaviyo's own host, present
   * only when more rows follow.
   */
  function importErrorsPage(job: FakeImportJob, query: URLSearchParams) {
    const size = Number(query.get('page[size]') ?? defaultImportErrorsPageSize);
    const cursor = query.get('page[cursor]');
    const offset = cursor ? Number(Buffer.from(cursor, 'base64url').toString('utf8')) || 0 : 0;
    const errors = job.errors.slice(offset, offset + size);
    const url = (at: number) => {
      const params = new URLSearchParams({ 'page[size]': String(size) });
      if (at > 0) params.set('page[cursor]', Buffer.from(String(at)).toString('base64url'));
      return `https://a.klaviyo.com/api/profile-bulk-import-jobs/${job.id}/import-errors/?${params}`;
    };
    const links: Record<string, string> = { self: url(offset) };
    if (offset + size < job.errors.length) links.next = url(offset + size);
    if (offset > 0) links.prev = url(Math.max(0, offset - size));
    return {
      data: errors.map((error, index) => ({
        type: 'import-error',
        id: `${job.id}-${offset + index}`,
        attributes: { code: 'invalid', title: 'Invalid input.', detail: error.detail, source: { pointer: '/data/attributes/email' }, original_payload: state.namingRefusedRows ? error.original : null },
      })),
      links,
    };
  }

  /** POST /api/event-bulk-create-jobs: up to 1,000 events, each de-duplicated by unique_id like POST /api/events. */
  function handleBulkEvents(request: RecordedRequest, key: string): FakeReply {
    const data = (request.body as any)?.data;
    const entries = data?.attributes?.['events-bulk-create']?.data;
    if (data?.type !== 'event-bulk-create-job' || !Array.isArray(entries)) {
      return apiError(400, 'invalid', 'Invalid input.', "'data.attributes.events-bulk-create.data' must list profiles with events.", '/data/attributes');
    }
    const count = entries.reduce((sum: number, entry: any) => sum + (entry?.attributes?.events?.data?.length ?? 0), 0);
    if (count > documented.bulkEventsMaxEvents) return apiError(400, 'invalid', 'Invalid input.', `A job may create at most ${documented.bulkEventsMaxEvents.toLocaleString('en-US')} events.`, '/data/attributes');
    for (const entry of entries) {
      const profileAttributes = entry?.attributes?.profile?.data?.attributes ?? {};
      for (const event of entry?.attributes?.events?.data ?? []) {
        const attributes = event?.attributes ?? {};
        const uniqueId: string | undefined = attributes.unique_id;
        if (uniqueId !== undefined && seenUniqueIds.has(uniqueId)) continue;
        if (uniqueId !== undefined) seenUniqueIds.add(uniqueId);
        upsertProfile(profileAttributes.email, profileAttributes);
        events.push({
          metric: attributes.metric?.data?.attributes?.name,
          email: profileAttributes.email,
          properties: attributes.properties ?? {},
          profileProperties: profileAttributes.properties ?? {},
          uniqueId,
          time: attributes.time,
          apiKey: key,
        });
      }
    }
    // Klaviyo accepts the job with 202 and no body (the definition has no answer type for it).
    return { status: 202 };
  }

  /** The stand-in's endpoints, by the definition's operation a request is for. */
  const endpointByOperation: Record<string, KlaviyoEndpoint> = {
    getAccounts: 'accounts',
    getLists: 'lists',
    getProfiles: 'profiles',
    getProfile: 'profiles',
    createOrUpdateProfile: 'profile-import',
    createEvent: 'events',
    bulkImportProfiles: 'profile-bulk-import-jobs',
    getBulkImportProfilesJob: 'profile-bulk-import-job',
    getErrorsForBulkImportProfilesJob: 'profile-bulk-import-errors',
    bulkCreateEvents: 'event-bulk-create-jobs',
  };
  const operationOf = (request: RecordedRequest) => klaviyoOperationFor(request.method, request.path);
  const endpointOf = (request: RecordedRequest): KlaviyoEndpoint | undefined => endpointByOperation[operationOf(request)?.name ?? ''];

  const server = await startFakeServer(async (request) => {
    if (state.latencyMs > 0) await delay(state.latencyMs);
    if (request.path.startsWith('/oauth/')) {
      const answered = await handleOAuth(request);
      if (answered) return answered;
    }
    const endpoint = endpointOf(request);
    // The contract answered routes Klaviyo lacks; these are Klaviyo's, but not served here.
    if (!endpoint) return apiError(404, 'not_found', 'Not found.', `The stand-in does not serve ${request.method} ${request.path}.`);
    state.counts[endpoint] += 1;
    const failure = failureFor(request, endpoint);
    if (failure) return failureReply(failure);
    // An OAuth access token (`Bearer`) stands where a key does: its grant's scopes are its
    // scopes, and the account's id keys its rate windows (its token changes every hour).
    const bearer = bearerToken(request.headers.authorization);
    const grant = bearer ? bearerGrant(bearer) : undefined;
    if (bearer && !grant) return apiError(401, 'authentication_failed', 'Incorrect authentication credentials.', 'Incorrect authentication credentials.');
    const key = bearer ?? /^Klaviyo-API-Key\s+(\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!key || (!grant && !validKeys.has(key))) {
      return apiError(options.invalidKeyStatus ?? 401, 'authentication_failed', 'Incorrect authentication credentials.', 'Incorrect authentication credentials.');
    }
    const keyScopes = grant ? grant.scopes : scopesOf(key);
    const missing = (operationOf(request)?.scopes ?? []).filter((scope) => !keyScopes.includes(scope));
    if (missing.length > 0) {
      return apiError(403, 'permission_denied', 'You do not have permission to perform this action.', `This API key is missing required scopes: ${missing.join(', ')}.`);
    }
    const limited = rateLimit(grant ? `account:${accountId}` : key, endpoint, profileLookupTier(request));
    if (limited) return limited;
    if (endpoint === 'accounts') {
      return {
        status: 200,
        contentType: 'application/vnd.api+json',
        body: {
          data: [
            {
              type: 'account',
              id: accountId,
              attributes: {
                test_account: false,
                contact_information: {
                  default_sender_name: 'Fake Shop',
                  default_sender_email: 'owner@example.com',
                  organization_name: accountName,
                  street_address: { address1: '1 Main St', address2: null, city: 'Boston', region: 'MA', country: 'US', zip: '02110' },
                },
                industry: null,
                timezone: 'UTC',
                preferred_currency: 'USD',
                public_api_key: accountId,
                locale: 'en-US',
              },
              links: { self: `https://a.klaviyo.com/api/accounts/${accountId}/` },
            },
          ],
          links: { self: 'https://a.klaviyo.com/api/accounts/' },
        },
      };
    }
    if (endpoint === 'lists') {
      // The app asks for lists only to learn whether its key may read them; the account has none.
      return { status: 200, contentType: 'application/vnd.api+json', body: { data: [], links: { self: 'https://a.klaviyo.com/api/lists/' } } };
    }
    if (endpoint === 'profiles') return operationOf(request)?.name === 'getProfile' ? handleGetProfile(request) : handleGetProfiles(request);
    if (endpoint === 'profile-bulk-import-jobs') return handleBulkImport(request);
    if (endpoint === 'profile-bulk-import-job' || endpoint === 'profile-bulk-import-errors') return handleImportJob(request, request.path.replace(/\/$/, ''));
    if (endpoint === 'event-bulk-create-jobs') return handleBulkEvents(request, key);
    const reply = endpoint === 'profile-import' ? handleProfileImport(request) : handleEvents(request, key);
    if (reply.status < 300) writes.add(endpoint, now());
    return reply;
  }, withKlaviyoOAuth(withQueryValues(klaviyoContract), () => options.oauthApp, new Set(allScopes)));

  return {
    /** The app's KLAVIYO_BASE_URL. */
    baseUrl: server.baseUrl,
    requests: server.requests,
    /** Profiles by email: `profiles.get(email)?.properties`. */
    profiles,
    /** A profile the account already has (a customer synced from the shop, say). */
    addProfile(email: string, attributes: { first_name?: string; last_name?: string } = {}) {
      return upsertProfile(email, attributes).profile;
    },
    /**
     * Gives the profile with this email (made, as by addProfile, if the account lacks it)
     * these predictive figures: the fields not given are null, as Klaviyo answers a figure it
     * has none for. null takes its figures away (every field null again). Checked against
     * the definition's PredictiveAnalytics; answered only to requests that ask for them
     * (`additional-fields[profile]=predictive_analytics`), and all null when the account has
     * no predictive analytics (options.predictiveAnalytics false).
     */
    setPredictiveAnalytics(email: string, values: Partial<FakePredictiveAnalytics> | null): FakeKlaviyoProfile {
      const profile = profiles.get(email) ?? [...profiles.values()].find((candidate) => candidate.email.toLowerCase() === email.toLowerCase()) ?? upsertProfile(email, {}).profile;
      if (values === null) {
        predictions.delete(profile.id);
        return profile;
      }
      const figures = { ...noPredictions(), ...Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) };
      const checked = checkKlaviyoType('PredictiveAnalytics', figures);
      if (!checked.ok) throw new Error(`setPredictiveAnalytics(${email}): not Klaviyo's PredictiveAnalytics: ${checked.problems.join('; ')}`);
      predictions.set(profile.id, figures);
      return profile;
    },
    events,
    validKeys,
    keysWithoutAccountsScope,
    set enforceRateLimits(enabled: boolean) {
      state.enforceRateLimits = enabled;
    },
    get enforceRateLimits() {
      return state.enforceRateLimits;
    },
    setLatency(milliseconds: number) {
      state.latencyMs = milliseconds;
    },
    /** Queues failures, each used once by the next matching request. */
    failNext(...failures: KlaviyoFailure[]) {
      queue.push(...failures);
    },
    /** Adds a standing rule: every request for which it returns a failure gets it. */
    failWhen(rule: (request: RecordedRequest) => KlaviyoFailure | undefined) {
      rules.push(rule);
    },
    clearFailures() {
      queue.length = 0;
      rules.length = 0;
    },
    /**
     * Accepts import jobs but leaves them queued until the returned release is called (an
     * account whose imports wait behind others at Klaviyo); then they run as usual.
     */
    holdImportJobs(): () => void {
      state.holdingImportJobs = true;
      return () => {
        state.holdingImportJobs = false;
        const releasedAt = now();
        for (const job of importJobs.values()) if (job.startsAt === Number.POSITIVE_INFINITY) job.startsAt = releasedAt;
      };
    },
    /** How import jobs created from now on end (default complete). */
    endImportJobsAs(outcome: ImportJobOutcome) {
      state.importJobOutcome = outcome;
    },
    /** Whether import errors carry the refused row (default true); without it they do not say which row was refused. */
    nameRefusedRows(naming: boolean) {
      state.namingRefusedRows = naming;
    },
    /** Sets a valid key's scopes; null gives it every scope again. */
    setScopes(key: string, scopes: string[] | null) {
      if (scopes) scopesForKey.set(key, scopes);
      else scopesForKey.delete(key);
    },
    /** What the definition refused so far; a test that sent it on purpose takes them here. */
    takeViolations: server.takeViolations,
    /** Makes bulk imports refuse this email (it appears in the job's import errors with `detail`). */
    refuseInBulk(email: string, detail = 'Invalid email address.') {
      refusedInBulk.set(email.toLowerCase(), detail);
    },
    /** Requests received per endpoint (including failed ones). */
    counts: state.counts,
    /** Successful writes of that endpoint within the last 60 s. */
    writesInLastMinute(endpoint: 'profile-import' | 'events') {
      return writes.count(endpoint, now());
    },
    /** How many 429 answers the fake has sent (forced and enforced). */
    get throttledCount() {
      return state.throttled;
    },

    // ---- OAuth (options.oauthApp).

    /** Every /oauth/token request that reached the stand-in (past the contract), in order, by grant, with the code or refresh token it used. */
    oauthTokenRequests,
    /** What /oauth/revoke received (past the contract), in order. */
    revocations,
    /** Every OAuth access token issued (expired and revoked ones too), with its expiry in ms, whether its grant was revoked, and its scopes. */
    get oauthAccessTokens(): ReadonlyMap<string, { expiresAt: number; revoked: boolean; scopes: string[] }> {
      return new Map([...oauthAccessTokens].map(([token, entry]) => [token, { expiresAt: entry.expiresAt, revoked: entry.grant.revoked, scopes: entry.grant.scopes }]));
    },
    /** Every OAuth access token expires now: API calls with them answer 401. Refresh tokens are untouched. */
    expireAccessTokens() {
      const at = now();
      for (const entry of oauthAccessTokens.values()) entry.expiresAt = Math.min(entry.expiresAt, at);
    },
    /**
     * The owner removed the app in Klaviyo: every grant ends, so every access token answers
     * 401 and every refresh is refused (invalid_grant) for good. A new Allow gives new tokens.
     */
    revokeAllOAuthTokens() {
      for (const entry of oauthAccessTokens.values()) entry.grant.revoked = true;
      for (const refresh of oauthRefreshTokens.values()) refresh.grant.revoked = true;
    },
    /**
     * The next /oauth/token request is carried out (tokens issued, rotation applied, the
     * code spent) but its answer never arrives: the connection ends with a response no
     * HTTP client can read, so the app's request fails as on a reset.
     */
    loseNextTokenAnswer() {
      oauthState.loseAnswers += 1;
    },
    /**
     * The next `times` /oauth/token requests fail before anything is done: answered with
     * `status` (a 5xx) or, with 'timeout', never answered until the client gives up.
     */
    failTokenRequests(times: number, status: number | 'timeout') {
      for (let index = 0; index < times; index += 1) tokenFaults.push(status);
    },
    close: server.close,
  };
}
export type FakeKlaviyo = Awaited<ReturnType<typeof startFakeKlaviyo>>;
