import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CredentialDecryptionError, createCredentialCipher, parseCredentialsKey } from '../../src/server/platform/credential-cipher.ts';

const key = () => randomBytes(32);

describe('credential encryption (AES-256-GCM, versioned)', () => {
  it('round-trips a value and stores it as v1: + base64, with a fresh nonce each time', () => {
    const cipher = createCredentialCipher(key());
    const secret = 'sk-proj-secret-value-ü-✓';
    const first = cipher.encrypt(secret, 'ctx');
    const second = cipher.encrypt(secret, 'ctx');
    expect(first).toMatch(/^v1:[A-Za-z0-9+/]+=*$/);
    expect(first).not.toContain(secret);
    expect(first).not.toBe(second);
    expect(cipher.decrypt(first, 'ctx')).toBe(secret);
    expect(cipher.decrypt(second, 'ctx')).toBe(secret);
    // 12-byte nonce + ciphertext + 16-byte tag.
    expect(Buffer.from(first.slice(3), 'base64')).toHaveLength(12 + Buffer.byteLength(secret) + 16);
  });

  it('fails loudly on a tampered value, whichever byte changed', () => {
    const cipher = createCredentialCipher(key());
    const stored = cipher.encrypt('pk_live_123456789', 'ctx');
    const bytes = Buffer.from(stored.slice(3), 'base64');
    for (const index of [0, 12, bytes.length - 1]) {
      const tampered = Buffer.from(bytes);
      tampered[index] = tampered[index]! ^ 0x01;
      expect(() => cipher.decrypt(`v1:${tampered.toString('base64')}`, 'ctx')).toThrow(CredentialDecryptionError);
    }
    expect(() => cipher.decrypt('v1:AAAA', 'ctx')).toThrow(CredentialDecryptionError);
    expect(() => cipher.decrypt('pk_live_plaintext', 'ctx')).toThrow(CredentialDecryptionError);
    expect(() => cipher.decrypt(stored.replace(/^v1:/, 'v9:'), 'ctx')).toThrow(/Unknown credential format "v9"/);
  });

  it('fails loudly with a wrong key', () => {
    const stored = createCredentialCipher(key()).encrypt('shpat_abc', 'ctx');
    expect(() => createCredentialCipher(key()).decrypt(stored, 'ctx')).toThrow(CredentialDecryptionError);
  });

  it('binds a value to its context: copied to another owner or column it does not decrypt', () => {
    const cipher = createCredentialCipher(key());
    const stored = cipher.encrypt('shpat_abc', 'api_credentials.shopify_access_token:user-1');
    expect(() => cipher.decrypt(stored, 'api_credentials.shopify_access_token:user-2')).toThrow(CredentialDecryptionError);
    expect(() => cipher.decrypt(stored, 'api_credentials.klaviyo_api_key:user-1')).toThrow(CredentialDecryptionError);
  });

  it('rotates: a value re-encrypted under a new key decrypts with it and no longer with the old one', () => {
    const oldCipher = createCredentialCipher(key());
    const newCipher = createCredentialCipher(key());
    const stored = oldCipher.encrypt('sk-rotate-me', 'ctx');
    const rotated = newCipher.encrypt(oldCipher.decrypt(stored, 'ctx'), 'ctx');
    expect(newCipher.decrypt(rotated, 'ctx')).toBe('sk-rotate-me');
    expect(() => oldCipher.decrypt(rotated, 'ctx')).toThrow(CredentialDecryptionError);
    expect(() => newCipher.decrypt(stored, 'ctx')).toThrow(CredentialDecryptionError);
  });

  it('accepts only 32-byte base64 keys', () => {
    expect(parseCredentialsKey(randomBytes(32).toString('base64'))).toHaveLength(32);
    expect(() => parseCredentialsKey(randomBytes(16).toString('base64'))).toThrow(/32 bytes/);
    expect(() => createCredentialCipher(randomBytes(31))).toThrow(/32 bytes/);
  });
});
