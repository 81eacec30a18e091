import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { inTransaction, type Queryable } from '../database/database.ts';
import { CredentialDecryptionError, type CredentialCipher } from '../platform/credential-cipher.ts';
import {
  encryptedColumns,
  encryptionContext,
  findStoredCredentials,
  upsertStoredCredentials,
  type EncryptedColumn,
  type StoredCredentialsRow,
} from './credential-queries.ts';
import { isUnchangedMask, maskSecret } from '../platform/credential-masking.ts';
import type { ObtainedShopifyToken } from '../integrations/shopify/shopify-client-credentials.ts';
import { credentialMessages, credentialValidationMessages } from '../../shared/credentials/credential-messages.ts';
import type { CredentialField, Credentials, EncryptionCheck, KlaviyoAuthMethod, MaskedCredentials, ShopifyAuthMethod } from '../../shared/credentials/credential-schemas.ts';

/** After the webhook signing secret changes, Shopify may sign with the old one for up to an hour. */
export const PREVIOUS_SIGNING_SECRET_MS = 60 * 60_000;

/** The form's secret fields and the columns that hold them. */
const secretFieldColumns = {
  klaviyoApiKey: 'klaviyo_api_key',
  openaiApiKey: 'openai_api_key',
  shopifyAccessToken: 'shopify_access_token',
  shopifyClientId: 'shopify_client_id',
  shopifyClientSecret: 'shopify_client_secret',
  shopifySigningSecret: 'shopify_signing_secret',
} as const satisfies Partial<Record<CredentialField, EncryptedColumn>>;
type SecretField = keyof typeof secretFieldColumns;
const secretFields = Object.keys(secretFieldColumns) as SecretField[];

/** What the engine needs to call the three services for one owner. */
export interface ServiceCredentials {
  klaviyoAuthMethod: KlaviyoAuthMethod;
  /** Null when Klaviyo is connected by OAuth (its token comes from the connections feature). */
  klaviyoApiKey: string | null;
  openaiApiKey: string;
  /** The owner's default model; an assistant may name its own. */
  openaiModel: string;
  shopify: {
    domain: string;
    authMethod: ShopifyAuthMethod;
    /** The fixed Admin API token; null with client credentials or OAuth (use the ShopifyAccessTokenProvider). */
    accessToken: string | null;
    clientId: string | null;
    clientSecret: string | null;
    /** Secrets a webhook signature may verify with: the current one first, then the previous one within its hour. */
    signingSecrets: string[];
  };
}

function decryptColumn(cipher: CredentialCipher, row: StoredCredentialsRow, column: EncryptedColumn): string | null {
  const stored = row[column];
  return stored === null ? null : cipher.decrypt(stored, encryptionContext(column, row.user_id));
}

function encryptColumn(cipher: CredentialCipher, userId: string, column: EncryptedColumn, value: string | null): string | null {
  return value ? cipher.encrypt(value, encryptionContext(column, userId)) : null;
}

/**
 * The secrets Shopify signs the owner's webhooks with now: the key entered (the store's
 * Notifications key, for webhooks made in the admin) and, with client credentials, the
 * app's client secret, which signs the subscriptions the app registered itself (Connect
 * store). Both stay valid together: one does not replace the other.
 */
function currentSigningSecrets(cipher: CredentialCipher, row: StoredCredentialsRow): string[] {
  const entered = decryptColumn(cipher, row, 'shopify_signing_secret');
  const clientSecret = row.shopify_auth_method === 'client_credentials' ? decryptColumn(cipher, row, 'shopify_client_secret') : null;
  return [entered, clientSecret].filter((secret): secret is string => Boolean(secret));
}

/**
 * Throws CredentialDecryptionError when a stored value does not decrypt: the engine must
 * not go on with a half-readable record.
 */
