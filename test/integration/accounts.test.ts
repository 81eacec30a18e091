import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { HttpClient } from '../support/http-client.ts';
import { signUpAndVerify, strongPassword, uniqueEmail } from '../support/accounts.ts';
import { authMessages, requestMessages, validationMessages } from '../../src/shared/messages.ts';
import { ADDRESS_LOCKOUT_ATTEMPTS } from '../../src/server/auth/login-lockout.ts';
import { LOGIN_LOCKOUT_ATTEMPTS } from '../../src/shared/constants.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';
import { endpointAddress } from '../../src/shared/api/endpoint.ts';

// As behind a reverse proxy on the same machine: the app trusts the loopback peer's
// X-Forwarded-For, so each test can sign in from client addresses of its own.
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp({ smtp: true, env: { TRUST_PROXY: 'loopback' } });
});
afterAll(async () => {
  await testApp?.close();
});

const client = () => new HttpClient(testApp.baseUrl);

let addressCounter = 0;
/** A client address no other test uses (TEST-NET-3), as the proxy names it. */
function newClientAddress(): Record<string, string> {
  addressCounter += 1;
  return { 'x-forwarded-for': `203.0.113.${addressCounter}` };
}

const wrongPassword = 'Wrong-password-1';

async function sessionRow(email: string) {
  const { rows } = await testApp.database.pool.query<{ expires_at: Date; created_at: Date }>(
    'SELECT s.expires_at, s.created_at FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = $1 ORDER BY s.created_at DESC LIMIT 1',
    [email],
  );
  return rows[0]!;
}

describe('sign-up validation (the server enforces docs/product/specification.md §5 with the same messages)', () => {
  it.each([
    [{ fullName: 'A' }, 'fullName', validationMessages.fullNameMin],
    [{ email: 'not-an-email' }, 'email', validationMessages.emailInvalid],
    [{ password: 'Ab1!', confirmPassword: 'Ab1!' }, 'password', validationMessages.passwordMin],
    [{ password: 'Abcdefgh!', confirmPassword: 'Abcdefgh!' }, 'password', validationMessages.passwordNumber],
    [{ password: 'Abcdefgh1', confirmPassword: 'Abcdefgh1' }, 'password', validationMessages.passwordSpecial],
    [{ confirmPassword: 'Something-else-1' }, 'confirmPassword', validationMessages.passwordsDontMatch],
  ])('%o gives its message on %s', async (override, field, message) => {
    const body = { fullName: 'Ada Owner', email: uniqueEmail(), password: strongPassword, confirmPassword: strongPassword, ...override };
    const response = await client().call(endpoints.account.signUp, { body });
    expect(response.status).toBe(400);
    expect(response.json.fieldErrors[field]).toBe(message);
  });

  it.each([
    { endpoint: endpoints.account.signIn, body: {} },
    { endpoint: endpoints.account.signIn, body: { email: uniqueEmail() } },
    { endpoint: endpoints.account.signIn, body: { password: strongPassword } },
    { endpoint: endpoints.account.signUp, body: { fullName: 'Ada Owner', password: strongPassword, confirmPassword: strongPassword } },
    { endpoint: endpoints.account.signUp, body: { fullName: 'Ada Owner', email: uniqueEmail(), confirmPassword: strongPassword } },
  ])("answers $endpoint.path without an email or a password with the specified message ($body)", async ({ endpoint, body }) => {
    const response = await client().call(endpoint, { body });
    expect(response.status).toBe(400);
    expect(response.json.message).toBe(validationMessages.emailOrPhoneRequired);
  });

  it("puts no validator wording in front of an owner: a field the schema gives no message for is named, with what to do", async () => {
    const response = await client().call(endpoints.account.signUp, { body: { fullName: 'Ada Owner', email: uniqueEmail(), password: strongPassword, confirmPassword: 42 } });
    expect(response.json.fieldErrors.confirmPassword).toBe(validationMessages.passwordsDontMatch);
    const owner = (await signUpAndVerify(testApp)).client;
    const flow = await owner.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: { isActive: 'yes', assistants: [] } });
    expect(flow.status).toBe(400);
    for (const message of [flow.json.message, ...Object.values(flow.json.fieldErrors as Record<string, string>)]) {
      expect(message).not.toMatch(/^(Invalid input|Too small|Too big|Invalid option)/);
    }
    expect(flow.json.fieldErrors.isActive).toBe(requestMessages.invalidField('isActive'));
  });

  it('refers to the required password on sign-in', async () => {
    const response = await client().call(endpoints.account.signIn, { body: { email: uniqueEmail(), password: '' } });
    expect(response.status).toBe(400);
    expect(response.json.fieldErrors.password).toBe(validationMessages.passwordRequired);
  });
});

