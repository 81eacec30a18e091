import type { ApiErrorBody } from '../../shared/api-error.ts';

/**
 * An error that maps to one HTTP answer. Domain code throws these; the central error
 * handler turns them into the shared error body. Anything else becomes a bare 500.
 */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly code: string;
  readonly fieldErrors: Record<string, string> | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(
    statusCode: number,
    code: string,
    message: string,
    extra: { fieldErrors?: Record<string, string>; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.statusCode = statusCode;
    this.code = code;
    this.fieldErrors = extra.fieldErrors;
    this.retryAfterSeconds = extra.retryAfterSeconds;
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
