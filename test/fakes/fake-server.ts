import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as a fake received it, for tests to assert on. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** The JSON or form body parsed; the raw text when it is neither; undefined when empty. */
  body: unknown;
  receivedAt: number;
}

export interface FakeReply {
  status: number;
  headers?: Record<string, string>;
  /** Sent as JSON unless it is a string; nothing is sent when undefined. */
  body?: unknown;
  contentType?: string;
}

/** A reply that never comes: the fake keeps the socket open until it is closed. */
export const hang = Symbol('hang');

export type FakeHandler = (request: RecordedRequest) => FakeReply | typeof hang | Promise<FakeReply | typeof hang>;

function parseBody(raw: string, contentType: string | undefined): unknown {
  if (raw === '') return undefined;
  if (contentType?.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(raw));
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(response: ServerResponse, reply: FakeReply): void {
  const headers: Record<string, string> = { ...reply.headers };
  let payload: string | undefined;
  if (reply.body !== undefined) {
    payload = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
    headers['content-type'] ??= reply.contentType ?? 'application/json';
  }
  response.writeHead(reply.status, headers);
  response.end(payload);
}

/**
 * A real HTTP server on 127.0.0.1 and a random port that records every request, then
 * lets the service's handler answer it.
 */
export async function startFakeServer(handler: FakeHandler) {
  const requests: RecordedRequest[] = [];
  const server = createServer((incoming, response) => {
    void (async () => {
      const rawBody = await readBody(incoming);
      const url = new URL(incoming.url ?? '/', 'http://fake.invalid');
      const recorded: RecordedRequest = {
        method: incoming.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: incoming.headers,
        rawBody,
        body: parseBody(rawBody, incoming.headers['content-type']),
        receivedAt: Date.now(),
      };
      requests.push(recorded);
      const reply = await handler(recorded);
      if (reply === hang) return;
      send(response, reply);
    })().catch((error: unknown) => {
      if (!response.headersSent) send(response, { status: 500, body: { fakeError: String(error) } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        // Hanging replies keep their sockets open; cut them so close() returns.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const delay = (milliseconds: number) => new Promise<void>((resolve) => setTimeout(resolve, milliseconds));

/**
 * Counts requests inside a sliding window per key, the way the services' per-account
 * limits do. `now` is in milliseconds.
 */
export class SlidingWindow {
  private hits = new Map<string, number[]>();
  private readonly windowMs: number;
  constructor(windowMs: number) {
    this.windowMs = windowMs;
  }
  count(key: string, now: number): number {
    return this.current(key, now).length;
  }
  add(key: string, now: number): void {
    this.current(key, now).push(now);
  }
  /** Milliseconds until the oldest hit leaves the window. */
  freeInMs(key: string, now: number): number {
    const oldest = this.current(key, now)[0];
    return oldest === undefined ? 0 : oldest + this.windowMs - now;
  }
  private current(key: string, now: number): number[] {
    const list = (this.hits.get(key) ?? []).filter((at) => at > now - this.windowMs);
    this.hits.set(key, list);
    return list;
  }
}
