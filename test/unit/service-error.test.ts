import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeForStatus, ServiceError, withoutSecret } from '../../src/server/integrations/service-error.ts';
import { createResponse } from '../../src/server/integrations/openai/openai-responses.ts';
import { importProfile } from '../../src/server/integrations/klaviyo/klaviyo-profiles.ts';
import { checkKlaviyoKey } from '../../src/server/integrations/klaviyo/klaviyo-accounts.ts';

describe('classification by status', () => {
  const classified = (status: number) => {
    const error = new ServiceError('klaviyo', codeForStatus(status), `answered HTTP ${status}`, { status });
    return { code: error.code, kind: error.kind, retryable: error.retryable, reachable: error.reachable };
  };

  it('calls 401 and 403 bad credentials: a verdict on the key, not worth another try', () => {
    expect(classified(401)).toEqual({ code: 'unauthorized', kind: 'bad_credentials', retryable: false, reachable: true });
    expect(classified(403)).toEqual({ code: 'forbidden', kind: 'bad_credentials', retryable: false, reachable: true });
  });

  it('calls 429 rate limited: worth another try after the wait, and no verdict', () => {
    expect(classified(429)).toEqual({ code: 'rate_limited', kind: 'rate_limited', retryable: true, reachable: false });
  });

  it('calls 408, 409 and 5xx retryable', () => {
    expect(classified(408)).toEqual({ code: 'timeout', kind: 'retryable', retryable: true, reachable: false });
    expect(classified(409)).toEqual({ code: 'conflict', kind: 'retryable', retryable: true, reachable: false });
    for (const status of [500, 502, 503, 504]) expect(classified(status)).toEqual({ code: 'server_error', kind: 'retryable', retryable: true, reachable: false });
  });

  it('calls the other 4xx permanent', () => {
    expect(classified(400)).toEqual({ code: 'bad_request', kind: 'permanent', retryable: false, reachable: true });
    expect(classified(402)).toEqual({ code: 'payment_required', kind: 'permanent', retryable: false, reachable: true });
    expect(classified(404)).toEqual({ code: 'not_found', kind: 'permanent', retryable: false, reachable: true });
    expect(classified(422)).toEqual({ code: 'bad_request', kind: 'permanent', retryable: false, reachable: true });
  });

  it('never counts an unreadable answer as a verdict, however it is judged for retries', () => {
    expect(classified(302)).toEqual({ code: 'invalid_response', kind: 'retryable', retryable: true, reachable: false });
    const shape = new ServiceError('openai', 'invalid_response', 'the answer did not have the Responses API shape', { kind: 'permanent', status: 200 });
    expect({ retryable: shape.retryable, reachable: shape.reachable }).toEqual({ retryable: false, reachable: false });
  });

  it('names the service in the message, shortens a long one, and keeps secrets out', () => {
    expect(new ServiceError('shopify', 'not_found', 'no shop answers at this address').message).toBe('Shopify: no shop answers at this address');
    expect(new ServiceError('openai', 'bad_request', 'x'.repeat(2_000)).message).toHaveLength('OpenAI: '.length + 500);
    expect(withoutSecret('Incorrect API key provided: sk-live-123', 'sk-live-123')).toBe('Incorrect API key provided: [redacted]');
    expect(withoutSecret('nothing to hide', '')).toBe('nothing to hide');
  });
});

/** Answers every request with whatever the test put in `reply`. */
let server: Server;
let baseUrl: string;
let reply: (response: ServerResponse) => void = (response) => response.end();
beforeAll(async () => {
  server = createServer((request, response) => request.resume().on('end', () => reply(response)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => (response: ServerResponse) =>
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

describe('classification by body', () => {
  const apiKey = 'sk-unit-secret-0123456789';
  const generate = () => createResponse({ baseUrl, apiKey, timeoutMs: 2_000 }, { model: 'gpt-5-mini', instructions: 'Be brief.', input: 'Hi', maxOutputTokens: 50 });

  it("tells OpenAI's exhausted quota (not retryable) from its rate limit (retryable after the wait), both 429", async () => {
    reply = json(429, { error: { message: 'You exceeded your current quota.', type: 'insufficient_quota', code: 'insufficient_quota' } }, { 'retry-after': '20' });
    expect(await failure(generate())).toMatchObject({ code: 'insufficient_quota', kind: 'quota', retryable: false, status: 429, message: 'OpenAI: You exceeded your current quota.' });

    reply = json(429, { error: { message: 'Rate limit reached.', type: 'requests', code: 'rate_limit_exceeded' } }, { 'retry-after-ms': '1500', 'retry-after': '2' });
    expect(await failure(generate())).toMatchObject({ code: 'rate_limited', kind: 'rate_limited', retryable: true, retryAfterMs: 1_500 });
  });

  it("keeps OpenAI's message for the owner, without the key it may echo", async () => {
    reply = json(401, { error: { message: `Incorrect API key provided: ${apiKey}.`, type: 'invalid_request_error', code: 'invalid_api_key' } });
    const error = await failure(generate());
    expect(error).toMatchObject({ code: 'unauthorized', kind: 'bad_credentials', message: 'OpenAI: Incorrect API key provided: [redacted].' });
  });

  it('judges a failed response as retryable and an answer of the wrong shape as permanent', async () => {
    reply = json(200, { status: 'failed', error: { message: 'The server had an error.' } });
    expect(await failure(generate())).toMatchObject({ code: 'server_error', kind: 'retryable' });
    reply = json(200, { output: 'not a list' });
    expect(await failure(generate())).toMatchObject({ code: 'invalid_response', kind: 'permanent', message: 'OpenAI: the answer did not have the Responses API shape' });
  });

  it("keeps Klaviyo's field pointer, and reads a 400 to the key check as a refused key", async () => {
    reply = json(400, { errors: [{ code: 'invalid', detail: "'x' is not a valid field", source: { pointer: '/data/attributes/properties/x' } }] });
    const profile = await failure(importProfile({ baseUrl, apiKey: 'pk_secret', timeoutMs: 2_000 }, { email: 'a@example.com', firstName: null, lastName: null, properties: {} }));
    expect(profile).toMatchObject({ code: 'bad_request', kind: 'permanent', message: "Klaviyo: 'x' is not a valid field (/data/attributes/properties/x)" });

    reply = json(400, { errors: [{ code: 'not_authenticated', detail: 'Missing or invalid key.' }] });
    expect(await failure(checkKlaviyoKey(baseUrl, 'pk_secret', AbortSignal.timeout(2_000)))).toMatchObject({ code: 'unauthorized', kind: 'bad_credentials', reachable: true });
    reply = json(503, { errors: [] });
    expect(await failure(checkKlaviyoKey(baseUrl, 'pk_secret', AbortSignal.timeout(2_000)))).toMatchObject({ code: 'server_error', reachable: false });
  });
});
