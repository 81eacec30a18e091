import type { FieldValues, Path, UseFormSetError } from 'react-hook-form';
import { ApiRequestError } from '../app/api-client.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';

/**
 * Puts the server's per-field messages under the matching fields. Returns true when it
 * placed at least one, so the caller can skip a toast that would only repeat them.
 */
export function showServerFieldErrors<T extends FieldValues>(error: unknown, setError: UseFormSetError<T>, fields: readonly Path<T>[]): boolean {
  if (!(error instanceof ApiRequestError)) return false;
  let placed = false;
  for (const [field, message] of Object.entries(error.body.fieldErrors ?? {})) {
    const match = fields.find((candidate) => candidate === field);
    if (!match) continue;
    setError(match, { type: 'server', message }, { shouldFocus: !placed });
    placed = true;
  }
  return placed;
}

/**
 * The server's message when it said what went wrong, otherwise the page's specified
 * fallback ("An error occurred during sign in"…, docs/product/specification.md §8): also
 * when the server could not be reached or answered with no explanation of its own.
 */
export function errorMessage(error: unknown, fallback: string): string {
  if (!(error instanceof ApiRequestError) || !error.message) return fallback;
  return unexplained.has(error.body.error) ? fallback : error.message;
}

/** The API client's own codes for "no answer" and "an answer that said nothing usable", and the server's bare 500. */
const unexplained = new Set<string>([apiErrorCodes.network, apiErrorCodes.http_error, apiErrorCodes.internal]);
