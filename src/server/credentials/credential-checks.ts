import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { cacheLifetime, type Clock } from '../platform/clock.ts';
import { ServiceError, type ServiceErrorCode, type ServiceName } from '../integrations/service-error.ts';
import { checkKlaviyoKey } from '../integrations/klaviyo/klaviyo-accounts.ts';
import { findOpenAiModel, listOpenAiModels } from '../integrations/openai/openai-models.ts';
import { isShutDown } from '../integrations/openai/openai-prices.ts';
import { fetchGrantedScopes, fetchShop, shopifyShopUrl } from '../integrations/shopify/shopify-admin.ts';
import { describeShopifyScopes, shopifyScopes } from '../../shared/shopify-connect/shopify-scopes.ts';
import { obtainClientCredentialsToken, type ObtainedShopifyToken } from '../integrations/shopify/shopify-client-credentials.ts';
import { credentialCheckMessages as m } from '../../shared/credentials/credential-messages.ts';
import type { CredentialField, Credentials } from '../../shared/credentials/credential-schemas.ts';

/** Each service gets this long to answer the whole of its check. */
export const CREDENTIAL_CHECK_TIMEOUT_MS = 8_000;
/** Klaviyo's key check allows 1/s and 15/min per account, so a positive answer is reused this long. */
export const KLAVIYO_KEY_CACHE_MS = 10 * 60_000;
const KLAVIYO_KEY_CACHE_ENTRIES = 1_000;

export interface CredentialCheckServices {
  openaiBaseUrl: string;
  klaviyoBaseUrl: string;
  shopifyBaseUrl: string | undefined;
  clock: Clock;
  klaviyoKeyCache: KlaviyoKeyCache;
  timeoutMs?: number;
}

export interface CredentialCheckReport {
  fieldErrors: Partial<Record<CredentialField, string>>;
  /** A service said a value is wrong. */
  invalid: boolean;
  /** A service could not be asked (timeout, connection, 429, 5xx, an unreadable answer). */
  unreachable: boolean;
  /** What went wrong per service, for the log (never a secret). */
  problems: Array<{ service: ServiceName; code: ServiceErrorCode; status: number | null }>;
  /** The token the client-credentials check obtained, worth keeping. */
  obtainedShopifyToken: ObtainedShopifyToken | null;
}

/** Remembers, by hash, the Klaviyo keys that passed the check lately. */
export class KlaviyoKeyCache {
  private readonly passed: LRUCache<string, true>;
  constructor(clock: Clock, ttlMs = KLAVIYO_KEY_CACHE_MS) {
    this.passed = new LRUCache({ max: KLAVIYO_KEY_CACHE_ENTRIES, ...cacheLifetime(clock, ttlMs) });
  }
  private static hash(apiKey: string): string {
    return createHash('sha256').update(apiKey).digest('base64');
  }
  has(apiKey: string): boolean {
    return this.passed.get(KlaviyoKeyCache.hash(apiKey)) === true;
  }
  remember(apiKey: string): void {
    this.passed.set(KlaviyoKeyCache.hash(apiKey), true);
  }
  forget(apiKey: string): void {
    this.passed.delete(KlaviyoKeyCache.hash(apiKey));
  }
}

type FieldErrors = CredentialCheckReport['fieldErrors'];
type ServiceOutcome = { fieldErrors: FieldErrors; problem?: ServiceError; obtainedShopifyToken?: ObtainedShopifyToken };

function asServiceError(service: ServiceName, error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  return new ServiceError(service, 'invalid_response', 'the answer could not be read');
}

/**
 * What the owner connected by OAuth (docs/decisions/0048-connect-by-oauth.md): a service
 * chosen that way was checked when it was connected, so a save only needs it to be so.
 */
export interface OAuthConnected {
  /** The shop connected through the deployment's app, while connected. */
  shopifyDomain: string | null;
  klaviyo: boolean;
}

async function checkKlaviyo(credentials: Credentials, services: CredentialCheckServices, signal: AbortSignal, connected: OAuthConnected): Promise<ServiceOutcome> {
  if (credentials.klaviyoAuthMethod === 'oauth') return { fieldErrors: connected.klaviyo ? {} : { klaviyoApiKey: m.klaviyoNotConnected } };
  if (services.klaviyoKeyCache.has(credentials.klaviyoApiKey)) return { fieldErrors: {} };
  try {
    const { missingScopes } = await checkKlaviyoKey(services.klaviyoBaseUrl, credentials.klaviyoApiKey, signal);
    if (missingScopes.length > 0) {
      const problem = new ServiceError('klaviyo', 'forbidden', `the key lacks ${missingScopes.join(', ')}`, { status: 403 });
      return { fieldErrors: { klaviyoApiKey: m.klaviyoKeyMissingScope(missingScopes) }, problem };
    }
    services.klaviyoKeyCache.remember(credentials.klaviyoApiKey);
    return { fieldErrors: {} };
  } catch (caught) {
    const error = asServiceError('klaviyo', caught);
    if (error.code === 'forbidden') return { fieldErrors: { klaviyoApiKey: m.klaviyoKeyMissingScope(['accounts:read']) }, problem: error };
    if (error.reachable) return { fieldErrors: { klaviyoApiKey: m.klaviyoKeyInvalid }, problem: error };
    return { fieldErrors: { klaviyoApiKey: m.klaviyoUnreachable }, problem: error };
  }
}

