import type { ApiErrorBody } from '../../shared/api-error.ts';
import { parseApiErrorBody } from './api-error-body.ts';
import { endpointAddress, type Endpoint, type EndpointBody, type EndpointParams, type EndpointQuery, type EndpointResponse } from '../../shared/api/endpoint.ts';
import { requestMessages } from '../../shared/messages.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';

/** An API answer other than 2xx, carrying the server's message and per-field errors. */
export class ApiRequestError extends Error {
  readonly status: number;
  readonly body: ApiErrorBody;
  constructor(status: number, body: ApiErrorBody) {
    super(body.message);
    this.status = status;
    this.body = body;
  }
}

/** What a request that could not reach the server fails with. */
export const networkErrorBody: ApiErrorBody = { error: apiErrorCodes.network, message: requestMessages.unreachable };

/** What a call to the API sends: the path parameters, query and body its endpoint takes. */
export type EndpointInput<E extends Endpoint> = (EndpointParams<E> extends undefined ? unknown : { params: EndpointParams<E> }) &
  (EndpointQuery<E> extends undefined ? unknown : { query: EndpointQuery<E> }) &
  (EndpointBody<E> extends undefined ? unknown : { body: EndpointBody<E> });

/**
 * Every call from the browser to the app's API goes through here: an endpoint of the
 * shared table (src/shared/api/endpoints.ts), JSON in and out, the session cookie sent
 * along, errors turned into ApiRequestError.
 *
 * The answer is not parsed again here: the server sends nothing its endpoint's response
 * schema does not allow (its serializer checks every 2xx answer against the same shared
 * schema and answers 500 instead), so the browser needs no zod to read an answer and a
 * page's first view loads none (docs/decisions/0052-light-pages.md).
 */
export async function callEndpoint<E extends Endpoint>(
  endpoint: E,
  ...[input]: Record<string, never> extends EndpointInput<E> ? [input?: EndpointInput<E>] : [input: EndpointInput<E>]
): Promise<EndpointResponse<E>> {
  const { params, query, body } = (input ?? {}) as { params?: object; query?: object; body?: unknown };
  // A POST without a body of its own still sends `{}`: the server takes JSON bodies only.
  const sent = body === undefined && endpoint.method !== 'GET' && endpoint.method !== 'DELETE' ? {} : body;
  return (await apiRequest(endpoint.method, endpointAddress(endpoint, { params, query }), sent)) as EndpointResponse<E>;
}

/** One request and its answer's JSON; an answer other than 2xx is thrown as ApiRequestError. */
export async function apiRequest(method: string, path: string, body?: unknown): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiRequestError(0, networkErrorBody);
  }
  const text = await response.text();
  let json: unknown = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    const errorBody: ApiErrorBody = parseApiErrorBody(json) ?? { error: apiErrorCodes.http_error, message: requestMessages.internal };
    // A proxy's or overload answer may give the wait only as the header.
    const header = Number(response.headers.get('retry-after'));
    if (errorBody.retryAfterSeconds === undefined && Number.isFinite(header) && header > 0) errorBody.retryAfterSeconds = header;
    throw new ApiRequestError(response.status, errorBody);
  }
  return json;
}

/**
 * An answer that means "wait, then ask again": the owner's rate limit (429) or a server
 * briefly unable to serve (503), with how long to wait.
 */
export function isBusyError(error: unknown): error is ApiRequestError & { body: { retryAfterSeconds: number } } {
  return error instanceof ApiRequestError && (error.status === 429 || error.status === 503) && error.body.retryAfterSeconds !== undefined;
}

/** How many waits a query sits through before it shows the error after all. */
const MAX_BUSY_RETRIES = 5;
/** The longest single wait, whatever an answer asks: a minute covers the rate limit's window. */
const MAX_BUSY_WAIT_SECONDS = 60;

function busyWaitMs(error: { body: { retryAfterSeconds: number } }): number {
  return Math.min(MAX_BUSY_WAIT_SECONDS, Math.max(1, error.body.retryAfterSeconds)) * 1000;
}

/*
 * While a query waits out a busy answer the page shows a note with the time left
 * (busy-note.tsx) instead of an error. TanStack Query calls `retry` to decide and then
 * sleeps the `retryDelay` it already computed, so the note is set where the decision is.
 */
let busyUntil = 0;
/** When the last wait was noted: the note counts its seconds from here until its clock ticks. */
let busyNotedAt = 0;
const busyListeners = new Set<() => void>();

export const busyState = {
  /** When the longest current wait ends (ms since the epoch), or a past time. */
  until: () => busyUntil,
  notedAt: () => busyNotedAt,
  subscribe(listener: () => void): () => void {
    busyListeners.add(listener);
    return () => busyListeners.delete(listener);
  },
};

function noteBusy(waitMs: number): void {
  busyNotedAt = Date.now();
  busyUntil = Math.max(busyUntil, busyNotedAt + waitMs);
  for (const listener of busyListeners) listener();
}

/** `retry` for queries that otherwise show their error at once: wait only when told to. */
export function retryWhenBusy(failureCount: number, error: Error): boolean {
  if (!isBusyError(error) || failureCount >= MAX_BUSY_RETRIES) return false;
  noteBusy(busyWaitMs(error));
  return true;
}

/** The default `retry`: waits when told to, and tries anything else once more. */
export function retryOnceOrWhenBusy(failureCount: number, error: Error): boolean {
  if (isBusyError(error)) return retryWhenBusy(failureCount, error);
  return failureCount < 1;
}

/** The default `retryDelay`: Retry-After when the answer gives one, else TanStack's own backoff. */
export function retryDelayFor(failureCount: number, error: Error): number {
  return isBusyError(error) ? busyWaitMs(error) : Math.min(1000 * 2 ** failureCount, 30_000);
}
