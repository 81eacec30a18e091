import type pg from 'pg';
import { inTransaction } from '../database/database.ts';
import type { CredentialCipher } from '../platform/credential-cipher.ts';
import { encryptedColumns, encryptionContext, lockAllEncryptedValues, replaceEncryptedValues, type EncryptedValues } from './credential-queries.ts';
import { reencryptFlowSigningSecrets } from '../flows/flow-signature-queries.ts';

/**
 * Re-encrypts every stored credential (and every flow's signing secret, which the same
 * key protects) from the old key to the new one, in one transaction: either every value
 * moves or none does. A value the old key cannot
 * decrypt stops the rotation (CredentialDecryptionError) rather than being lost.
 */
export async function rotateCredentialsKey(
  pool: pg.Pool,
  oldCipher: CredentialCipher,
  newCipher: CredentialCipher,
  /** Other values the same key protects (the OAuth tokens), moved in the same transaction; each returns how many it moved. */
  alsoMove: Array<(client: pg.PoolClient, oldCipher: CredentialCipher, newCipher: CredentialCipher) => Promise<number>> = [],
): Promise<{ records: number; values: number; flowSecrets: number }> {
  return inTransaction(pool, async (client) => {
    const records = await lockAllEncryptedValues(client);
    let values = 0;
    for (const { userId, values: stored } of records) {
      const updated = Object.fromEntries(
        encryptedColumns.map((column) => {
          const value = stored[column];
          if (value === null) return [column, null];
          const context = encryptionContext(column, userId);
          values += 1;
          return [column, newCipher.encrypt(oldCipher.decrypt(value, context), context)];
        }),
      ) as EncryptedValues;
      await replaceEncryptedValues(client, userId, updated);
    }
    const flowSecrets = await reencryptFlowSigningSecrets(client, oldCipher, newCipher);
    for (const move of alsoMove) values += await move(client, oldCipher, newCipher);
    return { records: records.length, values, flowSecrets };
  });
}
