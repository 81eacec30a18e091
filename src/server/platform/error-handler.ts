import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { DATABASE_RETRY_AFTER_SECONDS, HttpError } from './http-errors.ts';
import { isDatabaseInputError, isDatabaseUnavailable } from '../database/database-errors.ts';
import { requestMessages } from '../../shared/messages.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';

/** The answer while the database cannot be reached: senders retry, nothing is lost. */
export function databaseUnavailableError(): HttpError {
  return new HttpError(apiErrorCodes.database_unavailable, requestMessages.databaseUnavailable, { retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS });
}

function sendHttpError(reply: FastifyReply, error: HttpError) {
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
  return reply.status(error.statusCode).send(error.toBody());
}

/** Only what identifies a database failure: its message and code, never the statement or its values. */
function databaseFailureOf(error: unknown): { message: string; code?: unknown } {
  const record = (error ?? {}) as { message?: unknown; code?: unknown };
  return { message: typeof record.message === 'string' ? record.message.slice(0, 300) : String(error), code: record.code };
}

/**
 * An unexpected error while the database does not answer is the outage showing through
 * a library that hid the database's own error (better-auth answers its own 500): the
 * client should retry, so it gets the 503 too.
 */
async function databaseIsDown(request: FastifyRequest): Promise<boolean> {
  const availability = (request.server as Partial<FastifyInstance>).database?.availability;
  if (!availability) return false;
  try {
    return !(await availability.isReachable());
  } catch {
    return false;
  }
}

/**
 * The validator's own wording ("Invalid input: expected string, received undefined")
 * means a schema gave no message of its own for that case; the owner gets one that names
 * the field and says what to do instead. Messages the shared schemas give pass as they are.
 */
const validatorWording = /^(Invalid (input|option|string|number|key|value|element)|Too (small|big)|Unrecognized keys?)\b/;

function ownerValidationMessage(field: string, message: string | undefined): string {
  if (!message) return requestMessages.invalidInput;
  return validatorWording.test(message) ? requestMessages.invalidField(field) : message;
}

/**
 * One place that turns every error into the shared error body. Client mistakes get a
 * 4xx with a readable message and per-field errors; a database that cannot be reached
 * gets a 503 with Retry-After (docs/decisions/0017-staying-up.md); anything else
 * unexpected is logged and answered with a bare 500 that reveals nothing.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler(async (error: FastifyError | HttpError, request, reply) => {
    if (error instanceof HttpError) {
      if (error.statusCode >= 500 && error.statusCode !== 503 && (await databaseIsDown(request))) {
        request.log.warn({ status: error.statusCode }, 'request failed while the database is unavailable');
        return sendHttpError(reply, databaseUnavailableError());
      }
      return sendHttpError(reply, error);
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const fieldErrors: Record<string, string> = {};
      for (const issue of error.validation) {
        const field = issue.instancePath.replace(/^\//, '').replaceAll('/', '.') || 'body';
        fieldErrors[field] ??= ownerValidationMessage(field, issue.message);
      }
      const first = Object.values(fieldErrors)[0] ?? requestMessages.invalidInput;
      return sendHttpError(reply, new HttpError(apiErrorCodes.validation, first, { fieldErrors }));
    }
    if (isDatabaseUnavailable(error)) {
      request.server.database?.availability.noteFailure(error);
      request.log.warn({ err: databaseFailureOf(error) }, 'database unavailable');
      return sendHttpError(reply, databaseUnavailableError());
    }
    if (isDatabaseInputError(error)) {
      request.log.info({ err: databaseFailureOf(error) }, 'the database refused a value of the request');
      return sendHttpError(reply, new HttpError(apiErrorCodes.invalid_value, requestMessages.unreadableValue));
    }
    const statusCode = typeof error?.statusCode === 'number' ? error.statusCode : 500;
    if (statusCode === 413) {
      return sendHttpError(reply, new HttpError(apiErrorCodes.body_too_large, requestMessages.bodyTooLarge));
    }
    if (error?.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error?.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || (statusCode === 400 && error instanceof SyntaxError)) {
      return sendHttpError(reply, new HttpError(apiErrorCodes.malformed_json, requestMessages.malformedJson));
    }
    if (statusCode === 415) {
      return sendHttpError(reply, new HttpError(apiErrorCodes.unsupported_media_type, requestMessages.unsupportedMediaType));
    }
    if (statusCode === 429) {
      return sendHttpError(reply, new HttpError(apiErrorCodes.rate_limited, requestMessages.rateLimited));
    }
    if (statusCode >= 400 && statusCode < 500) {
      return sendHttpError(reply, new HttpError(apiErrorCodes.bad_request, error.message, { status: statusCode }));
    }
    if (await databaseIsDown(request)) {
      request.log.warn({ err: databaseFailureOf(error) }, 'request failed while the database is unavailable');
      return sendHttpError(reply, databaseUnavailableError());
    }
    request.log.error({ err: error }, 'request failed');
    return sendHttpError(reply, new HttpError(apiErrorCodes.internal, requestMessages.internal));
  });
}
