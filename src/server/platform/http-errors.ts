import type { ApiErrorBody } from '../../shared/api-error.ts';
import { apiErrorStatuses, type FixedStatusErrorCode, type ServerErrorCode, type VariableStatusErrorCode } from '../../shared/api/error-codes.ts';

/** What a 503 for an unavailable database asks the client to wait before trying again. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

interface RefusalDetails {
  fieldErrors?: Record<string, string>;
  retryAfterSeconds?: number;
}

/** What a code whose status depends on the case must be given besides its message. */
type VariableStatusDetails = RefusalDetails & { status: number };

/**
 * Why domain or query code did not do what it was asked, as a value it returns instead of
 * an HTTP error it throws: the code from the shared table and the owner's message. Routes
 * turn it into the answer with `unlessRefused`, so only they and the platform speak HTTP.
 */
export interface Refused extends RefusalDetails {
  readonly ok: false;
  readonly code: ServerErrorCode;
  readonly message: string;
  /** Only for the few codes whose status depends on the case (see the shared table). */
  readonly status?: number;
}

export function refused(code: FixedStatusErrorCode, message: string, details?: RefusalDetails): Refused;
/** With a status: required for the variable codes; for a fixed one the table's status still wins. */
export function refused(code: VariableStatusErrorCode | ServerErrorCode, message: string, details: VariableStatusDetails): Refused;
export function refused(code: ServerErrorCode, message: string, details: RefusalDetails & { status?: number } = {}): Refused {
  return { ok: false, code, message, ...details };
}

export function isRefused(value: unknown): value is Refused {
  return typeof value === 'object' && value !== null && (value as { ok?: unknown }).ok === false && typeof (value as { code?: unknown }).code === 'string';
}

/**
 * An error that maps to one HTTP answer. Routes and the platform throw these (domain code
 * returns a `Refused` instead); the central error handler turns them into the shared error
 * body. Only codes of the shared table are accepted, and the status comes from the table
 * unless the code's status depends on the case. Anything else thrown becomes a bare 500.
 */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly code: ServerErrorCode;
  readonly fieldErrors: Record<string, string> | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: FixedStatusErrorCode, message: string, details?: RefusalDetails);
  constructor(code: VariableStatusErrorCode | ServerErrorCode, message: string, details: VariableStatusDetails);
  constructor(code: ServerErrorCode, message: string, details: RefusalDetails & { status?: number } = {}) {
    super(message);
    this.statusCode = apiErrorStatuses[code] ?? details.status ?? 500;
    this.code = code;
    this.fieldErrors = details.fieldErrors;
    this.retryAfterSeconds = details.retryAfterSeconds;
  }

  /** The answer to a refusal a domain function returned. */
  static of(refusal: Refused): HttpError {
    const { code, message, fieldErrors, retryAfterSeconds } = refusal;
    return new HttpError(code, message, { fieldErrors, retryAfterSeconds, status: refusal.status ?? 500 });
  }

  toBody(): ApiErrorBody {
    return {
      error: this.code,
      message: this.message,
      ...(this.fieldErrors ? { fieldErrors: this.fieldErrors } : {}),
      ...(this.retryAfterSeconds !== undefined ? { retryAfterSeconds: this.retryAfterSeconds } : {}),
    };
  }
}

/** A domain function's result for a route: its value, or the refusal thrown as the HTTP answer. */
export function unlessRefused<T>(result: T | Refused): T {
  if (isRefused(result)) throw HttpError.of(result);
  return result;
}
