import type { Queryable } from '../database/database.ts';
import type { KlaviyoAuthMethod, ShopifyAuthMethod } from '../../shared/credentials/credential-schemas.ts';

/**
 * The api_credentials table as stored: secret columns hold ciphertext
 * (platform/credential-cipher.ts). Only the functions of credential-store.ts decrypt them.
 */
export interface StoredCredentialsRow {
  user_id: string;
  klaviyo_auth_method: KlaviyoAuthMethod;
  /** Null when Klaviyo is connected by OAuth. */
  klaviyo_api_key: string | null;
  openai_api_key: string;
  openai_model: string;
  shopify_domain: string;
  shopify_auth_method: ShopifyAuthMethod;
  shopify_access_token: string | null;
  shopify_client_id: string | null;
  shopify_client_secret: string | null;
  shopify_signing_secret: string | null;
  shopify_previous_signing_secret: string | null;
  shopify_previous_signing_secret_until: Date | null;
  shopify_obtained_token: string | null;
  shopify_obtained_token_expires_at: Date | null;
  updated_at: Date;
}

/** Every column that holds ciphertext; the self-check and key rotation walk these. */
export const encryptedColumns = [
  'klaviyo_api_key',
  'openai_api_key',
  'shopify_access_token',
  'shopify_client_id',
  'shopify_client_secret',
  'shopify_signing_secret',
  'shopify_previous_signing_secret',
  'shopify_obtained_token',
] as const satisfies ReadonlyArray<keyof StoredCredentialsRow>;
export type EncryptedColumn = (typeof encryptedColumns)[number];

/** The associated data a value is encrypted with: it only decrypts in its own column of its own owner's row. */
export function encryptionContext(column: EncryptedColumn, userId: string): string {
  return `api_credentials.${column}:${userId}`;
}

/** One owner's ciphertexts by column (null where the column is empty). */
export type EncryptedValues = Record<EncryptedColumn, string | null>;

/** Every owner's ciphertexts, locked until the caller's transaction ends (the key rotation's read). */
export async function lockAllEncryptedValues(db: Queryable): Promise<{ userId: string; values: EncryptedValues }[]> {
  const { rows } = await db.query<EncryptedValues & { user_id: string }>(
    `SELECT user_id, ${encryptedColumns.join(', ')} FROM api_credentials ORDER BY user_id FOR UPDATE`,
  );
  return rows.map(({ user_id, ...values }) => ({ userId: user_id, values }));
}

/** Replaces every ciphertext of one owner's record (the key rotation's write). */
export async function replaceEncryptedValues(db: Queryable, userId: string, values: EncryptedValues): Promise<void> {
  await db.query(
    `UPDATE api_credentials SET ${encryptedColumns.map((column, index) => `${column} = $${index + 2}`).join(', ')} WHERE user_id = $1`,
    [userId, ...encryptedColumns.map((column) => values[column])],
  );
}

const columns = `user_id, klaviyo_auth_method, klaviyo_api_key, openai_api_key, openai_model, shopify_domain, shopify_auth_method,
  shopify_access_token, shopify_client_id, shopify_client_secret, shopify_signing_secret,
  shopify_previous_signing_secret, shopify_previous_signing_secret_until,
  shopify_obtained_token, shopify_obtained_token_expires_at, updated_at`;

export async function findStoredCredentials(db: Queryable, userId: string, options: { forUpdate?: boolean } = {}): Promise<StoredCredentialsRow | null> {
  const { rows } = await db.query<StoredCredentialsRow>(
    `SELECT ${columns} FROM api_credentials WHERE user_id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`,
    [userId],
  );
  return rows[0] ?? null;
}

/**
 * docs/product/specification.md §4: setup is complete once a credentials record exists
 * for the user.
 */
export async function hasStoredCredentials(db: Queryable, userId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM api_credentials WHERE user_id = $1', [userId]);
  return rows.length > 0;
}

export type CredentialsWrite = Omit<StoredCredentialsRow, 'user_id' | 'updated_at'>;