describe('sign-up, verification and sessions', () => {
  it('mails a verification link whose token signs the new owner in', async () => {
    const { client: owner, email, fullName } = await signUpAndVerify(testApp, 'Grace Hopper');
    const session = await owner.call(endpoints.account.session);
    expect(session.status).toBe(200);
    expect(session.json.user).toMatchObject({ email, fullName });
  });

  it('refuses sign-in until the email is confirmed, and sends a fresh link', async () => {
    const email = uniqueEmail();
    await client().call(endpoints.account.signUp, { body: { fullName: 'Unconfirmed', email, password: strongPassword, confirmPassword: strongPassword } });
    await testApp.smtp.waitForMail(email, 'Confirm your email');
    const before = testApp.smtp.mails.filter((m) => m.to.includes(email)).length;
    const response = await client().call(endpoints.account.signIn, { body: { email, password: strongPassword } });
    expect(response.status).toBe(403);
    expect(response.json.message).toBe(authMessages.emailNotVerified);
    await expect.poll(() => testApp.smtp.mails.filter((m) => m.to.includes(email)).length).toBe(before + 1);
  });

  it('rejects a tampered verification token', async () => {
    const response = await client().call(endpoints.account.verifyEmail, { body: { token: 'eyJhbGciOiJIUzI1NiJ9.e30.bad' } });
    expect(response.status).toBe(400);
    expect(response.json.message).toBe(authMessages.verificationProblem);
  });

  it('keeps a session 1 day without Remember me and 30 days with it, in an httpOnly cookie', async () => {
    const { email } = await signUpAndVerify(testApp);
    const shortLived = client();
    const short = await shortLived.call(endpoints.account.signIn, { body: { email, password: strongPassword, rememberMe: false } });
    expect(short.status).toBe(200);
    const shortCookie = short.setCookies.find((c) => c.includes('session_token='))!;
    expect(shortCookie).toMatch(/HttpOnly/i);
    expect(shortCookie).toMatch(/SameSite=Lax/i);
    expect(shortCookie).not.toMatch(/Max-Age/i);
    let row = await sessionRow(email);
    expect((row.expires_at.getTime() - row.created_at.getTime()) / 1000).toBeCloseTo(86_400, -2);

    const remembered = await client().call(endpoints.account.signIn, { body: { email, password: strongPassword, rememberMe: true } });
    expect(remembered.status).toBe(200);
    expect(remembered.setCookies.find((c) => c.includes('session_token='))).toMatch(/Max-Age=2592000/);
    row = await sessionRow(email);
    expect((row.expires_at.getTime() - row.created_at.getTime()) / 1000).toBeCloseTo(2_592_000, -2);
  });

  it('signs out server-side: the old cookie no longer opens a session', async () => {
    const { client: owner } = await signUpAndVerify(testApp);
    const oldCookie = owner.cookieHeader();
    const out = await owner.call(endpoints.account.signOut);
    expect(out.status).toBe(200);
    expect(out.json.message).toBe(authMessages.loggedOut);
    const replay = await client().call(endpoints.account.session, {}, { cookie: oldCookie });
    expect(replay.status).toBe(401);
  });
});

describe('login lockout', () => {
  it('locks after 5 consecutive failures for 60 seconds, then resets', async () => {
    const { email } = await signUpAndVerify(testApp);
    // A client address of its own keeps the address count from touching other tests.
    const from = newClientAddress();
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      const response = await client().call(endpoints.account.signIn, { body: { email, password: 'Wrong-password-1' } }, from);
      expect(response.status).toBe(401);
      expect(response.json.message).toBe(authMessages.invalidCredentials);
    }
    const fifth = await client().call(endpoints.account.signIn, { body: { email, password: 'Wrong-password-1' } }, from);
    expect(fifth.status).toBe(429);
    expect(fifth.json.message).toBe(authMessages.lockout);
    expect(fifth.json.retryAfterSeconds).toBe(60);

    // Even the right password is refused while locked.
    const locked = await client().call(endpoints.account.signIn, { body: { email, password: strongPassword } }, from);
    expect(locked.status).toBe(429);

    testApp.clock.advance(59_000);
    expect((await client().call(endpoints.account.signIn, { body: { email, password: strongPassword } }, from)).status).toBe(429);

    testApp.clock.advance(1_500);
    const released = await client().call(endpoints.account.signIn, { body: { email, password: strongPassword } }, from);
    expect(released.status).toBe(200);

    // The success reset the account's count: four more failures do not lock.
    const elsewhere = newClientAddress();
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      expect((await client().call(endpoints.account.signIn, { body: { email, password: 'Wrong-password-1' } }, elsewhere)).status).toBe(401);
    }
    expect((await client().call(endpoints.account.signIn, { body: { email, password: strongPassword } }, elsewhere)).status).toBe(200);
  });

  it('locks an unknown email the same way, revealing nothing', async () => {
    const email = uniqueEmail('ghost');
    const from = newClientAddress();
    const statuses: number[] = [];
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      statuses.push((await client().call(endpoints.account.signIn, { body: { email, password: 'Wrong-password-1' } }, from)).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    testApp.clock.advance(61_000);
  });
});

