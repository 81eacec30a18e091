/**
 * The app's one error for a failed call to OpenAI, Klaviyo or Shopify. Each service
 * module maps its service's answers onto a `code` (what happened, in the app's terms) and
 * a `kind` (what it means for the caller), once: the engine decides from `retryable`
 * whether to try again, the credential checks from `reachable` whether a value was judged
 * wrong or the service could not be asked. The message is the service's own, for the
 * owner to read, and never contains a secret.
 */
export type ServiceName = 'openai' | 'klaviyo' | 'shopify';

export type ServiceErrorCode =
  | 'timeout'
  | 'network'
  | 'rate_limited'
  | 'resource_unavailable'
  | 'insufficient_quota'
  | 'unauthorized'
  | 'forbidden'
  | 'invalid_client'
  | 'payment_required'
  | 'not_found'
  | 'bad_request'
  | 'conflict'
  | 'server_error'
  | 'invalid_response';

/**
 * - `retryable`: no usable answer (timeout, no connection, 408, 409, 5xx); another try may work.
 * - `rate_limited`: 429; another try works after the wait the service asked for.
 * - `quota`: the account has run out (OpenAI's `insufficient_quota`); only the owner can fix it.
 * - `permanent`: the service refused what was sent; the same request fails again.
 * - `bad_credentials`: 401 or 403; the key, token or client secret is wrong or lacks a scope.
 */
export type ServiceErrorKind = 'retryable' | 'rate_limited' | 'quota' | 'permanent' | 'bad_credentials';

export const serviceTitles: Record<ServiceName, string> = { openai: 'OpenAI', klaviyo: 'Klaviyo', shopify: 'Shopify' };

const MAX_MESSAGE_LENGTH = 500;

const kindsByCode: Record<ServiceErrorCode, ServiceErrorKind> = {
  timeout: 'retryable',
  network: 'retryable',
  server_error: 'retryable',
  conflict: 'retryable',
  // An unreadable answer is most often a proxy's or an outage's page, not the service's verdict.
  invalid_response: 'retryable',
  rate_limited: 'rate_limited',
  // OpenAI's flex tier is out of capacity (429): the standard tier serves the request instead.
  resource_unavailable: 'rate_limited',
  insufficient_quota: 'quota',
  unauthorized: 'bad_credentials',
  forbidden: 'bad_credentials',
  invalid_client: 'bad_credentials',
  payment_required: 'permanent',
  not_found: 'permanent',
  bad_request: 'permanent',
};

export class ServiceError extends Error {
  readonly service: ServiceName;
  readonly code: ServiceErrorCode;
  readonly kind: ServiceErrorKind;
  /** The HTTP status the service answered; null when no answer came. */
  readonly status: number | null;
  /** How long the service asked us to wait (Retry-After / retry-after-ms), when it said. */
  readonly retryAfterMs: number | null;

  constructor(
    service: ServiceName,
    code: ServiceErrorCode,
    message: string,
    details: { kind?: ServiceErrorKind; status?: number | null; retryAfterMs?: number | null } = {},
  ) {
    super(`${serviceTitles[service]}: ${message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : message}`);
    this.name = 'ServiceError';
    this.service = service;
    this.code = code;
    this.kind = details.kind ?? kindsByCode[code];
    this.status = details.status ?? null;
    this.retryAfterMs = details.retryAfterMs ?? null;
  }

  /** Worth another try, now or after the wait the service asked for. */
  get retryable(): boolean {
    return this.kind === 'retryable' || this.kind === 'rate_limited';
  }

  /**
   * The service answered with a verdict on what was sent (a refused key, an unknown shop).
   * False when it could not be asked: no answer, 429, 5xx, or an answer that could not be read.
   */
  get reachable(): boolean {
    return !this.retryable && this.code !== 'invalid_response';
  }
}

/** The code for an HTTP status the service answered with (redirects included: none is expected). */
export function codeForStatus(status: number): ServiceErrorCode {
  if (status === 401) return 'unauthorized';
  if (status === 402) return 'payment_required';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 408) return 'timeout';
  if (status === 409) return 'conflict';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server_error';
  if (status >= 400) return 'bad_request';
  return 'invalid_response';
}

/** A key must never reach a log or the event log, even if a service echoes it back. */
export function withoutSecret(message: string, secret: string): string {
  return secret ? message.split(secret).join('[redacted]') : message;
}
