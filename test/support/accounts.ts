import { HttpClient } from './http-client.ts';
import type { TestApp } from './test-app.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

export const strongPassword = 'Garden-path-42';

let counter = 0;
export function uniqueEmail(prefix = 'owner'): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}@shop.example`;
}

/** Registers through the API and follows the mailed verification link: a signed-in client. */
export async function signUpAndVerify(testApp: TestApp, fullName = 'Ada Owner', email = uniqueEmail()) {
  const client = new HttpClient(testApp.baseUrl);
  const signUp = await client.call(endpoints.account.signUp, { body: { fullName, email, password: strongPassword, confirmPassword: strongPassword } });
  if (signUp.status !== 200) throw new Error(`sign-up failed: ${signUp.status} ${signUp.text}`);
  const mail = await testApp.smtp.waitForMail(email, 'Confirm your email');
  const link = testApp.smtp.linkIn(mail, '/auth/verify');
  const token = new URLSearchParams(new URL(link).hash.slice(1)).get('access_token')!;
  const verified = await client.call(endpoints.account.verifyEmail, { body: { token } });
  if (verified.status !== 200) throw new Error(`verification failed: ${verified.status} ${verified.text}`);
  return { client, email, password: strongPassword, fullName };
}