describe('login lockout behind a proxy: per account and per client address', () => {
  const signIn = (email: string, password: string, from: Record<string, string>) => client().call(endpoints.account.signIn, { body: { email, password } }, from);

  it("locks the account whose password was guessed, from every address, and no other owner", async () => {
    const ada = await signUpAndVerify(testApp, 'Ada Owner');
    const bob = await signUpAndVerify(testApp, 'Bob Owner');
    const [address1, address2] = [newClientAddress(), newClientAddress()];

    for (let attempt = 1; attempt < LOGIN_LOCKOUT_ATTEMPTS; attempt += 1) expect((await signIn(ada.email, wrongPassword, address1)).status).toBe(401);
    const locking = await signIn(ada.email, wrongPassword, address1);
    expect(locking.status).toBe(429);
    expect(locking.json.message).toBe(authMessages.lockout);

    // Bob is not locked out: not from his own address, nor from the one Ada's guesses came from.
    expect((await signIn(bob.email, strongPassword, address2)).status).toBe(200);
    expect((await signIn(bob.email, strongPassword, address1)).status).toBe(200);
    // Ada's account is locked wherever she tries from, as the specified lock is the
    // account's (docs/product/specification.md §4).
    const adaElsewhere = await signIn(ada.email, strongPassword, address2);
    expect(adaElsewhere.status).toBe(429);
    expect(adaElsewhere.json.message).toBe(authMessages.lockout);

    testApp.clock.advance(61_000);
    expect((await signIn(ada.email, strongPassword, address2)).status).toBe(200);
  });

  it('limits one address failing across many accounts, without locking out owners at other addresses', async () => {
    const carol = await signUpAndVerify(testApp, 'Carol Owner');
    const mallory = await signUpAndVerify(testApp, 'Mallory Owner');
    const [attacker, carolsAddress] = [newClientAddress(), newClientAddress()];

    // One guess per account stays under every account's lock; signing in to an account
    // of one's own in between does not start the address's count again.
    const statuses: number[] = [];
    for (let attempt = 1; attempt <= ADDRESS_LOCKOUT_ATTEMPTS; attempt += 1) {
      statuses.push((await signIn(uniqueEmail('sprayed'), wrongPassword, attacker)).status);
      if (attempt === ADDRESS_LOCKOUT_ATTEMPTS / 2) expect((await signIn(mallory.email, strongPassword, attacker)).status).toBe(200);
    }
    expect(statuses).toEqual([...Array<number>(ADDRESS_LOCKOUT_ATTEMPTS - 1).fill(401), 429]);

    // That address is locked for every account; Carol at her own address is not.
    const fromAttacker = await signIn(carol.email, strongPassword, attacker);
    expect(fromAttacker.status).toBe(429);
    expect(fromAttacker.json.message).toBe(authMessages.lockout);
    expect((await signIn(carol.email, strongPassword, carolsAddress)).status).toBe(200);

    testApp.clock.advance(61_000);
    expect((await signIn(carol.email, strongPassword, attacker)).status).toBe(200);
  });

  it('starts an address count again after 15 quiet minutes', async () => {
    const from = newClientAddress();
    for (let attempt = 1; attempt < ADDRESS_LOCKOUT_ATTEMPTS; attempt += 1) expect((await signIn(uniqueEmail('slow'), wrongPassword, from)).status).toBe(401);
    testApp.clock.advance(15 * 60_000 + 1_000);
    expect((await signIn(uniqueEmail('slow'), wrongPassword, from)).status).toBe(401);
  });

  it('counts an IPv6 client by its /64, which one subscriber can fill with addresses', async () => {
    const statuses: number[] = [];
    for (let attempt = 1; attempt <= ADDRESS_LOCKOUT_ATTEMPTS; attempt += 1) {
      statuses.push((await signIn(uniqueEmail('v6'), wrongPassword, { 'x-forwarded-for': `2001:db8:77:1::${attempt.toString(16)}` })).status);
    }
    expect(statuses.at(-1)).toBe(429);
    expect((await signIn(uniqueEmail('v6'), wrongPassword, { 'x-forwarded-for': '2001:db8:77:2::1' })).status).toBe(401);
    testApp.clock.advance(61_000);
  });

  it('ignores X-Forwarded-For when TRUST_PROXY is not set: every request counts as its socket address', async () => {
    const direct = await startTestApp({ smtp: true });
    try {
      const statuses: number[] = [];
      for (let attempt = 1; attempt <= ADDRESS_LOCKOUT_ATTEMPTS; attempt += 1) {
        const response = await new HttpClient(direct.baseUrl).call(
          endpoints.account.signIn,
          { body: { email: uniqueEmail('direct'), password: wrongPassword } },
          { 'x-forwarded-for': `198.51.100.${attempt}` },
        );
        statuses.push(response.status);
      }
      expect(statuses.at(-1)).toBe(429);
    } finally {
      await direct.close();
    }
  });
});

