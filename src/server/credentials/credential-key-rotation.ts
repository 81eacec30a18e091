import type pg from 'pg';
import { inTransaction } from '../database/database.ts';
import type { CredentialCipher } from './credential-cipher.ts';
import { encryptedColumns, encryptionContext } from './credential-queries.ts';
import { reencryptFlowSigningSecrets } from '../flows/flow-signature-queries.ts';

/**
 * Re-encrypts every stored credential (and every flow's signing secret, which the same
 * key protects) from the old key to the new one, in one transaction: either every value
 * moves or none does. A value the old key cannot
 * decrypt stops the rotation (CredentialDecryptionError) rather than being lost.
 */
export async function rotateCredentialsKey(pool: pg.Pool, oldCipher: CredentialCipher, newCipher: CredentialCipher): Promise<{ records: number; values: number; flowSecrets: number }> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<Record<string, string | null> & { user_id: string }>(
      `SELECT user_id, ${encryptedColumns.join(', ')} FROM api_credentials ORDER BY user_id FOR UPDATE`,
    );
    let values = 0;
    for (const row of rows) {
      const updated = encryptedColumns.map((column) => {
        const stored = row[column];
        if (stored === null || stored === undefined) return null;
        const context = encryptionContext(column, row.user_id);
        values += 1;
        return newCipher.encrypt(oldCipher.decrypt(stored, context), context);
      });
      await client.query(
        `UPDATE api_credentials SET ${encryptedColumns.map((column, index) => `${column} = $${index + 2}`).join(', ')} WHERE user_id = $1`,
        [row.user_id, ...updated],
      );
    }
    const flowSecrets = await reencryptFlowSigningSecrets(client, oldCipher, newCipher);
    return { records: rows.length, values, flowSecrets };
  });
}
