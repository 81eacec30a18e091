import type pg from 'pg';
import type { CredentialCipher } from '../credentials/credential-cipher.ts';
import { lockConnectionTokens, replaceConnectionTokens, type ConnectionTable } from './connection-token-queries.ts';
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
