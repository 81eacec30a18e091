import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { HttpError } from './http-errors.ts';
import { requestMessages } from '../../shared/messages.ts';

/**
 * One place that turns every error into the shared error body. Client mistakes get a
 * 4xx with a readable message and per-field errors; anything unexpected is logged and
 * answered with a bare 500 that reveals nothing.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
    if (error instanceof HttpError) {
      if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
      return reply.status(error.statusCode).send(error.toBody());
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const fieldErrors: Record<string, string> = {};
      for (const issue of error.validation) {
        const field = issue.instancePath.replace(/^\//, '').replaceAll('/', '.') || 'body';
        fieldErrors[field] ??= issue.message ?? requestMessages.invalidInput;
      }
      const first = Object.values(fieldErrors)[0] ?? requestMessages.invalidInput;
      return reply.status(400).send({ error: 'validation', message: first, fieldErrors });
    }
    const statusCode = error.statusCode ?? 500;
    if (statusCode === 413) {
      return reply.status(413).send({ error: 'body_too_large', message: requestMessages.bodyTooLarge });
    }
    if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || (statusCode === 400 && error instanceof SyntaxError)) {
      return reply.status(400).send({ error: 'malformed_json', message: requestMessages.malformedJson });
    }
    if (statusCode === 415) {
      return reply.status(415).send({ error: 'unsupported_media_type', message: requestMessages.unsupportedMediaType });
    }
    if (statusCode === 429) {
      return reply.status(429).send({ error: 'rate_limited', message: requestMessages.rateLimited });
    }
    if (statusCode >= 400 && statusCode < 500) {
      return reply.status(statusCode).send({ error: 'bad_request', message: error.message });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.status(500).send({ error: 'internal', message: requestMessages.internal });
  });
}
