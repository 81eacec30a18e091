import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { isAPIError } from 'better-auth/api';
import { authMessages } from '../../shared/messages.ts';
import { HttpError } from '../platform/http-errors.ts';
import type { AuthLibrary } from './auth-library.ts';
import type { Clock } from '../platform/clock.ts';
import type pg from 'pg';
import { forwardSetCookies, readSessionUser, toFetchHeaders } from './session.ts';
import { clearAccountFailures, recordFailedSignIn, secondsUntilUnlocked, signInCounters } from './login-lockout.ts';
import { clientAddressKey } from '../platform/client-address.ts';
import { findUserIdByResetToken, findUserById, markEmailVerified } from './account-queries.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import { registerEndpoint } from '../platform/register-endpoint.ts';

export interface AuthRoutesOptions {
  auth: AuthLibrary;
  pool: pg.Pool;
  clock: Clock;
  /** Requests per minute per client address (request.ip, see TRUST_PROXY) on the mail-sending and sign-up routes. */
  rateLimitPerMinute: number;
}

const lockedOut = (seconds: number) =>
  new HttpError(apiErrorCodes.locked_out, authMessages.lockout, { retryAfterSeconds: seconds });

/**
 * The account API under /api/account. Each route validates with the shared schema and
 * then calls better-auth; answers never reveal whether an email has an account.
 */
export const authRoutes: FastifyPluginAsyncZod<AuthRoutesOptions> = async (app, { auth, pool, clock, rateLimitPerMinute }) => {
  const limited = {
    rateLimit: { max: rateLimitPerMinute, timeWindow: 60_000, keyGenerator: (request: FastifyRequest) => clientAddressKey(request.ip) },
  };
  await registerEndpoint(app, endpoints.account.signUp, { config: limited }, async (request) => {
    const { email, password, fullName } = request.body;
    try {
      await auth.api.signUpEmail({ body: { email, password, name: fullName }, headers: toFetchHeaders(request) });
    } catch (error) {
      throw translateAuthError(error, authMessages.signUpFallback);
    }
    // The same answer for a new and an already registered email (no enumeration);
    // the owner of an existing account gets a mail saying so instead.
    return { message: authMessages.registrationVerify };
  });

  await registerEndpoint(app, endpoints.account.signIn, {}, async (request, reply) => {
    const { email, password, rememberMe } = request.body;
    const counters = signInCounters(email, request.ip);
    const lockedFor = await secondsUntilUnlocked(pool, counters, clock);
    if (lockedFor > 0) throw lockedOut(lockedFor);
    try {
      const result = await auth.api.signInEmail({
        body: { email, password, rememberMe: rememberMe ?? false },
        headers: toFetchHeaders(request),
        returnHeaders: true,
      });
      await clearAccountFailures(pool, email);
      forwardSetCookies(reply, result.headers);
      const user = result.response.user;
      return { user: { id: user.id, email: user.email, fullName: user.name } };
    } catch (error) {
      if (isAPIError(error) && error.statusCode === 401) {
        const nowLocked = await recordFailedSignIn(pool, counters, clock);
        if (nowLocked) throw lockedOut(await secondsUntilUnlocked(pool, counters, clock));
        throw new HttpError(apiErrorCodes.wrong_email_or_password, authMessages.invalidCredentials);
      }
      if (isAPIError(error) && error.statusCode === 403) {
        throw new HttpError(apiErrorCodes.email_not_verified, authMessages.emailNotVerified);
      }
      throw translateAuthError(error, authMessages.signInFallback);
    }
  });

  await registerEndpoint(app, endpoints.account.signOut, {}, async (request, reply) => {
    if (request.headers.cookie) {
      try {
        const result = await auth.api.signOut({ headers: toFetchHeaders(request), returnHeaders: true });
        forwardSetCookies(reply, result.headers);
      } catch (error) {
        // Signing out of a session that is already gone is still a sign-out.
        if (!(isAPIError(error) && [401, 403, 404].includes(error.statusCode))) {
          throw translateAuthError(error, authMessages.signOutFallback);
        }
      }
    }
    return { message: authMessages.loggedOut };
  });

  await registerEndpoint(app, endpoints.account.session, {}, async (request, reply) => {
    const user = await readSessionUser(auth, request, reply);
    if (!user) throw new HttpError(apiErrorCodes.not_signed_in, authMessages.notSignedIn);
    return { user };
  });

  await registerEndpoint(app, endpoints.account.verifyEmail, {}, async (request, reply) => {
    try {
      const result = await auth.api.verifyEmail({
        query: { token: request.body.token },
        headers: toFetchHeaders(request),
        returnHeaders: true,
      });
      forwardSetCookies(reply, result.headers);
      const signedIn = (result.headers?.getSetCookie() ?? []).some((cookie) => cookie.includes('session_token='));
      return { message: 'Email Verified!', signedIn };
    } catch (error) {
      if (isAPIError(error) && error.statusCode < 500) {
        throw new HttpError(apiErrorCodes.verification_failed, authMessages.verificationProblem);
      }
      throw error;
    }
  });

  await registerEndpoint(app, endpoints.account.resendVerification, { config: limited }, async (request) => {
    try {
      await auth.api.sendVerificationEmail({ body: { email: request.body.email }, headers: toFetchHeaders(request) });
    } catch {
      // Unknown or already verified emails get the same answer (no enumeration).
    }
    return { message: 'If that address has an account waiting for confirmation, a new link is on its way.' };
  });

  await registerEndpoint(app, endpoints.account.forgotPassword, { config: limited }, async (request) => {
    try {
      await auth.api.requestPasswordReset({ body: { email: request.body.email }, headers: toFetchHeaders(request) });
    } catch (error) {
      throw translateAuthError(error, authMessages.passwordResetFallback);
    }
    return { message: authMessages.resetSent };
  });

  await registerEndpoint(app, endpoints.account.resetPassword, { config: limited }, async (request, reply) => {
    const { token, password } = request.body;
    const userId = await findUserIdByResetToken(pool, token, clock);
    const user = userId ? await findUserById(pool, userId) : null;
    if (!user) throw new HttpError(apiErrorCodes.invalid_reset_link, authMessages.invalidResetLink);
    try {
      await auth.api.resetPassword({ body: { newPassword: password, token }, headers: toFetchHeaders(request) });
    } catch (error) {
      if (isAPIError(error) && error.statusCode < 500) {
        throw new HttpError(apiErrorCodes.invalid_reset_link, authMessages.invalidResetLink);
      }
      throw translateAuthError(error, authMessages.passwordUpdateFallback);
    }
    // Following the mailed link proves the address; then sign the owner in, as the
    // specification sends them to the dashboard after a password update
    // (docs/product/specification.md §2).
    await markEmailVerified(pool, user.id);
    await clearAccountFailures(pool, user.email);
    const result = await auth.api.signInEmail({
      body: { email: user.email, password, rememberMe: false },
      headers: toFetchHeaders(request),
      returnHeaders: true,
    });
    forwardSetCookies(reply, result.headers);
    return { user: { id: user.id, email: user.email, fullName: user.fullName } };
  });
};

/** Client mistakes keep better-auth's own status and message under our one code for them; anything else is the route's fallback. */
function translateAuthError(error: unknown, fallback: string): Error {
  if (error instanceof HttpError) return error;
  if (isAPIError(error) && error.statusCode >= 400 && error.statusCode < 500) {
    return new HttpError(apiErrorCodes.auth_refused, error.body?.message ?? fallback, { status: error.statusCode });
  }
  return new HttpError(apiErrorCodes.internal, fallback);
}
