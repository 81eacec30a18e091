import { createHmac } from 'node:crypto';
import { HttpClient } from './http-client.ts';
import { strongPassword, uniqueEmail } from './accounts.ts';
import type { TestApp } from './test-app.ts';

export interface BuiltOwner {
  client: HttpClient;
  userId: string;
  email: string;
  password: string;
  fullName: string;
}

/** One hash of the shared test password for each way of hashing, reused by every owner built with it. */
const passwordHashes = new WeakMap<(password: string) => Promise<string>, Promise<string>>();

/**
 * A verified owner with a session, written through the auth library's own adapter, as if
 * sign-up, the mailed link and sign-in had happened: for tests about what comes after
 * sign-up, which should neither wait for a mail nor break when sign-up changes. Sign-up's
 * own tests go through sign-up (accounts.ts's `signUpAndVerify`). The owner can still
 * sign in with `strongPassword`. Its client asks through `inject` (http-client.ts); a
 * test about the socket itself makes its own with `new HttpClient(baseUrl)`.
 */
export async function insertSignedInOwner(
  testApp: Pick<TestApp, 'app' | 'baseUrl'>,
  options: { fullName?: string; email?: string } = {},
): Promise<BuiltOwner> {
  const context = await testApp.app.auth.$context;
  const fullName = options.fullName ?? 'Ada Owner';
  const email = (options.email ?? uniqueEmail()).toLowerCase();
  const hash = context.password.hash;
  const passwordHash = passwordHashes.get(hash) ?? hash(strongPassword);
  passwordHashes.set(hash, passwordHash);
  const user = await context.internalAdapter.createUser({ email, name: fullName, emailVerified: true });
  await context.internalAdapter.linkAccount({ userId: user.id, providerId: 'credential', accountId: user.id, password: await passwordHash });
  const session = await context.internalAdapter.createSession(user.id);
  const client = new HttpClient(testApp.baseUrl, { inject: testApp.app });
  // The cookie as better-auth signs it (better-call's signCookieValue): token, a dot and
  // the token's HMAC-SHA256 under the auth secret in base64, URI-encoded.
  const signature = createHmac('sha256', context.secret).update(session.token).digest('base64');
  client.setCookie(context.authCookies.sessionToken.name, encodeURIComponent(`${session.token}.${signature}`));
  return { client, userId: user.id, email, password: strongPassword, fullName };
}
