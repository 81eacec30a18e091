import type { Queryable } from '../database/database.ts';

/** The klaviyo_connections table (migration 040), owned by this module's facade (klaviyo-connections.ts). */
export interface KlaviyoConnectionRow {
  account_id: string;
  account_name: string | null;
  scopes: string;
  status: 'connected' | 'renewal_refused';
  problem: string | null;
  access_token_expires_at: Date | null;
  renewed_at: Date | null;
  connected_at: Date;
  /** Ciphertext. */
  refresh_token: string | null;
}

export async function findKlaviyoConnection(db: Queryable, userId: string): Promise<KlaviyoConnectionRow | null> {
  const { rows } = await db.query<KlaviyoConnectionRow>(
    `SELECT account_id, account_name, scopes, status, problem, access_token_expires_at, renewed_at, connected_at, refresh_token
       FROM klaviyo_connections WHERE user_id = $1`,
    [userId],
  );
  return rows[0] ?? null;
}

/** Stores the owner's connection (tokens as ciphertexts), replacing an earlier one. */
export async function saveKlaviyoConnection(
  db: Queryable,
  connection: { userId: string; accountId: string; accountName: string | null; scopes: string; accessToken: string; accessTokenExpiresAt: Date; refreshToken: string; at: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO klaviyo_connections (user_id, account_id, account_name, scopes, status, problem, access_token, access_token_expires_at,
       refresh_token, refresh_token_expires_at, renewing_until, renewed_at, connected_at, updated_at)
     VALUES ($1, $2, $3, $4, 'connected', NULL, $5, $6, $7, NULL, NULL, NULL, $8, $8)
     ON CONFLICT (user_id) DO UPDATE SET account_id = EXCLUDED.account_id, account_name = EXCLUDED.account_name, scopes = EXCLUDED.scopes,
       status = 'connected', problem = NULL, access_token = EXCLUDED.access_token, access_token_expires_at = EXCLUDED.access_token_expires_at,
       refresh_token = EXCLUDED.refresh_token, refresh_token_expires_at = NULL, renewing_until = NULL, renewed_at = NULL,
       connected_at = EXCLUDED.connected_at, updated_at = EXCLUDED.updated_at`,
    [connection.userId, connection.accountId, connection.accountName, connection.scopes, connection.accessToken, connection.accessTokenExpiresAt, connection.refreshToken, connection.at],
  );
}

/** Deletes the owner's connection; returns its refresh token's ciphertext, to revoke. */
export async function deleteKlaviyoConnection(db: Queryable, userId: string): Promise<string | null> {
  const { rows } = await db.query<{ refresh_token: string | null }>('DELETE FROM klaviyo_connections WHERE user_id = $1 RETURNING refresh_token', [userId]);
  return rows[0]?.refresh_token ?? null;
}
