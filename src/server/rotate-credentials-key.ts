import { randomBytes } from 'node:crypto';
import { chmod, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from './config.ts';
import { openDatabase } from './database/database.ts';
import { storedFunctions } from './stored-functions.ts';
import { CREDENTIALS_KEY_FILE, createCredentialCipher, parseCredentialsKey } from './platform/credential-cipher.ts';
import { rotateCredentialsKey } from './credentials/credential-key-rotation.ts';
import { reencryptConnectionTokens } from './connections/connection-key-rotation.ts';

/**
 * `npm run credentials:rotate`: moves every stored credential to a new key
 * (docs/decisions/0007-credential-encryption.md). Stop Flowsmith first: a running
 * process would keep encrypting with the old key.
 *
 * Old key: CREDENTIALS_KEY, else the key file in DATA_DIR. New key: NEW_CREDENTIALS_KEY,
 * else a freshly generated one. With the key file, the new key replaces it (the old one
 * is kept beside it as credentials-key.previous); with CREDENTIALS_KEY, the operator is
 * told what to set.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const keyFile = path.join(config.dataDir, CREDENTIALS_KEY_FILE);
  const usesKeyFile = !config.credentialsKey;
  let oldKeyText: string;
  try {
    oldKeyText = config.credentialsKey ?? (await readFile(keyFile, 'utf8'));
  } catch {
    throw new Error(`No current key: CREDENTIALS_KEY is not set and ${keyFile} does not exist. Nothing was changed.`);
  }
  const oldKey = parseCredentialsKey(oldKeyText);
  const newKeyText = process.env.NEW_CREDENTIALS_KEY?.trim() || randomBytes(32).toString('base64');
  const newKey = parseCredentialsKey(newKeyText);
  if (newKey.equals(oldKey)) throw new Error('NEW_CREDENTIALS_KEY is the current key. Nothing was changed.');

  // With the key file, the new key is on disk before the database changes, so that no
  // moment exists where the stored values match a key nobody has.
  const pendingFile = `${keyFile}.new`;
  if (usesKeyFile) {
    await writeFile(pendingFile, `${newKeyText}\n`, { mode: 0o600 });
    await chmod(pendingFile, 0o600);
  }
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2, storedFunctions });
  let result;
  try {
    result = await rotateCredentialsKey(database.pool, createCredentialCipher(oldKey), createCredentialCipher(newKey), [reencryptConnectionTokens]);
  } catch (error) {
    if (usesKeyFile) await rm(pendingFile, { force: true });
    throw new Error(`${(error as Error).message}. No stored value was changed.`, { cause: error });
  } finally {
    await database.close();
  }
  process.stdout.write(
    `Re-encrypted ${result.values} values of ${result.records} credential records and ${result.flowSecrets} flow signing secrets with the new key.\n`,
  );
  if (usesKeyFile) {
    try {
      await rename(keyFile, `${keyFile}.previous`);
      await rename(pendingFile, keyFile);
    } catch (error) {
      throw new Error(
        `The stored values now use the new key, but it could not be moved into place (${(error as Error).message}). ` +
          `Move ${pendingFile} to ${keyFile} by hand before starting Flowsmith.`,
        { cause: error },
      );
    }
    process.stdout.write(
      `The new key is in ${keyFile}; the old one was moved to ${keyFile}.previous.\n` +
        'Start Flowsmith again, check that API settings show no Encryption Warning, then delete the .previous file.\n',
    );
  } else {
    process.stdout.write(
      'Now set CREDENTIALS_KEY to the new key below in every Flowsmith process (web and worker) and start them again:\n' +
        `CREDENTIALS_KEY=${newKeyText}\n`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`Key rotation failed: ${(error as Error).message}\n`);
  process.exit(1);
});
