import type { FastifyInstance } from 'fastify';
import type { SessionUser } from '../../shared/auth/auth-schemas.ts';
import { authMessages } from '../../shared/messages.ts';
import { HttpError } from '../platform/http-errors.ts';
import type { AuthLibrary } from './auth-library.ts';
import { readSessionUser } from './session.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in owner; set for every route of a context made by `requireSignedIn`. */
    user: SessionUser;
  }
}

/**
 * Makes an encapsulated context signed-in only: every route registered in it, or in a
 * plugin registered in it, answers 401 without a session and otherwise sees
 * `request.user`. The check belongs to the context rather than to each route or to a
 * list of public URLs, so a route added there cannot forget it and a route outside it
 * cannot be caught by a prefix that happens to match.
 */
export function requireSignedIn(scope: FastifyInstance, auth: AuthLibrary): void {
  scope.decorateRequest('user', null as unknown as SessionUser);
  // onRequest, so an anonymous caller gets 401 before any body is read or validated.
  scope.addHook('onRequest', async (request, reply) => {
    const user = await readSessionUser(auth, request, reply);
    if (!user) throw new HttpError(apiErrorCodes.not_signed_in, authMessages.notSignedIn);
    request.user = user;
  });
}
