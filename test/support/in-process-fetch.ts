import type { FastifyInstance } from 'fastify';

/**
 * Test apps that do not listen answer in-process: each gets an origin of its own
 * (`http://app-N.flowsmith.test`), and `fetch` to that origin goes through Fastify's
 * `inject`, the same routes, hooks and answers without a socket. Every other address
 * (the service stand-ins, a test app that does listen) goes to the real `fetch`, so the
 * app's own calls to OpenAI, Klaviyo and Shopify stay real HTTP.
 *
 * What `inject` cannot do, a test asks a real port for (`startTestApp({ listen: true })`):
 * a response that never ends (the live event stream), socket-level limits and timeouts,
 * and other processes that call the app.
 */
const injectedApps = new Map<string, FastifyInstance>();
const realFetch: typeof fetch = globalThis.fetch.bind(globalThis);
let installed = false;
let appCounter = 0;

/** A fresh origin for an app to be answered in-process. */
export function inProcessOrigin(): string {
  appCounter += 1;
  return `http://app-${process.pid}-${appCounter}.flowsmith.test`;
}

/** From now on, `fetch` to `origin` is answered by `app`. */
export function registerInProcessApp(origin: string, app: FastifyInstance): void {
  install();
  injectedApps.set(origin, app);
}

export function unregisterInProcessApp(origin: string): void {
  injectedApps.delete(origin);
}

function install(): void {
  if (installed) return;
  installed = true;
  globalThis.fetch = inProcessFetch as typeof fetch;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

async function inProcessFetch(input: string | URL | Request, init: RequestInit = {}, redirectsLeft = 20): Promise<Response> {
  const request = new Request(input, init);
  const url = new URL(request.url);
  const app = injectedApps.get(url.origin);
  if (!app) return realFetch(input, init);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
  const answer = await app.inject({
    method: request.method as 'GET',
    url: `${url.pathname}${url.search}`,
    headers,
    ...(body === undefined ? {} : { payload: body }),
  });
  const responseHeaders = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    for (const each of Array.isArray(value) ? value : [value]) if (each !== undefined) responseHeaders.append(name, String(each));
  }
  const status = answer.statusCode;
  const location = responseHeaders.get('location');
  if (redirectStatuses.has(status) && location && request.redirect === 'follow') {
    if (redirectsLeft === 0) throw new TypeError('fetch failed: redirect count exceeded');
    // As fetch does: a 303 (and a POST's 301/302) continues as a GET without a body.
    const keepsMethod = status === 307 || status === 308 || (request.method !== 'POST' && status !== 303);
    const next = new URL(location, url);
    return inProcessFetch(next, keepsMethod ? { method: request.method, headers: request.headers, ...(body ? { body } : {}) } : { method: 'GET', headers: request.headers }, redirectsLeft - 1);
  }
  // A Response cannot carry a body with these statuses.
  const bodyless = status === 101 || status === 204 || status === 205 || status === 304 || request.method === 'HEAD';
  const response = new Response(bodyless ? null : new Uint8Array(answer.rawPayload), { status, statusText: answer.statusMessage, headers: responseHeaders });
  Object.defineProperty(response, 'url', { value: url.href });
  if (request.redirect === 'manual' && redirectStatuses.has(status)) Object.defineProperty(response, 'redirected', { value: false });
  return response;
}
