import type { FastifyInstance } from 'fastify';
import { HttpError } from './http-errors.ts';
import { JsonTextError, parseJsonText } from './json-text.ts';
import { requestMessages } from '../../shared/messages.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';

/** C0 control characters and DEL: never part of an id, a key or a query value the app reads. */
// eslint-disable-next-line no-control-regex
const controlCharacters = /[\u0000-\u001f\u007f]/;

/**
 * Refuses a request address whose path or query string decodes to control characters (a
 * NUL byte that PostgreSQL cannot store, say) or to bytes that are not UTF-8 (half of a
 * surrogate pair), before any route, hook or query sees it. Route schemas check the shape
 * of params and queries; this checks what no schema should have to.
 */
export function checkRequestAddress(url: string): HttpError | null {
  const queryStart = url.indexOf('?');
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  const query = queryStart === -1 ? '' : url.slice(queryStart + 1);
  let decoded: string;
  try {
    decoded = decodeURIComponent(path) + decodeURIComponent(query.replaceAll('+', ' '));
  } catch {
    return new HttpError(apiErrorCodes.malformed_address, requestMessages.malformedAddress);
  }
  if (controlCharacters.test(decoded) || controlCharacters.test(url)) return new HttpError(apiErrorCodes.control_characters, requestMessages.controlCharacters);
  return null;
}

/**
 * JSON bodies of the API through the one parser for JSON from outside (json-text.ts):
 * bounded depth and size, exact large integers, strings PostgreSQL can store.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(new HttpError(apiErrorCodes.malformed_json, requestMessages.malformedJson), undefined);
      return;
    }
    try {
      done(null, parseJsonText(text));
    } catch (error) {
      if (!(error instanceof JsonTextError)) {
        done(error as Error, undefined);
        return;
      }
      const refusal = {
        malformed: new HttpError(apiErrorCodes.malformed_json, requestMessages.malformedJson),
        too_deep: new HttpError(apiErrorCodes.too_deep, requestMessages.tooDeeplyNested),
        too_many_members: new HttpError(apiErrorCodes.too_many_members, requestMessages.tooManyMembers, { status: 413 }),
      }[error.problem];
      done(refusal, undefined);
    }
  });
}

/** Every request's address is checked first (see checkRequestAddress). */
export function registerRequestAddressGuard(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const refusal = checkRequestAddress(request.raw.url ?? request.url);
    if (refusal) throw refusal;
  });
}
