import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callService, observeServiceCalls, readRetryAfter, type ServiceCall } from '../../src/server/integrations/service-http.ts';
import { ServiceError } from '../../src/server/integrations/service-error.ts';

/** A real local server whose answer each test sets; no fetch is mocked. */
let server: Server;
let baseUrl: string;
let answer: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) => response.end();
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    // One connection per call: a kept-alive socket closed by afterEach would fail the next test's call.
    response.shouldKeepAlive = false;
    hits.push(request.url ?? '');
    answer(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
let stopObserving = () => {};
afterEach(() => {
  stopObserving();
  hits.length = 0;
  // Ends the answers a test left hanging.
  server.closeAllConnections();
});

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

/** A port on which nothing listens. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const readText = (service: 'openai' | 'klaviyo' | 'shopify', request: Parameters<typeof callService>[1]) => callService(service, request, (reply) => reply.text());

describe('no answer', () => {
  it('ends a call at its time limit with a retryable timeout', async () => {
    answer = () => undefined;
    const error = await failure(readText('openai', { url: `${baseUrl}/hang`, timeoutMs: 150 }));
    expect(error).toMatchObject({ service: 'openai', code: 'timeout', kind: 'retryable', retryable: true, reachable: false, status: null });
    expect(error.message).toMatch(/^OpenAI: no answer within \d+ s$/);
  });

  it("counts the caller's own time limit as a timeout, and rethrows any other abort as it is", async () => {
    answer = () => undefined;
    const timedOut = await failure(readText('shopify', { url: `${baseUrl}/hang`, signal: AbortSignal.timeout(150) }));
    expect(timedOut).toMatchObject({ code: 'timeout', retryable: true, message: 'Shopify: no answer in time' });

    const stopping = new AbortController();
    const call = readText('klaviyo', { url: `${baseUrl}/hang`, signal: stopping.signal });
    const reason = new Error('The worker is stopping');
    setTimeout(() => stopping.abort(reason), 50);
    await expect(call).rejects.toBe(reason);
  });

  it('maps a refused connection to a retryable network error naming the cause', async () => {
    const port = await closedPort();
    const error = await failure(readText('klaviyo', { url: `http://127.0.0.1:${port}/api/accounts`, timeoutMs: 2_000 }));
    expect(error).toMatchObject({ code: 'network', kind: 'retryable', retryable: true, reachable: false, status: null });
    expect(error.message).toBe('Klaviyo: could not connect (ECONNREFUSED)');
  });

  it('maps an answer cut off halfway to a retryable network error', async () => {
    answer = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      response.write('{"data": [');
      setTimeout(() => response.socket?.destroy(), 20);
    };
    const error = await failure(callService('openai', { url: `${baseUrl}/cut`, timeoutMs: 2_000 }, (reply) => reply.json()));
    expect(error).toMatchObject({ code: 'network', retryable: true, status: 200 });
    expect(error.message).toMatch(/^OpenAI: the answer was cut off/);
  });
});

describe('answers', () => {
  it('turns a body that is not JSON into a retryable invalid_response', async () => {
    answer = (_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html>Bad gateway</html>');
    const error = await failure(callService('shopify', { url: `${baseUrl}/html` }, (reply) => reply.json()));
    expect(error).toMatchObject({ code: 'invalid_response', kind: 'retryable', retryable: true, reachable: false, status: 200 });
    expect(error.message).toBe('Shopify: answered HTTP 200 without JSON');

    const worded = await failure(callService('klaviyo', { url: `${baseUrl}/html` }, (reply) => reply.json({ message: 'the profile answer did not have the expected shape', kind: 'permanent' })));
    expect(worded).toMatchObject({ code: 'invalid_response', kind: 'permanent', retryable: false, message: 'Klaviyo: the profile answer did not have the expected shape' });
  });

  it('reads JSON and hands back what the caller made of it', async () => {
    answer = (_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[{"id":"gpt-5-mini"}]}');
    expect(await callService('openai', { url: `${baseUrl}/models` }, (reply) => reply.json())).toEqual({ data: [{ id: 'gpt-5-mini' }] });
  });

  it('sends method, headers and body, and follows no redirect', async () => {
    let received: { method?: string; header?: string; body: string } = { body: '' };
    answer = (request, response) => {
      if (request.url === '/moved') return void response.writeHead(302, { location: `${baseUrl}/elsewhere` }).end();
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received = { method: request.method, header: request.headers['x-token'] as string, body };
        response.end('ok');
      });
    };
    await readText('shopify', { url: `${baseUrl}/post`, method: 'POST', headers: { 'x-token': 'secret-token' }, body: '{"a":1}' });
    expect(received).toEqual({ method: 'POST', header: 'secret-token', body: '{"a":1}' });

    hits.length = 0;
    const redirect = await callService('shopify', { url: `${baseUrl}/moved`, headers: { 'x-token': 'secret-token' } }, async (reply) => ({ redirected: reply.redirected, status: reply.status }));
    expect(redirect).toEqual({ redirected: true, status: 302 });
    expect(hits).toEqual(['/moved']);
  });

  it("makes an answer's error from its status, with the wait it asked for", async () => {
    answer = (_request, response) => response.writeHead(429, { 'retry-after': '7' }).end();
    const error = await failure(callService('klaviyo', { url: `${baseUrl}/limited` }, async (reply) => Promise.reject(reply.error())));
    expect(error).toMatchObject({ code: 'rate_limited', kind: 'rate_limited', retryable: true, reachable: false, status: 429, retryAfterMs: 7_000 });
    expect(error.message).toBe('Klaviyo: answered HTTP 429');
  });
});

describe('Retry-After', () => {
  const now = new Date(4_000);
  const read = (headers: Record<string, string>) => readRetryAfter(new Headers(headers), now);

  it('reads seconds and HTTP dates', () => {
    expect(read({ 'retry-after': '2' })).toBe(2_000);
    expect(read({ 'retry-after': '0.5' })).toBe(500);
    expect(read({ 'retry-after': new Date(10_000).toUTCString() })).toBe(6_000);
    expect(read({ 'retry-after': new Date(1_000).toUTCString() })).toBe(0);
    expect(read({})).toBeNull();
    expect(read({ 'retry-after': 'soon' })).toBeNull();
  });

  it("prefers OpenAI's retry-after-ms, and falls back when it is unreadable", () => {
    expect(read({ 'retry-after-ms': '750', 'retry-after': '3' })).toBe(750);
    expect(read({ 'retry-after-ms': 'later', 'retry-after': '3' })).toBe(3_000);
  });

  it('counts an HTTP date from the caller’s now, as the answer came', async () => {
    answer = (_request, response) => response.writeHead(503, { 'retry-after': new Date(Date.UTC(2030, 0, 1, 0, 1)).toUTCString() }).end();
    const at = new Date(Date.UTC(2030, 0, 1));
    expect(await callService('shopify', { url: `${baseUrl}/busy`, now: () => at }, async (reply) => reply.retryAfterMs)).toBe(60_000);
  });
});

describe('the call observer', () => {
  it('hears every call once, by service and outcome, with its status and duration', async () => {
    const calls: ServiceCall[] = [];
    stopObserving = observeServiceCalls((call) => calls.push(call));
    answer = (request, response) => {
      if (request.url === '/ok') return void response.end('{}');
      if (request.url === '/limited') return void response.writeHead(429).end();
      if (request.url === '/refused') return void response.writeHead(401).end();
    };
    await callService('openai', { url: `${baseUrl}/ok` }, (reply) => reply.json());
    await callService('klaviyo', { url: `${baseUrl}/limited` }, async (reply) => Promise.reject(reply.error())).catch(() => undefined);
    await callService('shopify', { url: `${baseUrl}/refused` }, async (reply) => Promise.reject(reply.error())).catch(() => undefined);
    await callService('openai', { url: `${baseUrl}/hang`, timeoutMs: 100 }, (reply) => reply.text()).catch(() => undefined);
    await callService('klaviyo', { url: `http://127.0.0.1:${await closedPort()}/`, timeoutMs: 2_000 }, (reply) => reply.text()).catch(() => undefined);

    expect(calls.map(({ service, outcome, status }) => ({ service, outcome, status }))).toEqual([
      { service: 'openai', outcome: 'success', status: 200 },
      { service: 'klaviyo', outcome: 'rate_limited', status: 429 },
      { service: 'shopify', outcome: 'bad_credentials', status: 401 },
      { service: 'openai', outcome: 'timeout', status: null },
      { service: 'klaviyo', outcome: 'network', status: null },
    ]);
    expect(calls.every((call) => call.durationMs >= 0)).toBe(true);
    expect(calls[3]!.durationMs).toBeGreaterThanOrEqual(90);
  });

  it('never lets a failing observer fail the call', async () => {
    stopObserving = observeServiceCalls(() => {
      throw new Error('metrics are down');
    });
    answer = (_request, response) => response.end('{"fine":true}');
    expect(await callService('openai', { url: `${baseUrl}/ok` }, (reply) => reply.json())).toEqual({ fine: true });
  });
});
