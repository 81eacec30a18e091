import { createHash } from 'node:crypto';
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
  /** When the fake finished sending its answer; null while the request is open (or hangs). */
  answeredAt: number | null;
  /** The status the fake answered with; null while the request is open (or hangs). */
  status: number | null;
}

export interface FakeReply {
  status: number;
  headers?: Record<string, string>;
  /** Sent as JSON unless it is a string; nothing is sent when undefined. */
  body?: unknown;
  contentType?: string;
  /**
   * A deliberate fault that no definition allows (a body that is not JSON, a cut-off
   * answer): sent as it is, without the contract's answer check.
   */
  offContract?: true;
}

/**
 * The vendor's definition, held against every request a stand-in receives and every
 * answer it sends (test/contracts). A request the real service would refuse gets the
 * refusal the service would give, and is recorded as a violation; so is an answer the
 * definition does not allow. `close()` fails while violations are left, so a test that
 * sends what the vendor would refuse fails with the reason, unless it takes them
 * (`takeViolations`) because refusing was what it tested.
 */
export interface Contract {
  checkRequest(request: RecordedRequest): { reply: FakeReply; problems: string[] } | undefined;
  checkReply(request: RecordedRequest, reply: FakeReply): string[];
}

export interface ContractViolation {
  side: 'request' | 'answer';
  method: string;
  path: string;
  problems: string[];
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
export async function startFakeServer(handler: FakeHandler, contract?: Contract) {
  const requests: RecordedRequest[] = [];
  const violations: ContractViolation[] = [];
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
        answeredAt: null,
        status: null,
      };
      requests.push(recorded);
      const refusal = contract?.checkRequest(recorded);
      if (refusal) violations.push({ side: 'request', method: recorded.method, path: recorded.path, problems: refusal.problems });
      const reply = refusal ? refusal.reply : await handler(recorded);
      if (reply === hang) return;
      if (contract && !refusal && !reply.offContract) {
        const problems = contract.checkReply(recorded, reply);
        if (problems.length > 0) violations.push({ side: 'answer', method: recorded.method, path: recorded.path, problems });
      }
      recorded.status = reply.status;
      response.once('finish', () => {
        recorded.answeredAt = Date.now();
      });
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
    /** What the definition refused so far; a test that meant to send it takes them here. */
    takeViolations(): ContractViolation[] {
      return violations.splice(0);
    },
    close: async () => {
      await new Promise<void>((resolve) => {
        // Hanging replies keep their sockets open; cut them so close() returns.
        server.closeAllConnections();
        server.close(() => resolve());
      });
      if (violations.length > 0) {
        const lines = violations.splice(0).map((violation) => `${violation.side === 'request' ? 'sent' : 'answered'} ${violation.method} ${violation.path}: ${violation.problems.join('; ')}`);
        throw new Error(`Against the vendor's definition:\n${[...new Set(lines)].slice(0, 20).join('\n')}`);
      }
    },
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

/**
 * Fails a share of requests at random, but reproducibly: whether the n-th request with a
 * given key fails is decided by a hash of (seed, key, n), so the same calls fail whatever
 * order concurrent workers send them in. `keyOf` names what a request is about (an email,
 * a prompt) and returns null for requests the rule leaves alone. The fakes check rules
 * before they apply anything, so a failed write changes nothing.
 */
export function seededFaults<F>(options: { seed: string; rate: number; keyOf: (request: RecordedRequest) => string | null; failure: F }) {
  const calls = new Map<string, number>();
  const injected = new Map<string, number>();
  return {
    rule(request: RecordedRequest): F | undefined {
      const key = options.keyOf(request);
      if (key === null) return undefined;
      const call = (calls.get(key) ?? 0) + 1;
      calls.set(key, call);
      const digest = createHash('sha256').update(`${options.seed}\u0000${key}\u0000${call}`).digest();
      if (digest.readUInt32BE(0) / 2 ** 32 >= options.rate) return undefined;
      injected.set(key, (injected.get(key) ?? 0) + 1);
      return options.failure;
    },
    /** Failures injected so far, per key. */
    injected,
    /** Requests seen so far, per key. */
    calls,
  };
}
