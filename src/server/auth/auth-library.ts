import { betterAuth } from 'better-auth';
import type pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import type { Mailer } from '../mail/mailer.ts';
import { existingAccountMail, passwordResetMail, verificationMail } from '../mail/account-mails.ts';
import {
  PASSWORD_RESET_LINK_VALID_SECONDS,
  SESSION_SECONDS_REMEMBERED,
  VERIFICATION_LINK_VALID_HOURS,
} from '../../shared/constants.ts';

/**
 * How passwords are hashed and checked. The product always uses better-auth's default
 * (scrypt, N=16384, r=16: about a quarter of a second of a core for each sign-up and
 * sign-in, by design). Only the in-process test apps pass a cheaper one, as a whole test
 * run signs up and in some hundreds of times (docs/decisions/0060-cheaper-password-hashing-in-tests.md).
 */
export interface PasswordHashing {
  hash(password: string): Promise<string>;
  verify(data: { hash: string; password: string }): Promise<boolean>;
}

/**
 * better-auth owns password hashing, sessions and one-time tokens. The app never mounts
 * its HTTP handler: our own routes (auth-routes.ts) validate with the shared schemas,
 * enforce the lockout and call `auth.api` directly (docs/decisions/0003-auth.md).
 */
export function createAuthLibrary(options: {
  pool: pg.Pool;
  publicUrl: string;
  secret: string;
  mailer: Mailer;
  logger: FastifyBaseLogger;
  /** Left out in the product, which keeps better-auth's own scrypt (see `PasswordHashing`). */
  passwordHashing?: PasswordHashing;
}) {
  const { mailer, publicUrl, logger } = options;

  // A mail that cannot be sent must not turn sign-up into an error page (the account
  // exists either way); the owner asks for a new link by signing in or from "Forgot
  // password". The failure is logged without the mail's content.
  const sendSafely = async (mail: Parameters<Mailer['send']>[0]) => {
    try {
      await mailer.send(mail);
    } catch (error) {
      logger.error({ err: { message: (error as Error).message }, subject: mail.subject }, 'mail could not be sent');
    }
  };

  return betterAuth({
    baseURL: publicUrl,
    basePath: '/api/auth',
    secret: options.secret,
    database: options.pool,
    telemetry: { enabled: false },
    // Limits live in our own routes, where they can answer with the specified messages
    // (docs/product/specification.md §8).
    rateLimit: { enabled: false },
    logger: {
      level: 'error',
      log: (level, message) => logger[level]({ component: 'auth' }, message),
    },
    advanced: {
      cookiePrefix: 'flowsmith',
      useSecureCookies: publicUrl.startsWith('https://'),
      defaultCookieAttributes: { httpOnly: true, sameSite: 'lax', path: '/' },
    },
    user: {
      modelName: 'users',
      fields: { name: 'full_name', emailVerified: 'email_verified', createdAt: 'created_at', updatedAt: 'updated_at' },
    },
    session: {
      modelName: 'sessions',
      expiresIn: SESSION_SECONDS_REMEMBERED,
      // Remembered sessions slide forward at most once a day while in use; 1-day
      // sessions (Remember me off) are never extended.
      updateAge: 86_400,
      fields: {
        userId: 'user_id',
        expiresAt: 'expires_at',
        ipAddress: 'ip_address',
        userAgent: 'user_agent',
        createdAt: 'created_at',
        updatedAt: 'updated_at',
      },
    },
    account: {
      modelName: 'accounts',
      fields: {
        userId: 'user_id',
        accountId: 'account_id',
        providerId: 'provider_id',
        accessToken: 'access_token',
        refreshToken: 'refresh_token',
        idToken: 'id_token',
        accessTokenExpiresAt: 'access_token_expires_at',
        refreshTokenExpiresAt: 'refresh_token_expires_at',
        createdAt: 'created_at',
        updatedAt: 'updated_at',
      },
    },
    verification: {
      modelName: 'verifications',
      fields: { expiresAt: 'expires_at', createdAt: 'created_at', updatedAt: 'updated_at' },
    },
    emailAndPassword: {
      enabled: true,
      requireEmailVerification: true,
      autoSignIn: false,
      minPasswordLength: 8,
      maxPasswordLength: 256,
      ...(options.passwordHashing ? { password: options.passwordHashing } : {}),
      revokeSessionsOnPasswordReset: true,
      resetPasswordTokenExpiresIn: PASSWORD_RESET_LINK_VALID_SECONDS,
      sendResetPassword: async ({ user, token }) => {
        await sendSafely(passwordResetMail(user.email, user.name, publicUrl, token));
      },
      onExistingUserSignUp: async ({ user }) => {
        await sendSafely(existingAccountMail(user.email, user.name, publicUrl));
      },
    },
    emailVerification: {
      sendOnSignUp: true,
      sendOnSignIn: true,
      autoSignInAfterVerification: true,
      expiresIn: VERIFICATION_LINK_VALID_HOURS * 3600,
      sendVerificationEmail: async ({ user, token }) => {
        await sendSafely(verificationMail(user.email, user.name, publicUrl, token));
      },
    },
  });
}

export type AuthLibrary = ReturnType<typeof createAuthLibrary>;
