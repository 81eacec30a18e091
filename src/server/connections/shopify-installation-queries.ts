import type { Queryable } from '../database/database.ts';

/** The shopify_installations table (migration 040), owned by this module's facade (shopify-installations.ts). */
export interface InstallationRow {
  user_id: string;
  shop_domain: string;
  shop_name: string | null;
  scopes: string;
  status: 'connected' | 'uninstalled' | 'renewal_refused';
  problem: string | null;
  access_token_expires_at: Date | null;
  renewed_at: Date | null;
  connected_at: Date;
}

export async function findInstallation(db: Queryable, userId: string): Promise<InstallationRow | null> {
  const { rows } = await db.query<InstallationRow>(
    `SELECT user_id, shop_domain, shop_name, scopes, status, problem, access_token_expires_at, renewed_at, connected_at
       FROM shopify_installations WHERE user_id = $1`,
    [userId],
  );
  return rows[0] ?? null;
}

/** The owner of the shop's installation, any state, or only a connected one. */
export async function findInstallationOwner(db: Queryable, shopDomain: string, options: { connectedOnly?: boolean } = {}): Promise<string | null> {
  const { rows } = await db.query<{ user_id: string }>(
    `SELECT user_id FROM shopify_installations WHERE shop_domain = $1${options.connectedOnly ? " AND status = 'connected'" : ''}`,
    [shopDomain],
  );
  return rows[0]?.user_id ?? null;
}

/**
 * Stores a new installation (tokens as ciphertexts) for the owner, replacing their earlier
 * one; an earlier owner's installation of the same shop that is no longer connected gives
 * way. Run in the caller's transaction with the owner's record switched to OAuth.
 */
export async function saveInstallation(
  db: Queryable,
  installation: {
    userId: string;
    shopDomain: string;
    shopName: string | null;
    scopes: string;
    accessToken: string;
    accessTokenExpiresAt: Date | null;
    refreshToken: string | null;
    refreshTokenExpiresAt: Date | null;
    at: Date;
  },
): Promise<void> {
  await db.query("DELETE FROM shopify_installations WHERE shop_domain = $1 AND user_id <> $2 AND status <> 'connected'", [installation.shopDomain, installation.userId]);
  await db.query(
    `INSERT INTO shopify_installations (user_id, shop_domain, shop_name, scopes, status, problem, access_token, access_token_expires_at,
       refresh_token, refresh_token_expires_at, renewing_until, renewed_at, connected_at, updated_at)
     VALUES ($1, $2, $3, $4, 'connected', NULL, $5, $6, $7, $8, NULL, NULL, $9, $9)
     ON CONFLICT (user_id) DO UPDATE SET shop_domain = EXCLUDED.shop_domain, shop_name = EXCLUDED.shop_name, scopes = EXCLUDED.scopes,
       status = 'connected', problem = NULL, access_token = EXCLUDED.access_token, access_token_expires_at = EXCLUDED.access_token_expires_at,
       refresh_token = EXCLUDED.refresh_token, refresh_token_expires_at = EXCLUDED.refresh_token_expires_at,
       renewing_until = NULL, renewed_at = NULL, connected_at = EXCLUDED.connected_at, updated_at = EXCLUDED.updated_at`,
    [
      installation.userId,
      installation.shopDomain,
      installation.shopName,
      installation.scopes,
      installation.accessToken,
      installation.accessTokenExpiresAt,
      installation.refreshToken,
      installation.refreshTokenExpiresAt,
      installation.at,
    ],
  );
}

/** The app was uninstalled: its tokens go at once; returns the shop's owner, if any. */
export async function markUninstalled(db: Queryable, shopDomain: string, problem: string, at: Date): Promise<string | null> {
  const { rows } = await db.query<{ user_id: string }>(
    `UPDATE shopify_installations SET status = 'uninstalled', problem = $2, access_token = NULL, access_token_expires_at = NULL,
        refresh_token = NULL, refresh_token_expires_at = NULL, renewing_until = NULL, updated_at = $3
      WHERE shop_domain = $1 RETURNING user_id`,
    [shopDomain, problem, at],
  );
  return rows[0]?.user_id ?? null;
}

export async function updateInstallationScopes(db: Queryable, shopDomain: string, scopes: string, at: Date): Promise<void> {
  await db.query('UPDATE shopify_installations SET scopes = $2, updated_at = $3 WHERE shop_domain = $1', [shopDomain, scopes, at]);
}
