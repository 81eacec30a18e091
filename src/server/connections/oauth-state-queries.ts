import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../database/database.ts';
import type { CredentialCipher } from '../platform/credential-cipher.ts';

/**
 * The one-time `state` of a connection begun by an owner (docs/decisions/0048-connect-by-oauth.md).
 * The state is 32 random bytes that travel in the authorize address and come back in the
 * callback; only their hash is stored, with the owner whose session began it, so a
 * callback is accepted once, within its lifetime, and only in that owner's session.
 */
export const OAUTH_STATE_LIFETIME_MS = 15 * 60_000;

export type OAuthService = 'shopify' | 'klaviyo';

export interface BegunConnection {
  userId: string;
  shopDomain: string | null;
  codeVerifier: string | null;
  returnTo: string;
}

function hashOf(state: string): string {
  return createHash('sha256').update(state).digest('base64url');
}

function verifierContext(userId: string): string {
  return `oauth_states.code_verifier:${userId}`;
}

/** Stores a new state for the owner and returns it; earlier unfinished ones of the same service stay valid until they expire. */
export async function issueOAuthState(
  db: Queryable,
  cipher: CredentialCipher,
  begun: BegunConnection & { service: OAuthService; now: Date },
): Promise<string> {
  const state = randomBytes(32).toString('base64url');
  await db.query('DELETE FROM oauth_states WHERE expires_at < $1', [begun.now]);
  await db.query(
    `INSERT INTO oauth_states (state_hash, user_id, service, shop_domain, code_verifier, return_to, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      hashOf(state),
      begun.userId,
      begun.service,
      begun.shopDomain,
      begun.codeVerifier ? cipher.encrypt(begun.codeVerifier, verifierContext(begun.userId)) : null,
      begun.returnTo,
      begun.now,
      new Date(begun.now.getTime() + OAUTH_STATE_LIFETIME_MS),
    ],
  );
  return state;
}

/**
 * Takes the state out (it can be used once, whatever happens next) and returns what began
 * it, or null when it is unknown, used, expired or of another service.
 */
export async function consumeOAuthState(db: Queryable, cipher: CredentialCipher, returned: { state: string; service: OAuthService }, now: Date): Promise<BegunConnection | null> {
  const { state, service } = returned;
  if (!state || state.length > 200) return null;
  const { rows } = await db.query<{ user_id: string; shop_domain: string | null; code_verifier: string | null; return_to: string; expires_at: Date; service: string }>(
    'DELETE FROM oauth_states WHERE state_hash = $1 RETURNING user_id, shop_domain, code_verifier, return_to, expires_at, service',
    [hashOf(state)],
  );
  const row = rows[0];
  if (!row || row.service !== service || row.expires_at.getTime() <= now.getTime()) return null;
  return {
    userId: row.user_id,
    shopDomain: row.shop_domain,
    codeVerifier: row.code_verifier ? cipher.decrypt(row.code_verifier, verifierContext(row.user_id)) : null,
    returnTo: row.return_to,
  };
}

/** Connections begun and not finished are dropped by a key rotation: they last minutes, and the owner starts again. */
export async function forgetAllOAuthStates(db: Queryable): Promise<void> {
  await db.query('DELETE FROM oauth_states');
}
