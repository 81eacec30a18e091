import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { AppConfig } from '../config.ts';
import { loadOrCreateSecret } from './secrets.ts';

/**
 * Encryption of stored credentials (docs/decisions/0007-credential-encryption.md):
 * AES-256-GCM, a fresh 96-bit nonce per value, stored as `v1:` + base64(nonce |
 * ciphertext | tag). The value's context (its column and owner) is authenticated as
 * associated data, so a value copied into another row or column does not decrypt.
 */
export const CIPHER_VERSION = 'v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
export const CREDENTIALS_KEY_FILE = 'credentials-key';

/** A stored value that cannot be decrypted: wrong key, changed value or unknown format. */
export class CredentialDecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialDecryptionError';
  }
}

export interface CredentialCipher {
  encrypt(plaintext: string, context: string): string;
  /** Throws CredentialDecryptionError unless `stored` was encrypted by this key for this context. */
  decrypt(stored: string, context: string): string;
}

/** Reads a base64 key of exactly 32 bytes (the format of CREDENTIALS_KEY and the key file). */
export function parseCredentialsKey(base64: string): Buffer {
  const key = Buffer.from(base64.trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new Error(`A credentials key must be ${KEY_BYTES} bytes encoded as base64 (openssl rand -base64 32)`);
  return key;
}

export function createCredentialCipher(key: Buffer): CredentialCipher {
  if (key.length !== KEY_BYTES) throw new Error(`A credentials key must be ${KEY_BYTES} bytes`);
  // A private copy: the caller's buffer may be reused or zeroed.
  const secretKey = Buffer.from(key);
  return {
    encrypt(plaintext, context) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', secretKey, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `${CIPHER_VERSION}:${Buffer.concat([nonce, ciphertext, cipher.getAuthTag()]).toString('base64')}`;
    },
    decrypt(stored, context) {
      const separator = stored.indexOf(':');
      const version = separator === -1 ? '' : stored.slice(0, separator);
      if (version !== CIPHER_VERSION) throw new CredentialDecryptionError(`Unknown credential format "${version || 'none'}"`);
      const packed = Buffer.from(stored.slice(separator + 1), 'base64');
      if (packed.length < NONCE_BYTES + TAG_BYTES) throw new CredentialDecryptionError('Stored credential is truncated');
      const nonce = packed.subarray(0, NONCE_BYTES);
      const tag = packed.subarray(packed.length - TAG_BYTES);
      const ciphertext = packed.subarray(NONCE_BYTES, packed.length - TAG_BYTES);
      try {
        const decipher = createDecipheriv('aes-256-gcm', secretKey, nonce, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
      } catch {
        throw new CredentialDecryptionError('Stored credential failed authentication: the credentials key is wrong or the value was changed');
      }
    },
  };
}

/** The key to use: CREDENTIALS_KEY, or the one generated once into DATA_DIR (mode 0600). */
export async function loadCredentialsKey(config: Pick<AppConfig, 'credentialsKey' | 'dataDir'>): Promise<Buffer> {
  return parseCredentialsKey(config.credentialsKey ?? (await loadOrCreateSecret(config.dataDir, CREDENTIALS_KEY_FILE, KEY_BYTES)));
}

/** Made once at start and shared by the web routes and the engine. */
export async function loadCredentialCipher(config: Pick<AppConfig, 'credentialsKey' | 'dataDir'>): Promise<CredentialCipher> {
  return createCredentialCipher(await loadCredentialsKey(config));
}
