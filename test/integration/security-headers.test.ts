import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';
import { endpointAddress } from '../../src/shared/api/endpoint.ts';

// Every answer carries the security headers (helmet's, built once in app.ts), whatever
// route or outcome: pages, the API, a refused webhook, an unknown address.
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(async () => {
  await testApp?.close();
});

it.each([
  ['GET', endpointAddress(endpoints.account.session)],
  ['GET', '/api/no-such-route'],
  ['POST', '/api/webhooks/post_purchase/no-such-key'],
  ['GET', '/healthz'],
])('sets the security headers on %s %s', async (method, path) => {
  const response = await fetch(`${testApp.baseUrl}${path}`, { method, headers: method === 'POST' ? { 'content-type': 'application/json' } : {}, body: method === 'POST' ? '{}' : undefined });
  const policy = new Map(
    (response.headers.get('content-security-policy') ?? '').split(';').map((directive) => {
      const [name, ...sources] = directive.trim().split(/\s+/);
      return [name, sources.join(' ')];
    }),
  );
  expect(Object.fromEntries(policy)).toMatchObject({
    'default-src': "'self'",
    'script-src': "'self'",
    'style-src': "'self' 'unsafe-inline'",
    'img-src': "'self' data:",
    'connect-src': "'self'",
    'object-src': "'none'",
    'frame-ancestors': "'self'",
  });
  expect(policy.has('upgrade-insecure-requests')).toBe(false);
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
  expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  // PUBLIC_URL is http in tests: no HSTS, which would pin browsers to https.
  expect(response.headers.get('strict-transport-security')).toBeNull();
});
