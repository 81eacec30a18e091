import { afterEach, expect, it } from 'vitest';
import { verifyPassword } from 'better-auth/crypto';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { signUpAndVerify, strongPassword } from '../support/accounts.ts';
import { HttpClient } from '../support/http-client.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

// The product hashes passwords with better-auth's own scrypt; only test apps swap in the
// cheaper one (test/support/test-password-hashing.ts). Both must keep sign-up and sign-in
// working, and a test hash must never be what the product stores.
let testApp: TestApp | null = null;
afterEach(async () => {
  await testApp?.close();
  testApp = null;
});

async function storedHash(app: TestApp, email: string): Promise<string> {
  const { rows } = await app.database.pool.query<{ password: string }>(
    "SELECT a.password FROM accounts a JOIN users u ON u.id = a.user_id WHERE u.email = $1 AND a.provider_id = 'credential'",
    [email],
  );
  return rows[0]!.password;
}

async function signInStatus(app: TestApp, email: string, password: string): Promise<number> {
  const response = await new HttpClient(app.baseUrl).call(endpoints.account.signIn, { body: { email, password, rememberMe: false } });
  return response.status;
}

it('stores what better-auth itself hashes when the app is built as the product builds it', async () => {
  testApp = await startTestApp({ smtp: true, productPasswordHashing: true });
  const { email } = await signUpAndVerify(testApp);
  const hash = await storedHash(testApp, email);
  expect(hash.startsWith('test-scrypt')).toBe(false);
  expect(await verifyPassword({ hash, password: strongPassword })).toBe(true);
  expect(await verifyPassword({ hash, password: 'Wrong-password-1' })).toBe(false);
  expect(await signInStatus(testApp, email, strongPassword)).toBe(200);
});

it('signs up and in with the tests\' cheaper hashing, which the product would not accept', async () => {
  testApp = await startTestApp({ smtp: true });
  const { email } = await signUpAndVerify(testApp);
  const hash = await storedHash(testApp, email);
  expect(hash).toMatch(/^test-scrypt\$[0-9a-f]{32}\$[0-9a-f]{64}$/);
  await expect(verifyPassword({ hash, password: strongPassword })).rejects.toThrow('Invalid password hash');
  expect(await signInStatus(testApp, email, strongPassword)).toBe(200);
  expect(await signInStatus(testApp, email, 'Wrong-password-1')).toBe(401);
});
