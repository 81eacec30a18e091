import type { Queryable } from '../database/database.ts';
import type { Clock } from '../platform/clock.ts';

export interface AccountUser {
  id: string;
  email: string;
  fullName: string;
}

export async function findUserById(db: Queryable, userId: string): Promise<AccountUser | null> {
  const { rows } = await db.query<AccountUser>(
    'SELECT id, email, full_name AS "fullName" FROM users WHERE id = $1',
    [userId],
  );
  return rows[0] ?? null;
}

/** The user a still-valid password-reset token belongs to (better-auth stores it as `reset-password:<token>`). */
export async function findUserIdByResetToken(db: Queryable, token: string, clock: Clock): Promise<string | null> {
  const { rows } = await db.query<{ value: string }>(
    'SELECT value FROM verifications WHERE identifier = $1 AND expires_at > $2 ORDER BY created_at DESC LIMIT 1',
    [`reset-password:${token}`, clock.now()],
  );
  return rows[0]?.value ?? null;
}

export async function markEmailVerified(db: Queryable, userId: string): Promise<void> {
  await db.query('UPDATE users SET email_verified = true, updated_at = now() WHERE id = $1 AND NOT email_verified', [userId]);
}

/**
 * Account deletion: better-auth's one-time tokens of the owner (a reset token names the
 * user in its value; a token keyed by email names it in its identifier), then the owner's
 * row, which cascades to sessions, accounts and every owner-keyed table
 * (docs/decisions/0029-retention-and-account-deletion.md).
 */
export async function deleteUserAndTokens(db: Queryable, user: { id: string; email: string }): Promise<boolean> {
  // Compared as text, not with LIKE: an email's "_" would match any character.
  const suffix = `:${user.email.toLowerCase()}`;
  await db.query('DELETE FROM verifications WHERE value = $1 OR identifier = $2 OR right(identifier, length($3)) = $3', [user.id, user.email.toLowerCase(), suffix]);
  const { rowCount } = await db.query('DELETE FROM users WHERE id = $1', [user.id]);
  return (rowCount ?? 0) > 0;
}
