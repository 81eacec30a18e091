import type { FastifyRequest } from 'fastify';
import type pg from 'pg';
import { HttpError } from './http-errors.ts';
import type { Clock } from './clock.ts';
import { inTransaction } from '../database/database.ts';
import { requestMessages } from '../../shared/messages.ts';
import { countUses, forgetUsesUpTo, lockUserRateLimit, recordUse } from './user-rate-limit-queries.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';

/**
 * Uses per owner per 60 seconds (docs/decisions/0025-per-owner-rate-limits.md). The
 * specification had 30 writes and 60 reads and checks, which an owner clicking through
 * the app with a few tabs open reached within a minute. The limits are there to stop
 * abuse, not use: reads and writes are sized well above what a fast person with several
 * tabs makes; checks, which call OpenAI, Klaviyo and Shopify with typed keys, keep its 60
 * (docs/product/specification.md §9).
 */
export const userRateLimits = { read: 600, write: 120, check: 60 } as const;
const windowMs = 60_000;
export type UserRateLimitKind = keyof typeof userRateLimits;

/**
 * Counts one use of `kind` for `userId` and refuses it with 429 "Rate limit exceeded"
 * when the user already made the maximum within the last 60 seconds. Kept in the
 * database so that the limit holds across every server process; a transaction-level
 * advisory lock per user and kind serialises concurrent requests of one user.
 */
export async function consumeUserRateLimit(pool: pg.Pool, clock: Clock, userId: string, kind: UserRateLimitKind): Promise<void> {
  const now = clock.now();
  const windowStart = new Date(now.getTime() - windowMs);
  // The refusal is decided inside the transaction and thrown after its commit, so that the
  // transaction's error handling (a lost connection is closed, not reused) sees only
  // database errors.
  const retryAfterSeconds = await inTransaction(pool, async (client) => {
    await lockUserRateLimit(client, userId, kind);
    await forgetUsesUpTo(client, userId, kind, windowStart);
    const { uses, oldest } = await countUses(client, userId, kind);
    if (uses >= userRateLimits[kind]) {
      return Math.max(1, Math.ceil(((oldest?.getTime() ?? now.getTime()) + windowMs - now.getTime()) / 1000));
    }
    await recordUse(client, userId, kind, now);
    return null;
  });
  if (retryAfterSeconds !== null) throw new HttpError(apiErrorCodes.rate_limited, requestMessages.rateLimited, { retryAfterSeconds });
}

/**
 * A preHandler for routes in a signed-in context (auth/signed-in.ts), used as
 * `preHandler: rateLimited('write')`.
 */
export function rateLimited(kind: UserRateLimitKind) {
  return async function userRateLimitHook(request: FastifyRequest) {
    await consumeUserRateLimit(request.server.database.pool, request.server.clock, request.user.id, kind);
  };
}
