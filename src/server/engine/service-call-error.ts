/**
 * The app's own error for a call to OpenAI, Klaviyo or (for the pixel's product details) Shopify. The engine decides from
 * `retryable` alone whether to try again, so each service module maps its service's
 * answers onto these codes once. The message is the service's own (for the owner's event
 * log) and never contains the API key.
 */
export type ServiceName = 'openai' | 'klaviyo' | 'shopify';

export type ServiceErrorCode =
  | 'timeout'
  | 'network'
  | 'rate_limited'
  | 'insufficient_quota'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'bad_request'
  | 'conflict'
  | 'server_error'
  | 'invalid_response';

const serviceTitles: Record<ServiceName, string> = { openai: 'OpenAI', klaviyo: 'Klaviyo', shopify: 'Shopify' };
const MAX_MESSAGE_LENGTH = 500;

export class ServiceCallError extends Error {
  readonly service: ServiceName;
  readonly code: ServiceErrorCode;
  readonly retryable: boolean;
  /** The HTTP status the service answered; null when no answer came. */
  readonly status: number | null;
  /** How long the service asked us to wait (Retry-After / retry-after-ms). */
  readonly retryAfterMs: number | null;

  constructor(
    service: ServiceName,
    code: ServiceErrorCode,
    message: string,
    details: { retryable: boolean; status?: number | null; retryAfterMs?: number | null },
  ) {
    super(`${serviceTitles[service]}: ${message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : message}`);
    this.name = 'ServiceCallError';
    this.service = service;
    this.code = code;
    this.retryable = details.retryable;
    this.status = details.status ?? null;
    this.retryAfterMs = details.retryAfterMs ?? null;
  }
}

/** 408, 409, 429 and 5xx are worth another try (the services' own SDKs agree). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export function codeForStatus(status: number): ServiceErrorCode {
  if (status === 400 || status === 422) return 'bad_request';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 408) return 'timeout';
  if (status === 409) return 'conflict';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server_error';
  return 'bad_request';
}

// One reading of Retry-After for every service call in the app.
export { parseRetryAfter } from '../integrations/integration-error.ts';

/** A key must never reach a log or the event log, even if a service echoes it back. */
export function withoutSecret(message: string, secret: string): string {
  return secret ? message.split(secret).join('[redacted]') : message;
}

/**
 * Runs a fetch with a time limit and the caller's abort signal, mapping "no answer"
 * (timeout, refused connection, reset) to a retryable ServiceCallError.
 */
export async function fetchWithTimeout(
  service: ServiceName,
  url: string,
  init: RequestInit,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<Response> {
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    return await fetch(url, { ...init, signal: signal ? AbortSignal.any([timeout, signal]) : timeout });
  } catch (error) {
    if (signal?.aborted) throw error;
    if (timeout.aborted) {
      throw new ServiceCallError(service, 'timeout', `no answer within ${Math.round(timeoutMs / 1000)} s`, { retryable: true });
    }
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    throw new ServiceCallError(service, 'network', `could not connect${cause ? ` (${cause})` : ''}`, { retryable: true });
  }
}
