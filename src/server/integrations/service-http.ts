import { ServiceError, codeForStatus, type ServiceErrorCode, type ServiceErrorKind, type ServiceName } from './service-error.ts';

/**
 * Every HTTP call to OpenAI, Klaviyo and Shopify goes through `callService`, so each one
 * is bounded in time, follows no redirect, turns "no answer" into the same retryable
 * ServiceError, reads Retry-After the same way and is counted by one observer.
 */

/** The time limit of a call whose caller names none. */
export const DEFAULT_SERVICE_TIMEOUT_MS = 30_000;

export interface ServiceRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** The call's own time limit, answer included (default DEFAULT_SERVICE_TIMEOUT_MS). */
  timeoutMs?: number;
  /** The caller's signal: its own time limit, or a worker stopping. */
  signal?: AbortSignal;
  /** The app's clock, for a Retry-After given as a date (default: the system's). */
  now?: () => Date;
}

/** What a call came to, as a metric label: a small fixed set. */
export type ServiceCallOutcome = 'success' | 'timeout' | 'network' | 'cancelled' | 'unexpected' | ServiceErrorKind;

export interface ServiceCall {
  service: ServiceName;
  outcome: ServiceCallOutcome;
  /** The HTTP status answered; null when no answer came. */
  status: number | null;
  durationMs: number;
}

export type ServiceCallObserver = (call: ServiceCall) => void;

const observers = new Set<ServiceCallObserver>();

/**
 * Hands every finished call to `observer` until the returned function is called: metrics
 * count calls by service and outcome without the integrations knowing them. An app
 * observes from start to close; several apps in one process (tests) each see every call.
 */
export function observeServiceCalls(observer: ServiceCallObserver): () => void {
  observers.add(observer);
  return () => observers.delete(observer);
}

/**
 * How long an answer asks to wait, or null when it does not say (or says it unreadably):
 * OpenAI's finer `retry-after-ms` wins over the standard `Retry-After`, which is seconds
 * or an HTTP date (counted from `now`).
 */
export function readRetryAfter(headers: Headers, now: Date): number | null {
  const milliseconds = headers.get('retry-after-ms')?.trim();
  if (milliseconds) {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  const value = headers.get('retry-after')?.trim();
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now.getTime());
}

/** One answer of a service, for the caller to judge; reading its body is still bounded by the call's time limit. */
export class ServiceAnswer {
  readonly service: ServiceName;
  readonly response: Response;
  /** What the answer asked to wait (readRetryAfter). */
  readonly retryAfterMs: number | null;
  private readonly cutOff: (error: unknown) => unknown;

  constructor(service: ServiceName, response: Response, retryAfterMs: number | null, cutOff: (error: unknown) => unknown) {
    this.service = service;
    this.response = response;
    this.retryAfterMs = retryAfterMs;
    this.cutOff = cutOff;
  }

  get status(): number {
    return this.response.status;
  }

  get ok(): boolean {
    return this.response.ok;
  }

  /** 3xx: not followed, since none of these calls should redirect and a secret must not follow one elsewhere. */
  get redirected(): boolean {
    return this.response.status >= 300 && this.response.status < 400;
  }

  async text(): Promise<string> {
    try {
      return await this.response.text();
    } catch (error) {
      throw this.cutOff(error);
    }
  }

  /** The body as JSON; a body that is not JSON is an invalid answer (`unreadable` may word it and judge it otherwise). */
  async json(unreadable: { message?: string; kind?: ServiceErrorKind } = {}): Promise<unknown> {
    const text = await this.text();
    try {
      return JSON.parse(text);
    } catch {
      throw new ServiceError(this.service, 'invalid_response', unreadable.message ?? `answered HTTP ${this.status} without JSON`, {
        kind: unreadable.kind,
        status: this.status,
      });
    }
  }

  /** This answer as the app's error: the code of its status (unless given), its wait, and a message. */
  error(message = `answered HTTP ${this.status}`, code: ServiceErrorCode = codeForStatus(this.status), kind?: ServiceErrorKind): ServiceError {
    return new ServiceError(this.service, code, message, { kind, status: this.status, retryAfterMs: this.retryAfterMs });
  }
}

function isTimeout(reason: unknown): boolean {
  return (reason as { name?: unknown } | undefined)?.name === 'TimeoutError';
}

function causeCode(error: unknown): string | null {
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof code === 'string' ? code : null;
}

function outcomeOf(error: unknown, cancelled: boolean): ServiceCallOutcome {
  if (error instanceof ServiceError) {
    if (error.code === 'timeout' && error.status === null) return 'timeout';
    if (error.code === 'network') return 'network';
    return error.kind;
  }
  return cancelled ? 'cancelled' : 'unexpected';
}

function report(call: ServiceCall): void {
  for (const observer of observers) {
    try {
      observer(call);
    } catch {
      // Counting must never fail the call it counts.
    }
  }
}

/**
 * Makes one request and hands the answer to `read`, which returns what the caller wants
 * or throws the ServiceError the answer means. "No answer" (the time limit, a refused or
 * broken connection, a DNS failure) throws a retryable ServiceError; the caller's own
 * time limit counts as a timeout, any other abort of its signal (a worker stopping)
 * rethrows the abort as it is, since that is no failure of the service.
 */
export async function callService<T>(service: ServiceName, request: ServiceRequest, read: (answer: ServiceAnswer) => Promise<T>): Promise<T> {
  const timeoutMs = request.timeoutMs ?? DEFAULT_SERVICE_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = request.signal ? AbortSignal.any([timeout, request.signal]) : timeout;
  const started = performance.now();
  let status: number | null = null;

  const noAnswer = (error: unknown, connecting: boolean): unknown => {
    if (timeout.aborted) return new ServiceError(service, 'timeout', `no answer within ${Math.round(timeoutMs / 1000)} s`);
    if (request.signal?.aborted) return isTimeout(request.signal.reason) ? new ServiceError(service, 'timeout', 'no answer in time') : error;
    const cause = causeCode(error);
    const detail = cause ? ` (${cause})` : '';
    return new ServiceError(service, 'network', connecting ? `could not connect${detail}` : `the answer was cut off${detail}`, { status });
  };

  let response: Response | null = null;
  try {
    try {
      response = await fetch(request.url, { method: request.method ?? 'GET', headers: request.headers, body: request.body, redirect: 'manual', signal });
    } catch (error) {
      throw noAnswer(error, true);
    }
    status = response.status;
    const answer = new ServiceAnswer(service, response, readRetryAfter(response.headers, request.now?.() ?? new Date()), (error) => noAnswer(error, false));
    const result = await read(answer);
    report({ service, outcome: 'success', status, durationMs: performance.now() - started });
    return result;
  } catch (error) {
    report({ service, outcome: outcomeOf(error, signal.aborted), status, durationMs: performance.now() - started });
    throw error;
  } finally {
    // An answer judged by its status alone still holds its connection until the body is gone.
    if (response && !response.bodyUsed) await response.body?.cancel().catch(() => undefined);
  }
}
