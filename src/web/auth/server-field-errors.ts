import type { FieldValues, Path, UseFormSetError } from 'react-hook-form';
import { ApiRequestError } from '../app/api-client.ts';

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

/** The server's message when it sent one, otherwise the page's SPEC.md fallback. */
export function errorMessage(error: unknown, fallback: string): string {
  return error instanceof ApiRequestError && error.message ? error.message : fallback;
}