async function checkOpenAi(credentials: Credentials, services: CredentialCheckServices, signal: AbortSignal): Promise<ServiceOutcome> {
  const { openaiApiKey: apiKey, openaiModel: model } = credentials;
  // Both at once: a bad key fails both, and the answer comes in one round trip.
  const [list, exists] = await Promise.allSettled([
    listOpenAiModels(services.openaiBaseUrl, apiKey, signal),
    findOpenAiModel(services.openaiBaseUrl, apiKey, model, signal),
  ]);
  if (list.status === 'rejected') {
    const error = asServiceError('openai', list.reason);
    return { fieldErrors: { openaiApiKey: error.reachable ? m.openaiKeyInvalid : m.openaiUnreachable }, problem: error };
  }
  if (exists.status === 'rejected') {
    const error = asServiceError('openai', exists.reason);
    return { fieldErrors: { openaiModel: error.reachable ? m.openaiModelUnavailable(model) : m.openaiUnreachable }, problem: error };
  }
  if (!exists.value) return { fieldErrors: { openaiModel: m.openaiModelUnavailable(model) } };
  // A model OpenAI has shut down would fail every event from then on.
  const { shutdownDate } = exists.value;
  if (shutdownDate && isShutDown(shutdownDate, services.clock.now())) return { fieldErrors: { openaiModel: m.openaiModelShutDown(model, shutdownDate) } };
  return { fieldErrors: {} };
}

async function checkShopify(credentials: Credentials, services: CredentialCheckServices, signal: AbortSignal, connected: OAuthConnected): Promise<ServiceOutcome> {
  if (credentials.shopifyAuthMethod === 'oauth') return { fieldErrors: connected.shopifyDomain === credentials.shopifyDomain ? {} : { shopifyDomain: m.shopifyNotConnected } };
  const shopUrl = shopifyShopUrl(services.shopifyBaseUrl, credentials.shopifyDomain);
  const usesClientCredentials = credentials.shopifyAuthMethod === 'client_credentials';
  let obtained: ObtainedShopifyToken | undefined;
  try {
    if (usesClientCredentials) {
      obtained = await obtainClientCredentialsToken(
        shopUrl,
        { clientId: credentials.shopifyClientId, clientSecret: credentials.shopifyClientSecret },
        services.clock.now(),
        signal,
      );
    }
    const connection = { shopUrl, accessToken: obtained?.accessToken ?? credentials.shopifyAccessToken };
    await fetchShop(connection, signal);
    // A token that reads the shop may still lack what the flows use: found now, by name,
    // instead of as refused webhooks and empty product details later.
    const granted = new Set(await fetchGrantedScopes(connection, signal));
    const missing = shopifyScopes.filter((scope) => !granted.has(scope));
    if (missing.length > 0) {
      const tokenField: CredentialField = usesClientCredentials ? 'shopifyClientId' : 'shopifyAccessToken';
      return { fieldErrors: { [tokenField]: m.shopifyScopesMissing(describeShopifyScopes(missing), missing.length) } };
    }
    return obtained ? { fieldErrors: {}, obtainedShopifyToken: obtained } : { fieldErrors: {} };
  } catch (caught) {
    const error = asServiceError('shopify', caught);
    const tokenField: CredentialField = usesClientCredentials ? 'shopifyClientSecret' : 'shopifyAccessToken';
    switch (error.code) {
      case 'invalid_client':
        return { fieldErrors: { shopifyClientId: m.shopifyClientInvalid, shopifyClientSecret: m.shopifyClientInvalid }, problem: error };
      case 'unauthorized':
        return { fieldErrors: { [tokenField]: usesClientCredentials ? m.shopifyClientInvalid : m.shopifyTokenInvalid }, problem: error };
      case 'forbidden':
        return { fieldErrors: { [tokenField]: m.shopifyTokenForbidden }, problem: error };
      case 'not_found':
        return { fieldErrors: { shopifyDomain: m.shopifyStoreNotFound }, problem: error };
      case 'payment_required':
        return { fieldErrors: { shopifyDomain: m.shopifyStoreUnavailable }, problem: error };
      case 'bad_request':
        return { fieldErrors: { [tokenField]: usesClientCredentials ? m.shopifyClientInvalid : m.shopifyTokenInvalid }, problem: error };
      default:
        return { fieldErrors: { shopifyDomain: m.shopifyUnreachable }, problem: error };
    }
  }
}

/**
 * Checks the three services at once, each within its time limit. A service that says a
 * value is wrong marks it invalid; one that cannot be asked marks it unreachable, which
 * is not a verdict on the value but still stops a save.
 */
export async function checkCredentials(
  credentials: Credentials,
  services: CredentialCheckServices,
  connected: OAuthConnected = { shopifyDomain: null, klaviyo: false },
): Promise<CredentialCheckReport> {
  const timeoutMs = services.timeoutMs ?? CREDENTIAL_CHECK_TIMEOUT_MS;
  const outcomes = await Promise.all([
    checkKlaviyo(credentials, services, AbortSignal.timeout(timeoutMs), connected),
    checkOpenAi(credentials, services, AbortSignal.timeout(timeoutMs)),
    checkShopify(credentials, services, AbortSignal.timeout(timeoutMs), connected),
  ]);
  const report: CredentialCheckReport = { fieldErrors: {}, invalid: false, unreachable: false, problems: [], obtainedShopifyToken: null };
  for (const outcome of outcomes) {
    Object.assign(report.fieldErrors, outcome.fieldErrors);
    if (outcome.obtainedShopifyToken) report.obtainedShopifyToken = outcome.obtainedShopifyToken;
    if (outcome.problem) report.problems.push({ service: outcome.problem.service, code: outcome.problem.code, status: outcome.problem.status });
    if (Object.keys(outcome.fieldErrors).length === 0) continue;
    if (outcome.problem && !outcome.problem.reachable) report.unreachable = true;
    else report.invalid = true;
  }
  return report;
}
