/**
 * The app's own error for a call to one of the three services, as the credential checks
 * and the Shopify token provider raise it. `code` says what happened in the app's terms;
 * `retryable` and `reachable` say what it means: a 401 is an answer about the key, a
 * timeout or a 503 says nothing about it. Messages never contain a secret.
 */
export type IntegrationService = 'openai' | 'klaviyo' | 'shopify';

export type IntegrationErrorCode =
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'invalid_client'
  | 'payment_required'
  | 'bad_request'
  | 'rate_limited'
  | 'server_error'
  | 'timeout'
  | 'network'
  | 'invalid_response';

const serviceTitles: Record<IntegrationService, string> = { openai: 'OpenAI', klaviyo: 'Klaviyo', shopify: 'Shopify' };

/** Codes that are the service's verdict on what we sent; the rest mean "no usable answer". */
const verdictCodes = new Set<IntegrationErrorCode>(['unauthorized', 'forbidden', 'not_found', 'invalid_client', 'payment_required', 'bad_request']);

export class IntegrationError extends Error {
  readonly service: IntegrationService;
  readonly code: IntegrationErrorCode;
  /** The HTTP status the service answered; null when no answer came. */
  readonly status: number | null;
  /** How long the service asked us to wait, when it said. */
  readonly retryAfterMs: number | null;

  constructor(service: IntegrationService, code: IntegrationErrorCode, message: string, details: { status?: number | null; retryAfterMs?: number | null } = {}) {
    super(`${serviceTitles[service]}: ${message}`);
    this.name = 'IntegrationError';
    this.service = service;
    this.code = code;
    this.status = details.status ?? null;
    this.retryAfterMs = details.retryAfterMs ?? null;
  }

  /** False for timeouts, connection failures, 429 and 5xx: the service could not be asked. */
  get reachable(): boolean {
    return verdictCodes.has(this.code);
  }

  get retryable(): boolean {
    return !this.reachable;
  }
}

export function codeForStatus(status: number): IntegrationErrorCode {
  if (status === 401) return 'unauthorized';
  if (status === 402) return 'payment_required';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 408) return 'timeout';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server_error';
  if (status >= 400) return 'bad_request';
  return 'invalid_response';
}

/** Retry-After as seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

export function errorForStatus(service: IntegrationService, response: Response, message?: string): IntegrationError {
  return new IntegrationError(service, codeForStatus(response.status), message ?? `answered HTTP ${response.status}`, {
    status: response.status,
    retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
  });
}

/**
 * One request to a service, bounded by `signal` (the caller's time limit). "No answer"
 * (timeout, refused connection, reset, DNS) becomes an IntegrationError; any answer is
 * returned for the caller to judge. Redirects are not followed: none of the calls made
 * here should redirect, and a redirect must not take a secret elsewhere.
 */
export async function requestService(service: IntegrationService, url: string, init: RequestInit, signal: AbortSignal): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: 'manual', signal });
  } catch (error) {
    if (signal.aborted) {
      const reason = signal.reason as { name?: string } | undefined;
      throw new IntegrationError(service, 'timeout', reason?.name === 'TimeoutError' ? 'no answer in time' : 'the request was cancelled');
    }
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    throw new IntegrationError(service, 'network', `could not connect${cause ? ` (${cause})` : ''}`);
  }
}

/** Reads a JSON body; a body that is not JSON is an invalid answer. */
export async function readJson(service: IntegrationService, response: Response): Promise<unknown> {
  const text = await response.text().catch(() => '');
  try {
    return JSON.parse(text);
  } catch {
    throw new IntegrationError(service, 'invalid_response', `answered HTTP ${response.status} without JSON`, { status: response.status });
  }
}