/** Creates or replaces the owner's one record; returns it and whether it was new. */
export async function upsertStoredCredentials(db: Queryable, userId: string, values: CredentialsWrite, now: Date): Promise<{ row: StoredCredentialsRow; created: boolean }> {
  const { rows } = await db.query<StoredCredentialsRow & { created: boolean }>(
    `INSERT INTO api_credentials (user_id, klaviyo_api_key, openai_api_key, openai_model, shopify_domain, shopify_auth_method,
       shopify_access_token, shopify_client_id, shopify_client_secret, shopify_signing_secret,
       shopify_previous_signing_secret, shopify_previous_signing_secret_until,
       shopify_obtained_token, shopify_obtained_token_expires_at, created_at, updated_at, klaviyo_auth_method)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15, $16)
     ON CONFLICT (user_id) DO UPDATE SET
       klaviyo_auth_method = EXCLUDED.klaviyo_auth_method, klaviyo_api_key = EXCLUDED.klaviyo_api_key, openai_api_key = EXCLUDED.openai_api_key,
       openai_model = EXCLUDED.openai_model, shopify_domain = EXCLUDED.shopify_domain,
       shopify_auth_method = EXCLUDED.shopify_auth_method, shopify_access_token = EXCLUDED.shopify_access_token,
       shopify_client_id = EXCLUDED.shopify_client_id, shopify_client_secret = EXCLUDED.shopify_client_secret,
       shopify_signing_secret = EXCLUDED.shopify_signing_secret,
       shopify_previous_signing_secret = EXCLUDED.shopify_previous_signing_secret,
       shopify_previous_signing_secret_until = EXCLUDED.shopify_previous_signing_secret_until,
       shopify_obtained_token = EXCLUDED.shopify_obtained_token,
       shopify_obtained_token_expires_at = EXCLUDED.shopify_obtained_token_expires_at,
       updated_at = EXCLUDED.updated_at
     RETURNING ${columns}, (xmax = 0) AS created`,
    [
      userId,
      values.klaviyo_api_key,
      values.openai_api_key,
      values.openai_model,
      values.shopify_domain,
      values.shopify_auth_method,
      values.shopify_access_token,
      values.shopify_client_id,
      values.shopify_client_secret,
      values.shopify_signing_secret,
      values.shopify_previous_signing_secret,
      values.shopify_previous_signing_secret_until,
      values.shopify_obtained_token,
      values.shopify_obtained_token_expires_at,
      now,
      values.klaviyo_auth_method,
    ],
  );
  const { created, ...row } = rows[0]!;
  return { row, created };
}

/**
 * Stores a token obtained by the client-credentials grant, unless the owner changed
 * their Shopify app meanwhile (then the token belongs to the old app and is dropped).
 */
export async function storeObtainedShopifyToken(
  db: Queryable,
  userId: string,
  token: { encrypted: string; expiresAt: Date },
  obtainedWith: { encryptedClientSecret: string },
): Promise<void> {
  await db.query(
    `UPDATE api_credentials SET shopify_obtained_token = $2, shopify_obtained_token_expires_at = $3
      WHERE user_id = $1 AND shopify_auth_method = 'client_credentials' AND shopify_client_secret = $4`,
    [userId, token.encrypted, token.expiresAt, obtainedWith.encryptedClientSecret],
  );
}

/** Forgets an obtained token Shopify no longer accepts, so the next call obtains a new one. */
export async function clearObtainedShopifyToken(db: Queryable, userId: string, encryptedToken: string): Promise<void> {
  await db.query(
    'UPDATE api_credentials SET shopify_obtained_token = NULL, shopify_obtained_token_expires_at = NULL WHERE user_id = $1 AND shopify_obtained_token = $2',
    [userId, encryptedToken],
  );
}

/**
 * The owner connected their shop through the deployment's app: their record (when they
 * have one) names that shop and method, and forgets the keys of their own app, whose
 * tokens no longer speak for them. The entered webhook signing secret stays: it verifies
 * webhooks the owner made in the shop's admin.
 */
export async function switchCredentialsToShopifyOAuth(db: Queryable, userId: string, shopDomain: string, now: Date): Promise<void> {
  await db.query(
    `UPDATE api_credentials SET shopify_auth_method = 'oauth', shopify_domain = $2, shopify_access_token = NULL,
        shopify_client_id = NULL, shopify_client_secret = NULL, shopify_obtained_token = NULL,
        shopify_obtained_token_expires_at = NULL, updated_at = $3
      WHERE user_id = $1`,
    [userId, shopDomain, now],
  );
}

/** The owner connected Klaviyo by OAuth: the private key goes (Klaviyo asks an integration not to use both for one account). */
export async function switchCredentialsToKlaviyoOAuth(db: Queryable, userId: string, now: Date): Promise<void> {
  await db.query("UPDATE api_credentials SET klaviyo_auth_method = 'oauth', klaviyo_api_key = NULL, updated_at = $2 WHERE user_id = $1", [userId, now]);
}

/** How the owner's record says Klaviyo is connected; null without a record. */
export async function findKlaviyoAuthMethod(db: Queryable, userId: string): Promise<KlaviyoAuthMethod | null> {
  const { rows } = await db.query<{ klaviyo_auth_method: KlaviyoAuthMethod }>('SELECT klaviyo_auth_method FROM api_credentials WHERE user_id = $1', [userId]);
  return rows[0]?.klaviyo_auth_method ?? null;
}