describe('no account enumeration', () => {
  it('answers sign-up identically for a known and an unknown email, and tells the owner by mail', async () => {
    const { email } = await signUpAndVerify(testApp);
    const known = await client().call(endpoints.account.signUp, { body: { fullName: 'Someone Else', email, password: strongPassword, confirmPassword: strongPassword } });
    const unknown = await client().call(endpoints.account.signUp, { body: { fullName: 'Someone Else', email: uniqueEmail(), password: strongPassword, confirmPassword: strongPassword } });
    expect(known.status).toBe(unknown.status);
    expect(known.json).toEqual(unknown.json);
    await testApp.smtp.waitForMail(email, 'already have a Flowsmith account');
  });

  it('answers forgot-password identically for a known and an unknown email', async () => {
    const { email } = await signUpAndVerify(testApp);
    const known = await client().call(endpoints.account.forgotPassword, { body: { email } });
    const unknown = await client().call(endpoints.account.forgotPassword, { body: { email: uniqueEmail('nobody') } });
    expect(known.status).toBe(200);
    expect(known.json).toEqual(unknown.json);
    expect(known.json.message).toBe(authMessages.resetSent);
  });

  it('gives the same answer for an unknown email and a wrong password at sign-in', async () => {
    const { email } = await signUpAndVerify(testApp);
    const wrongPassword = await client().call(endpoints.account.signIn, { body: { email, password: 'Wrong-password-1' } });
    const unknownEmail = await client().call(endpoints.account.signIn, { body: { email: uniqueEmail('nobody'), password: 'Wrong-password-1' } });
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.json).toEqual(wrongPassword.json);
  });
});

describe('password recovery', () => {
  it('resets through the mailed link, signs the owner in and ends older sessions', async () => {
    const { client: oldSession, email } = await signUpAndVerify(testApp);
    const forgot = await client().call(endpoints.account.forgotPassword, { body: { email } });
    expect(forgot.status).toBe(200);
    const mail = await testApp.smtp.waitForMail(email, 'Reset your Flowsmith password');
    const link = testApp.smtp.linkIn(mail, '/auth/reset-password');
    const token = new URLSearchParams(new URL(link).hash.slice(1)).get('access_token')!;

    const weak = await client().call(endpoints.account.resetPassword, { body: { token, password: 'short', confirmPassword: 'short' } });
    expect(weak.status).toBe(400);
    expect(weak.json.fieldErrors.password).toBe(validationMessages.passwordMin);

    const resetter = client();
    const reset = await resetter.call(endpoints.account.resetPassword, { body: { token, password: 'New-password-77', confirmPassword: 'New-password-77' } });
    expect(reset.status).toBe(200);
    expect((await resetter.call(endpoints.account.session)).status).toBe(200);
    expect((await oldSession.call(endpoints.account.session)).status).toBe(401);
    expect((await client().call(endpoints.account.signIn, { body: { email, password: 'New-password-77' } })).status).toBe(200);
    expect((await client().call(endpoints.account.signIn, { body: { email, password: strongPassword } })).status).toBe(401);

    const reused = await client().call(endpoints.account.resetPassword, { body: { token, password: 'Other-password-88', confirmPassword: 'Other-password-88' } });
    expect(reused.status).toBe(400);
    expect(reused.json.message).toBe(authMessages.invalidResetLink);
  });
});

