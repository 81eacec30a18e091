import type { BrowserContext } from 'playwright-core';
import { HttpClient } from './http-client.ts';
import { strongPassword, uniqueEmail } from './accounts.ts';
import type { E2EServer } from './e2e-server.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

export interface E2EUser {
  email: string;
  password: string;
  fullName: string;
  /** Signed in as the same user, for API calls beside the browser. */
  client: HttpClient;
}

/**
 * A verified, signed-in owner in `context` without clicking through the pages: sign-up
 * and the mailed verification link go through the API, then the session cookie is copied
 * into the browser. The server allows 10 sign-ups per minute from one address.
 */
export async function createSignedInUser(
  server: E2EServer,
  context: BrowserContext,
  options: { fullName?: string; email?: string } = {},
): Promise<E2EUser> {
  const fullName = options.fullName ?? 'Ada Owner';
  const email = options.email ?? uniqueEmail('e2e');
  const client = new HttpClient(server.baseUrl);
  const signUp = await withOverloadRetries(() => client.call(endpoints.account.signUp, { body: { fullName, email, password: strongPassword, confirmPassword: strongPassword } }));
  if (signUp.status !== 200) throw new Error(`sign-up failed: ${signUp.status} ${signUp.text}`);
  const mail = await server.smtp.waitForMail(email, 'Confirm your email');
  const token = new URLSearchParams(new URL(server.smtp.linkIn(mail, '/auth/verify')).hash.slice(1)).get('access_token');
  if (!token) throw new Error(`no access_token in the verification mail to ${email}`);
  const verified = await client.call(endpoints.account.verifyEmail, { body: { token } });
  if (verified.status !== 200) throw new Error(`verification failed: ${verified.status} ${verified.text}`);
  await copySessionCookies(client, context, server.baseUrl);
  return { email, password: strongPassword, fullName, client };
}

/**
 * Calls again, after the Retry-After the server gave, when it answered 503 "overloaded":
 * its load shedding turns requests away while its event loop lags by a second or more,
 * and a test's first request to a server just started on a busy machine met that once
 * (the server stalled while the suite's browser and other servers shared the two cores).
 * That answer asks any client to come back, as Shopify does; anything else is returned.
 */
async function withOverloadRetries<T extends { status: number; json: unknown }>(call: () => Promise<T>, tries = 3): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const answer = await call();
    const refusal = answer.json as { error?: unknown; retryAfterSeconds?: unknown } | undefined;
    if (answer.status !== 503 || refusal?.error !== 'overloaded' || attempt >= tries) return answer;
    const waitSeconds = typeof refusal.retryAfterSeconds === 'number' ? refusal.retryAfterSeconds : 1;
    await new Promise((resolve) => setTimeout(resolve, waitSeconds * 1_000));
  }
}

/** Gives the browser the session an HttpClient holds (same cookie attributes as the server sets). */
export async function copySessionCookies(client: HttpClient, context: BrowserContext, baseUrl: string): Promise<void> {
  const cookies = client
    .cookieHeader()
    .split('; ')
    .filter(Boolean)
    .map((pair) => {
      const index = pair.indexOf('=');
      return { name: pair.slice(0, index), value: pair.slice(index + 1), url: baseUrl, httpOnly: true, sameSite: 'Lax' as const };
    });
  if (!cookies.some((cookie) => cookie.name.includes('session_token'))) throw new Error('the client holds no session cookie to copy');
  await context.addCookies(cookies);
}
