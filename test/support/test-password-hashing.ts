import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { PasswordHashing } from '../../src/server/auth/auth-library.ts';

/**
 * The in-process test apps' password hashing: scrypt at a sixteenth of the product's
 * memory and work (N=1024, r=8 against N=16384, r=16), about 2 ms instead of a quarter of
 * a second. A whole test run signs up and in some hundreds of times, and each product hash
 * kept a core busy while other tests waited on it (docs/decisions/0060-cheaper-password-hashing-in-tests.md).
 * Its hashes carry their own prefix, so one can never pass for the product's.
 */
const parameters: ScryptOptions = { N: 1024, r: 8, p: 1 };
const prefix = 'test-scrypt';

function derive(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, 32, parameters, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export const testPasswordHashing: PasswordHashing = {
  async hash(password) {
    const salt = randomBytes(16);
    return `${prefix}$${salt.toString('hex')}$${(await derive(password, salt)).toString('hex')}`;
  },
  async verify({ hash, password }) {
    const [kind, salt, key] = hash.split('$');
    if (kind !== prefix || !salt || !key) return false;
    const expected = Buffer.from(key, 'hex');
    const actual = await derive(password, Buffer.from(salt, 'hex'));
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  },
};