describe('bad requests and boundaries', () => {
  it('answers malformed JSON with 400 and a clear message', async () => {
    const response = await client().post(endpointAddress(endpoints.account.signIn), '{"email": ', { 'content-type': 'application/json' });
    expect(response.status).toBe(400);
    expect(response.json.message).toBe('The request body is not valid JSON.');
  });

  it('answers an oversized body with 413', async () => {
    const response = await client().post(endpointAddress(endpoints.account.signIn), JSON.stringify({ email: 'a@b.co', password: 'x'.repeat(1_100_000) }));
    expect(response.status).toBe(413);
  });

  it('refuses a state-changing request from another origin (CSRF)', async () => {
    const response = await client().call(endpoints.account.signOut, {}, { origin: 'https://evil.example' });
    expect(response.status).toBe(403);
  });

  it('redirects / and unknown pages to /dashboard, and 404s unknown API paths', async () => {
    expect((await client().get('/')).headers.get('location')).toBe('/dashboard');
    expect((await client().get('/no/such/page')).headers.get('location')).toBe('/dashboard');
    expect((await client().get('/api/no-such-thing')).status).toBe(404); // not in the endpoint table, on purpose
  });

  it('answers an anonymous request to a signed-in route with 401, before judging its body', async () => {
    const response = await client().call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: { assistants: 'not a list' } });
    expect(response.status).toBe(401);
  });

  it('reports liveness and readiness as JSON', async () => {
    expect((await client().get('/healthz')).json).toEqual({ status: 'ok' });
    expect((await client().get('/readyz')).json).toMatchObject({ status: 'ok' });
  });

  it('never writes passwords, tokens or session ids to the log', async () => {
    const { client: owner, email } = await signUpAndVerify(testApp);
    await owner.call(endpoints.account.forgotPassword, { body: { email } });
    const mail = await testApp.smtp.waitForMail(email, 'Reset your Flowsmith password');
    const resetToken = new URLSearchParams(new URL(testApp.smtp.linkIn(mail, '/auth/reset-password')).hash.slice(1)).get('access_token')!;
    const sessionToken = owner.cookieHeader().split('=')[1]!.split('.')[0]!;
    const log = testApp.logLines.join('\n');
    expect(log.length).toBeGreaterThan(0);
    expect(log).not.toContain(strongPassword);
    expect(log).not.toContain(resetToken);
    expect(log).not.toContain(sessionToken);
    expect(log).not.toContain('test-secret-that-is-long-enough');
  });
});

describe('rate limits on account requests', () => {
  it('counts each client address apart behind a proxy, and ignores X-Forwarded-For without TRUST_PROXY', async () => {
    const behindProxy = await startTestApp({ smtp: true, accountRateLimitPerMinute: 2, env: { TRUST_PROXY: '127.0.0.1' } });
    const direct = await startTestApp({ smtp: true, accountRateLimitPerMinute: 2 });
    try {
      const forgot = (app: TestApp, address: string) =>
        new HttpClient(app.baseUrl).call(endpoints.account.forgotPassword, { body: { email: uniqueEmail() } }, { 'x-forwarded-for': address });
      expect([(await forgot(behindProxy, '192.0.2.1')).status, (await forgot(behindProxy, '192.0.2.1')).status]).toEqual([200, 200]);
      expect((await forgot(behindProxy, '192.0.2.1')).status).toBe(429);
      expect((await forgot(behindProxy, '192.0.2.2')).status).toBe(200);

      expect([(await forgot(direct, '192.0.2.1')).status, (await forgot(direct, '192.0.2.2')).status]).toEqual([200, 200]);
      const third = await forgot(direct, '192.0.2.3');
      expect(third.status).toBe(429);
      expect(third.json.message).toBe('Rate limit exceeded');
    } finally {
      await behindProxy.close();
      await direct.close();
    }
  });

  it('answers the 11th reset request from one address within a minute with 429 "Rate limit exceeded"', async () => {
    const limitedApp = await startTestApp({ smtp: true, accountRateLimitPerMinute: 10 });
    try {
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 11; attempt += 1) {
        const response = await new HttpClient(limitedApp.baseUrl).call(endpoints.account.forgotPassword, { body: { email: uniqueEmail() } });
        statuses.push(response.status);
        if (response.status === 429) expect(response.json.message).toBe('Rate limit exceeded');
      }
      expect(statuses.slice(0, 10).every((status) => status === 200)).toBe(true);
      expect(statuses[10]).toBe(429);
    } finally {
      await limitedApp.close();
    }
  });
});
