import type pg from 'pg';
import type { Queryable } from '../database/database.ts';

/**
 * The token columns both connection tables share (shopify_installations and
 * klaviyo_connections, each owned by its module), read and written by the token renewal
 * (token-renewal.ts) and the key rotation. Table names come only from this union.
 */
export type ConnectionTable = 'shopify_installations' | 'klaviyo_connections';

export interface StoredTokenRow {
  status: string;
  problem: string | null;
  access_token: string | null;
  access_token_expires_at: Date | null;
  refresh_token: string | null;
  renewing_until: Date | null;
}

export async function findStoredTokens(db: Queryable, table: ConnectionTable, userId: string): Promise<StoredTokenRow | null> {
  const { rows } = await db.query<StoredTokenRow>(
    `SELECT status, problem, access_token, access_token_expires_at, refresh_token, renewing_until FROM ${table} WHERE user_id = $1`,
    [userId],
  );
  return rows[0] ?? null;
}

/**
 * Takes the renewal lease, only if no other process holds it and the access token is still
 * the one seen (another process may have renewed since). Returns the stored refresh token
 * (its ciphertext, possibly null), or undefined when the lease was not taken.
 */
export async function claimRenewal(
  db: Queryable,
  table: ConnectionTable,
  claim: { userId: string; until: Date; now: Date; seenAccessToken: string | null },
): Promise<{ refreshToken: string | null } | undefined> {
  const { rows } = await db.query<{ refresh_token: string | null }>(
    `UPDATE ${table} SET renewing_until = $2
      WHERE user_id = $1 AND status = 'connected' AND (renewing_until IS NULL OR renewing_until < $3)
        AND access_token IS NOT DISTINCT FROM $4
      RETURNING refresh_token`,
    [claim.userId, claim.until, claim.now, claim.seenAccessToken],
  );
  return rows[0] ? { refreshToken: rows[0].refresh_token } : undefined;
}

export async function releaseRenewal(db: Queryable, table: ConnectionTable, userId: string, lease: Date): Promise<void> {
  await db.query(`UPDATE ${table} SET renewing_until = NULL WHERE user_id = $1 AND renewing_until = $2`, [userId, lease]);
}

/** Stores renewed tokens (ciphertexts) under the lease taken; nothing when the connection ended meanwhile. */
export async function storeRenewedTokens(
  db: Queryable,
  table: ConnectionTable,
  renewed: { userId: string; lease: Date; accessToken: string; accessTokenExpiresAt: Date | null; refreshToken: string; refreshTokenExpiresAt: Date | null; scopes: string | null; at: Date },
): Promise<void> {
  await db.query(
    `UPDATE ${table} SET access_token = $2, access_token_expires_at = $3, refresh_token = $4, refresh_token_expires_at = $5,
        scopes = COALESCE($6, scopes), renewing_until = NULL, renewed_at = $7, updated_at = $7
      WHERE user_id = $1 AND renewing_until = $8 AND status = 'connected'`,
    [renewed.userId, renewed.accessToken, renewed.accessTokenExpiresAt, renewed.refreshToken, renewed.refreshTokenExpiresAt, renewed.scopes, renewed.at, renewed.lease],
  );
}

/** The renewal was refused for good: the tokens go, the connection stays with its problem. */
export async function markRenewalRefused(db: Queryable, table: ConnectionTable, refused: { userId: string; problem: string; at: Date }): Promise<void> {
  const { userId, problem, at } = refused;
  await db.query(
    `UPDATE ${table} SET status = 'renewal_refused', problem = $2, access_token = NULL, access_token_expires_at = NULL,
        refresh_token = NULL, refresh_token_expires_at = NULL, renewing_until = NULL, updated_at = $3
      WHERE user_id = $1 AND status = 'connected'`,
    [userId, problem.slice(0, 500), at],
  );
}

/** Every stored token of a table, locked until the caller's transaction ends (the key rotation). */
export async function lockConnectionTokens(client: pg.PoolClient, table: ConnectionTable): Promise<{ user_id: string; access_token: string | null; refresh_token: string | null }[]> {
  const { rows } = await client.query<{ user_id: string; access_token: string | null; refresh_token: string | null }>(
    `SELECT user_id, access_token, refresh_token FROM ${table} ORDER BY user_id FOR UPDATE`,
  );
  return rows;
}

export async function replaceConnectionTokens(client: pg.PoolClient, table: ConnectionTable, userId: string, tokens: { accessToken: string | null; refreshToken: string | null }): Promise<void> {
  await client.query(`UPDATE ${table} SET access_token = $2, refresh_token = $3 WHERE user_id = $1`, [userId, tokens.accessToken, tokens.refreshToken]);
}
