import type { FastifyInstance } from 'fastify';
import { endpointAddress, type Endpoint } from '../../src/shared/api/endpoint.ts';

/**
 * A tiny HTTP client that keeps cookies like a browser would (one jar per client), so
 * tests can act as several different owners against one app. Given the app itself, it
 * asks through Fastify's `inject` instead of a socket: the same routes, hooks and
 * answers without the network, where a real port adds nothing to what a test checks.
 */
export class HttpClient {
  private cookies = new Map<string, string>();
  readonly baseUrl: string;
  private readonly app: FastifyInstance | null;
  constructor(baseUrl: string, options: { inject?: FastifyInstance } = {}) {
    this.baseUrl = baseUrl;
    this.app = options.inject ?? null;
  }

  /** Holds a cookie as if the server had set it (test builders sign owners in directly). */
  setCookie(name: string, value: string): void {
    this.cookies.set(name, value);
  }

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const init: RequestInit = { method, headers: { ...headers }, redirect: 'manual' };
    const requestHeaders = init.headers as Record<string, string>;
    if (this.cookies.size > 0) requestHeaders.cookie = this.cookieHeader();
    if (body !== undefined) {
      requestHeaders['content-type'] ??= 'application/json';
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const response = this.app ? await this.injected(method, path, requestHeaders, init.body as string | undefined) : await fetch(`${this.baseUrl}${path}`, init);
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const index = pair!.indexOf('=');
      const name = pair!.slice(0, index);
      const value = pair!.slice(index + 1);
      if (value === '' || /max-age=0/i.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await response.text();
    let json: any = undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json, setCookies: response.headers.getSetCookie() };
  }

  /** The app's answer through `inject`, as a fetch Response. */
  private async injected(method: string, path: string, headers: Record<string, string>, body: string | undefined): Promise<Response> {
    const answer = await this.app!.inject({ method: method as 'GET', url: path, headers, ...(body === undefined ? {} : { payload: body }) });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      for (const each of Array.isArray(value) ? value : [value]) if (each !== undefined) responseHeaders.append(name, String(each));
    }
    const status = answer.statusCode;
    // A Response cannot carry a body with these statuses.
    const bodyless = status === 204 || status === 304 || method === 'HEAD';
    return new Response(bodyless ? null : new Uint8Array(answer.rawPayload), { status, headers: responseHeaders });
  }

  /**
   * One of the app's own endpoints, named through the endpoint table (src/shared/api/endpoints.ts)
   * as the browser names it: its method, and its address built from `params` and `query`.
   * The answer is not parsed with the endpoint's schema, so a test can see a refusal as it is.
   */
  call(endpoint: Endpoint, input: { params?: object; query?: object; body?: unknown } = {}, headers?: Record<string, string>) {
    const address = endpointAddress(endpoint, input);
    const body = input.body ?? (endpoint.method === 'GET' || endpoint.method === 'DELETE' ? undefined : {});
    return this.request(endpoint.method, address, body, headers);
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request('GET', path, undefined, headers);
  }
  post(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request('POST', path, body ?? {}, headers);
  }
  put(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request('PUT', path, body ?? {}, headers);
  }
  delete(path: string, headers?: Record<string, string>) {
    return this.request('DELETE', path, undefined, headers);
  }
}
