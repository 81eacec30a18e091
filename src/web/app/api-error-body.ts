import type { ApiErrorBody } from '../../shared/api-error.ts';

/**
 * Reads an error answer's body as `apiErrorSchema` (src/shared/api-error.ts) does, without
 * zod: every page's first load goes through the API client (a signed-out visitor's first
 * session check is a 401), and zod is about a sixth of the sign-in page's weight.
 * test/unit/api-error-body.test.ts checks that both give the same answers.
 * Returns only the fields of the contract, or null when the body does not match it.
 */
export function parseApiErrorBody(json: unknown): ApiErrorBody | null {
  if (!isObject(json)) return null;
  const { error, message, fieldErrors, retryAfterSeconds } = json;
  if (typeof error !== 'string' || typeof message !== 'string') return null;
  const body: ApiErrorBody = { error, message };
  if (fieldErrors !== undefined) {
    if (!isObject(fieldErrors) || ![Object.prototype, null].includes(Object.getPrototypeOf(fieldErrors))) return null;
    const fields: Record<string, string> = {};
    for (const [field, text] of Object.entries(fieldErrors)) {
      if (typeof text !== 'string') return null;
      fields[field] = text;
    }
    body.fieldErrors = fields;
  }
  if (retryAfterSeconds !== undefined) {
    if (typeof retryAfterSeconds !== 'number' || !Number.isFinite(retryAfterSeconds)) return null;
    body.retryAfterSeconds = retryAfterSeconds;
  }
  return body;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
