import type { ApiErrorBody } from '../../shared/api-error.ts';
import { parseApiErrorBody } from './api-error-body.ts';
import { requestMessages } from '../../shared/messages.ts';

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
export const networkErrorBody: ApiErrorBody = { error: 'network', message: 'Could not reach Flowsmith. Check your connection and try again.' };

/**
 * Every call from the browser to the app's API goes through here: JSON in and out, the
 * session cookie sent along, errors turned into ApiRequestError.
 */
export async function apiRequest<T>(method: string, path: string, body?: unknown): Promise<T> {
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
    throw new ApiRequestError(response.status, parseApiErrorBody(json) ?? { error: 'http_error', message: requestMessages.internal });
  }
  return json as T;
}

export const api = {
  get: <T>(path: string) => apiRequest<T>('GET', path),
  post: <T>(path: string, body: unknown = {}) => apiRequest<T>('POST', path, body),
  put: <T>(path: string, body: unknown = {}) => apiRequest<T>('PUT', path, body),
  delete: <T>(path: string) => apiRequest<T>('DELETE', path),
};