export async function loadServiceCredentials(db: Queryable, cipher: CredentialCipher, userId: string, now: Date = new Date()): Promise<ServiceCredentials | null> {
  const row = await findStoredCredentials(db, userId);
  if (!row) return null;
  const current = currentSigningSecrets(cipher, row);
  const previous =
    row.shopify_previous_signing_secret_until && row.shopify_previous_signing_secret_until.getTime() > now.getTime()
      ? decryptColumn(cipher, row, 'shopify_previous_signing_secret')
      : null;
  const signingSecrets = [...current, previous].filter((secret): secret is string => Boolean(secret));
  return {
    klaviyoAuthMethod: row.klaviyo_auth_method,
    klaviyoApiKey: row.klaviyo_auth_method === 'api_key' ? decryptColumn(cipher, row, 'klaviyo_api_key') : null,
    openaiApiKey: decryptColumn(cipher, row, 'openai_api_key')!,
    openaiModel: row.openai_model,
    shopify: {
      domain: row.shopify_domain,
      authMethod: row.shopify_auth_method,
      accessToken: row.shopify_auth_method === 'access_token' ? decryptColumn(cipher, row, 'shopify_access_token') : null,
      clientId: decryptColumn(cipher, row, 'shopify_client_id'),
      clientSecret: decryptColumn(cipher, row, 'shopify_client_secret'),
      signingSecrets: [...new Set(signingSecrets)],
    },
  };
}

/** The record as the browser may see it: every secret masked here, on the server. */
export async function readMaskedCredentials(db: Queryable, cipher: CredentialCipher, userId: string): Promise<MaskedCredentials | null> {
  const row = await findStoredCredentials(db, userId);
  return row ? toMaskedCredentials(cipher, row) : null;
}

