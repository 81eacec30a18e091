import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { isAPIError } from 'better-auth/api';
import { accountDeletionMessages } from '../../shared/auth/account-deletion.ts';
import { authMessages } from '../../shared/messages.ts';
import { HttpError } from '../platform/http-errors.ts';
import { clientAddressKey } from '../platform/client-address.ts';
import type { AuthLibrary } from '../auth/auth-library.ts';
import { toFetchHeaders } from '../auth/session.ts';
import { recordFailedSignIn, secondsUntilUnlocked, signInCounters } from '../auth/login-lockout.ts';
import type { Mailer } from '../mail/mailer.ts';
import { accountDeletedMail } from '../mail/account-mails.ts';
import { deleteOwnerEverywhere } from './account-deletion.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import { registerEndpoint } from '../platform/register-endpoint.ts';

export interface AccountDeletionRoutesOptions {
  auth: AuthLibrary;
  mailer: Mailer;
  /** Requests per minute per client address, as the account routes that send mail. */
  rateLimitPerMinute: number;
  /**
   * Ends what the owner granted Flowsmith at other services before their record goes (the
   * Klaviyo connection is revoked at Klaviyo); it must not throw for a service that cannot
   * be asked.
   */
  beforeDeletion?: (userId: string) => Promise<void>;
}

/** Expires every session cookie the browser sent (the sessions themselves are gone with the owner). */
function clearSessionCookies(request: FastifyRequest, reply: FastifyReply): void {
  const names = (request.headers.cookie ?? '')
    .split(';')
    .map((part) => part.split('=')[0]?.trim() ?? '')
    .filter((name) => /flowsmith\.session_/.test(name));
  const secure = request.server.appConfig.publicUrl.startsWith('https://') ? '; Secure' : '';
  if (names.length > 0) reply.header('set-cookie', names.map((name) => `${name}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax${secure}`));
}

/**
 * POST /api/account/delete, in the signed-in context: the owner's password again (checked
 * by better-auth against the stored hash), then everything of theirs goes in one
 * transaction, the session cookies are cleared and a mail confirms it. A wrong password
 * counts towards the same lockout as sign-in, and deletes nothing.
 */
export const accountDeletionRoutes: FastifyPluginAsyncZod<AccountDeletionRoutesOptions> = async (app, { auth, mailer, rateLimitPerMinute, beforeDeletion }) => {
  const { pool } = app.database;
  await registerEndpoint(app, endpoints.account.delete, { config: { rateLimit: { max: rateLimitPerMinute, timeWindow: 60_000, keyGenerator: (request: FastifyRequest) => clientAddressKey(request.ip) } }, }, async (request, reply) => {
    const user = request.user;
    const counters = signInCounters(user.email, request.ip);
    const lockedFor = await secondsUntilUnlocked(pool, counters, app.clock);
    if (lockedFor > 0) throw new HttpError(apiErrorCodes.locked_out, authMessages.lockout, { retryAfterSeconds: lockedFor });
    try {
      await auth.api.verifyPassword({ body: { password: request.body.password }, headers: toFetchHeaders(request) });
    } catch (error) {
      if (isAPIError(error) && error.statusCode < 500) {
        const nowLocked = await recordFailedSignIn(pool, counters, app.clock);
        if (nowLocked) throw new HttpError(apiErrorCodes.locked_out, authMessages.lockout, { retryAfterSeconds: await secondsUntilUnlocked(pool, counters, app.clock) });
        throw new HttpError(apiErrorCodes.wrong_password, accountDeletionMessages.wrongPassword);
      }
      throw error;
    }
    await beforeDeletion?.(user.id);
    await deleteOwnerEverywhere(pool, user);
    request.log.info({ userId: user.id }, 'account deleted');
    clearSessionCookies(request, reply);
    try {
      await mailer.send(accountDeletedMail(user.email, user.fullName, app.appConfig.publicUrl));
    } catch (error) {
      // The account is gone either way; the failure is logged without the mail's content.
      request.log.warn({ err: { message: (error as Error).message } }, 'account deletion mail could not be sent');
    }
    return { message: accountDeletionMessages.deleted };
  });
};
