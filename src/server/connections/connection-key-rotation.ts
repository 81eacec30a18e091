import type pg from 'pg';
import { CredentialDecryptionError, type CredentialCipher } from '../platform/credential-cipher.ts';
import type { Queryable } from '../database/database.ts';
import { findStoredTokens, lockConnectionTokens, replaceConnectionTokens, type ConnectionTable } from './connection-token-queries.ts';
import { forgetAllOAuthStates } from './oauth-state-queries.ts';
import { tokenContext } from './token-renewal.ts';

const tables: ConnectionTable[] = ['shopify_installations', 'klaviyo_connections'];

/**
 * Moves the OAuth tokens to a new credentials key, inside the key rotation's transaction
 * (credentials/credential-key-rotation.ts). Connections begun and not finished are
 * dropped rather than moved.
 */
export async function reencryptConnectionTokens(client: pg.PoolClient, oldCipher: CredentialCipher, newCipher: CredentialCipher): Promise<number> {
  let values = 0;
  for (const table of tables) {
    for (const row of await lockConnectionTokens(client, table)) {
      const move = (column: 'access_token' | 'refresh_token') => {
        const stored = row[column];
        if (stored === null) return null;
        values += 1;
        const context = tokenContext(table, column, row.user_id);
        return newCipher.encrypt(oldCipher.decrypt(stored, context), context);
      };
      await replaceConnectionTokens(client, table, row.user_id, { accessToken: move('access_token'), refreshToken: move('refresh_token') });
    }
  }
  await forgetAllOAuthStates(client);
  return values;
}

/**
 * Whether the owner's OAuth tokens decrypt with the current key: part of the Encryption
 * Warning's self-check, as a token that does not decrypt stops every renewal.
 */
export async function connectionTokensDecrypt(db: Queryable, cipher: CredentialCipher, userId: string): Promise<boolean> {
  for (const table of tables) {
    const row = await findStoredTokens(db, table, userId);
    try {
      if (row?.access_token) cipher.decrypt(row.access_token, tokenContext(table, 'access_token', userId));
      if (row?.refresh_token) cipher.decrypt(row.refresh_token, tokenContext(table, 'refresh_token', userId));
    } catch (error) {
      if (error instanceof CredentialDecryptionError) return false;
      throw error;
    }
  }
  return true;
}
