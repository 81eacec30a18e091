import { mkdir, readFile, writeFile, chmod } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

/**
 * Returns the secret stored in `dataDir/fileName`, creating it (mode 0600) on first use.
 * Lets a fresh install run with no configuration while keeping sessions and encrypted
 * credentials valid across restarts.
 */
export async function loadOrCreateSecret(dataDir: string, fileName: string, bytes = 32): Promise<string> {
  const file = path.join(dataDir, fileName);
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(bytes).toString('base64');
  try {
    // 'wx' fails if another process created it first; then read theirs.
    await writeFile(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    await chmod(file, 0o600);
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return (await readFile(file, 'utf8')).trim();
  }
}