export function toMaskedCredentials(cipher: CredentialCipher, row: StoredCredentialsRow): MaskedCredentials {
  const masked = (column: EncryptedColumn) => {
    try {
      return maskSecret(decryptColumn(cipher, row, column));
    } catch (error) {
      if (error instanceof CredentialDecryptionError) return credentialMessages.undecryptable;
      throw error;
    }
  };
  return {
    klaviyoAuthMethod: row.klaviyo_auth_method,
    klaviyoApiKey: masked('klaviyo_api_key'),
    openaiApiKey: masked('openai_api_key'),
    openaiModel: row.openai_model,
    shopifyDomain: row.shopify_domain,
    shopifyAuthMethod: row.shopify_auth_method,
    shopifyAccessToken: masked('shopify_access_token'),
    shopifyClientId: masked('shopify_client_id'),
    shopifyClientSecret: masked('shopify_client_secret'),
    shopifySigningSecret: masked('shopify_signing_secret'),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * Puts the stored values back where the form sent a secret unchanged in its masked form.
 * A masked value whose stored original cannot be decrypted must be entered again.
 */
export async function resolveUnchangedSecrets(
  db: Queryable,
  cipher: CredentialCipher,
  userId: string,
  submitted: Credentials,
): Promise<{ credentials: Credentials; fieldErrors: Partial<Record<CredentialField, string>> }> {
  const row = await findStoredCredentials(db, userId);
  const credentials = { ...submitted };
  const fieldErrors: Partial<Record<CredentialField, string>> = {};
  if (!row) return { credentials, fieldErrors };
  for (const field of secretFields) {
    const value = submitted[field];
    if (!value.includes('*')) continue;
    let stored: string | null;
    try {
      stored = decryptColumn(cipher, row, secretFieldColumns[field]);
    } catch (error) {
      if (!(error instanceof CredentialDecryptionError)) throw error;
      fieldErrors[field] = credentialValidationMessages.unresolvableMasked;
      continue;
    }
    if (isUnchangedMask(value, stored)) credentials[field] = stored;
  }
  return { credentials, fieldErrors };
}

/**
 * Stores checked credentials as the owner's one record, encrypted. When the webhook
 * signing secret changes, the old one is kept for an hour so webhooks Shopify signed
 * with it still verify.
 */
export async function saveCredentials(
  pool: pg.Pool,
  cipher: CredentialCipher,
  userId: string,
  saving: { credentials: Credentials; now: Date; obtainedShopifyToken: ObtainedShopifyToken | null },
): Promise<{ row: StoredCredentialsRow; created: boolean }> {
  const { credentials } = saving;
  return inTransaction(pool, async (client) => {
    const existing = await findStoredCredentials(client, userId, { forUpdate: true });
    const usesClientCredentials = credentials.shopifyAuthMethod === 'client_credentials';
    const usesKlaviyoKey = credentials.klaviyoAuthMethod === 'api_key';
    const newSigning = [credentials.shopifySigningSecret, usesClientCredentials ? credentials.shopifyClientSecret : ''].filter(Boolean);

    let previous: { encrypted: string | null; until: Date | null } = { encrypted: null, until: null };
    if (existing) {
      let oldSigning: string[] = [];
      try {
        oldSigning = currentSigningSecrets(cipher, existing);
      } catch (error) {
        // An old secret that no longer decrypts cannot verify anything; it is not kept.
        if (!(error instanceof CredentialDecryptionError)) throw error;
      }
      // One slot for the hour after a change: the first secret no longer current (the
      // entered key before the client secret, as it is listed first).
      const dropped = oldSigning.find((secret) => !newSigning.includes(secret));
      if (dropped) {
        previous = {
          encrypted: encryptColumn(cipher, userId, 'shopify_previous_signing_secret', dropped),
          until: new Date(saving.now.getTime() + PREVIOUS_SIGNING_SECRET_MS),
        };
      } else if (oldSigning.length > 0) {
        previous = { encrypted: existing.shopify_previous_signing_secret, until: existing.shopify_previous_signing_secret_until };
      }
    }

    const token = usesClientCredentials ? saving.obtainedShopifyToken : null;
    const encrypt = (column: EncryptedColumn, value: string | null) => encryptColumn(cipher, userId, column, value);
    return upsertStoredCredentials(
      client,
      userId,
      {
        klaviyo_auth_method: credentials.klaviyoAuthMethod,
        klaviyo_api_key: usesKlaviyoKey ? encrypt('klaviyo_api_key', credentials.klaviyoApiKey) : null,
        openai_api_key: encrypt('openai_api_key', credentials.openaiApiKey)!,
        openai_model: credentials.openaiModel,
        shopify_domain: credentials.shopifyDomain,
        shopify_auth_method: credentials.shopifyAuthMethod,
        shopify_access_token: credentials.shopifyAuthMethod === 'access_token' ? encrypt('shopify_access_token', credentials.shopifyAccessToken) : null,
        shopify_client_id: usesClientCredentials ? encrypt('shopify_client_id', credentials.shopifyClientId) : null,
        shopify_client_secret: usesClientCredentials ? encrypt('shopify_client_secret', credentials.shopifyClientSecret) : null,
        shopify_signing_secret: encrypt('shopify_signing_secret', credentials.shopifySigningSecret || null),
        shopify_previous_signing_secret: previous.encrypted,
        shopify_previous_signing_secret_until: previous.until,
        shopify_obtained_token: token ? encrypt('shopify_obtained_token', token.accessToken) : null,
        shopify_obtained_token_expires_at: token ? token.expiresAt : null,
      },
      saving.now,
    );
  });
}

const encryptionFailure = {
  roundTrip: 'The encryption round trip failed',
  stored: 'Stored credentials cannot be decrypted with the current key',
} as const;

/**
 * The real self-check behind the Encryption Warning (docs/product/specification.md §2): a
 * fresh value must encrypt to something else, decrypt back, and refuse to decrypt in
 * another context; and every value the owner has stored must decrypt with the current
 * key.
 */
export async function checkEncryption(
  db: Queryable,
  cipher: CredentialCipher,
  userId: string,
  /** Other values of the owner's that the same key protects (their OAuth tokens), checked as well. */
  othersDecrypt: (userId: string) => Promise<boolean> = async () => true,
): Promise<EncryptionCheck> {
  try {
    const probe = randomBytes(24).toString('base64');
    const encrypted = cipher.encrypt(probe, 'self-check');
    if (encrypted.includes(probe) || cipher.decrypt(encrypted, 'self-check') !== probe) return { working: false, error: encryptionFailure.roundTrip };
    let tamperRefused = false;
    try {
      cipher.decrypt(encrypted, 'self-check:other');
    } catch (error) {
      tamperRefused = error instanceof CredentialDecryptionError;
    }
    if (!tamperRefused) return { working: false, error: encryptionFailure.roundTrip };
  } catch {
    return { working: false, error: encryptionFailure.roundTrip };
  }
  const row = await findStoredCredentials(db, userId);
  if (row) {
    try {
      for (const column of encryptedColumns) decryptColumn(cipher, row, column);
    } catch (error) {
      if (error instanceof CredentialDecryptionError) return { working: false, error: encryptionFailure.stored };
      throw error;
    }
  }
  if (!(await othersDecrypt(userId))) return { working: false, error: encryptionFailure.stored };
  return { working: true, error: null };
}
