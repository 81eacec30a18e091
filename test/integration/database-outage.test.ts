import { randomBytes, randomUUID } from 'node:crypto';
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2EServer, type E2EServer } from '../support/e2e-server.ts';
import { HttpClient } from '../support/http-client.ts';
import { strongPassword, uniqueEmail } from '../support/accounts.ts';
import { defaultAssistants, sampleEvent } from '../support/engine-scenario.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * A PostgreSQL server between the app and which this test stands, as a TCP proxy:
 * - `stopped`: every connection is closed and new ones are closed at once (a database that
 *   went down or restarts);
 * - `frozen`: connections stay open but nothing is forwarded (a database or network that
 *   hangs); what was sent meanwhile is delivered once it thaws, as after a pause.
 */
class DatabaseProxy {
  private readonly server: Server;
  private readonly pairs = new Set<{ client: Socket; upstream: Socket | null }>();
  private readonly waiting: Array<() => void> = [];
  mode: 'up' | 'stopped' | 'frozen' = 'up';
  port = 0;

  private readonly target: { host: string; port: number };

  constructor(target: { host: string; port: number }) {
    this.target = target;
    this.server = createServer((client) => this.accept(client));
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  private accept(client: Socket): void {
    client.on('error', () => undefined);
    if (this.mode === 'stopped') {
      client.destroy();
      return;
    }
    const pair: { client: Socket; upstream: Socket | null } = { client, upstream: null };
    this.pairs.add(pair);
    client.on('close', () => {
      pair.upstream?.destroy();
      this.pairs.delete(pair);
    });
    const connectUpstream = () => {
      if (client.destroyed) return;
      const upstream = createConnection(this.target);
      upstream.on('error', () => client.destroy());
      upstream.on('close', () => client.destroy());
      pair.upstream = upstream;
      client.pipe(upstream);
      upstream.pipe(client);
    };
    if (this.mode === 'frozen') {
      client.pause();
      this.waiting.push(connectUpstream);
    } else connectUpstream();
  }

  stop(): void {
    this.mode = 'stopped';
    for (const pair of this.pairs) {
      pair.client.destroy();
      pair.upstream?.destroy();
    }
    this.waiting.length = 0;
  }

  freeze(): void {
    this.mode = 'frozen';
    for (const { client, upstream } of this.pairs) {
      client.pause();
      upstream?.pause();
    }
  }

  restore(): void {
    const wasFrozen = this.mode === 'frozen';
    this.mode = 'up';
    if (!wasFrozen) return;
    for (const { client, upstream } of this.pairs) {
      client.resume();
      upstream?.resume();
    }
    for (const connect of this.waiting.splice(0)) connect();
  }

  async close(): Promise<void> {
    this.stop();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

interface Answer {
  startedAt: number;
  ms: number;
  status: number;
  retryAfter: string | null;
  eventId: string | null;
}

// Needs a real PostgreSQL server: the embedded database lives inside the app's process, so
// it cannot be stopped or frozen apart from it. Runs in the server step of the suite
// (FLOWSMITH_TEST_DB=server with TEST_DATABASE_URL), once.
describe.skipIf(process.env.FLOWSMITH_TEST_DB !== 'server' || !process.env.TEST_DATABASE_URL)('a lost or frozen database under steady webhook load', () => {
  const adminUrl = process.env.TEST_DATABASE_URL ?? '';
  const databaseName = `flowsmith_outage_${randomBytes(6).toString('hex')}`;
  let proxy: DatabaseProxy;
  let server: E2EServer;
  let webhookPath: string;

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${databaseName}`);
    await admin.end();
    const target = new URL(adminUrl);
    proxy = new DatabaseProxy({ host: target.hostname, port: Number(target.port || 5432) });
    await proxy.start();
    const viaProxy = new URL(adminUrl);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    viaProxy.pathname = `/${databaseName}`;
    server = await startE2EServer({ env: { DATABASE_URL: viaProxy.toString() }, requireWebApp: false });

    const client = new HttpClient(server.baseUrl);
    const email = uniqueEmail('outage');
    // Set-up, not the claim: a process just started on a busy CI machine may shed its first
    // request (503 overloaded, Retry-After); like any client, it is asked again after the wait.
    let signUp = await client.call(endpoints.account.signUp, { body: { fullName: 'Ada Owner', email, password: strongPassword, confirmPassword: strongPassword } });
    for (let again = 0; again < 3 && signUp.status === 503 && signUp.json?.error === 'overloaded'; again += 1) {
      await new Promise((resolve) => setTimeout(resolve, (signUp.json.retryAfterSeconds as number) * 1000));
      signUp = await client.call(endpoints.account.signUp, { body: { fullName: 'Ada Owner', email, password: strongPassword, confirmPassword: strongPassword } });
    }
    expect(signUp.status, signUp.text).toBe(200);
    const mail = await server.smtp.waitForMail(email, 'Confirm your email');
    const token = new URLSearchParams(new URL(server.smtp.linkIn(mail, '/auth/verify')).hash.slice(1)).get('access_token');
    expect((await client.call(endpoints.account.verifyEmail, { body: { token } })).status).toBe(200);
    const initialized = await client.call(endpoints.flows.initialize);
    expect(initialized.status, initialized.text).toBe(200);
    const flow = (initialized.json.flows as Array<{ id: string; flowType: string }>).find((candidate) => candidate.flowType === 'abandoned_cart')!;
    // Active, so accepted events get jobs and the worker has work across the outages.
    const saved = await client.call(endpoints.flows.update, { params: { flowType: 'abandoned_cart' }, body: { isActive: true, assistants: defaultAssistants, klaviyoEventName: null } });
    expect(saved.status, saved.text).toBe(200);
    webhookPath = `/api/webhooks/abandoned_cart/${flow.id}`;
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
    await admin.end();
  });

  async function post(): Promise<Answer> {
    const body = { ...sampleEvent('abandoned_cart'), event_id: `evt_${randomUUID()}` };
    const startedAt = Date.now();
    try {
      const response = await fetch(`${server.baseUrl}${webhookPath}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
      const json = (await response.json().catch(() => null)) as { eventId?: string } | null;
      return { startedAt, ms: Date.now() - startedAt, status: response.status, retryAfter: response.headers.get('retry-after'), eventId: json?.eventId ?? null };
    } catch {
      return { startedAt, ms: Date.now() - startedAt, status: 0, retryAfter: null, eventId: null };
    }
  }

  /** Posts with a few senders at once until `until`, collecting every answer. */
  async function load(answers: Answer[], until: () => boolean): Promise<void> {
    const sender = async () => {
      while (!until()) {
        answers.push(await post());
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    await Promise.all([sender(), sender(), sender(), sender()]);
  }

  /** Time of the first 2xx that started at or after `from`. */
  function firstSuccessAfter(answers: Answer[], from: number): number | null {
    const success = answers.filter((answer) => answer.startedAt >= from && answer.status >= 200 && answer.status < 300).sort((a, b) => a.startedAt - b.startedAt)[0];
    return success ? success.startedAt + success.ms : null;
  }

  it.each([
    ['stopped', (p: DatabaseProxy) => p.stop()],
    ['frozen', (p: DatabaseProxy) => p.freeze()],
  ] as const)('while the database is %s: 503 within 5 s, 2xx again within 10 s after, the process stays up and keeps every accepted event', async (_mode, breakDatabase) => {
    const outageMs = 10_000;
    const answers: Answer[] = [];
    const readiness: { during?: { status: number; ms: number; retryAfter: string | null } } = {};
    let done = false;
    const loading = load(answers, () => done);
    const run = async () => {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const outageStart = Date.now();
      breakDatabase(proxy);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const readyAsked = Date.now();
      const readyDuring = await fetch(`${server.baseUrl}/readyz`, { signal: AbortSignal.timeout(10_000) });
      readiness.during = { status: readyDuring.status, ms: Date.now() - readyAsked, retryAfter: readyDuring.headers.get('retry-after') };
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, outageStart + outageMs - Date.now())));
      const outageEnd = Date.now();
      proxy.restore();
      // Load goes on until the app has taken events again for a few seconds, at most 15 s.
      const deadline = outageEnd + 15_000;
      while (Date.now() < deadline) {
        const recovered = firstSuccessAfter(answers, outageEnd);
        if (recovered !== null && Date.now() - recovered > 3_000) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      return { outageStart, outageEnd };
    };
    const { outageStart, outageEnd } = await run();
    done = true;
    await loading;

    expect(server.exited(), server.output().slice(-3_000)).toBe(false);
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    // Not ready while the database is lost, said quickly; ready again once it is back.
    expect(readiness.during).toMatchObject({ status: 503, retryAfter: '5' });
    expect(readiness.during!.ms).toBeLessThan(5_000);
    expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);

    const slow = answers.filter((answer) => answer.status === 0 || answer.ms > 5_000);
    expect(slow.map((answer) => `${answer.status} after ${answer.ms} ms, ${answer.startedAt - outageStart} ms into the outage`)).toEqual([]);
    // Every answer is an acceptance or a 503 that asks to retry.
    const unexpected = answers.filter((answer) => answer.status !== 202 && !(answer.status === 503 && answer.retryAfter !== null));
    expect(unexpected.map((answer) => `${answer.status} at ${answer.startedAt - outageStart} ms`)).toEqual([]);
    // A request that started well inside the outage and was answered before it ended could not be stored.
    const duringOutage = answers.filter((answer) => answer.startedAt >= outageStart + 500 && answer.startedAt + answer.ms < outageEnd);
    expect(duringOutage.length).toBeGreaterThan(0);
    expect(duringOutage.filter((answer) => answer.status !== 503)).toEqual([]);
    expect(answers.filter((answer) => answer.startedAt < outageStart && answer.status === 202).length).toBeGreaterThan(0);

    const recovered = firstSuccessAfter(answers, outageEnd);
    expect(recovered, 'no 2xx after the database came back').not.toBeNull();
    expect(recovered! - outageEnd).toBeLessThan(10_000);

    // Every event that got a 2xx is in the database.
    const accepted = answers.filter((answer) => answer.status === 202).map((answer) => answer.eventId!);
    const direct = new URL(adminUrl);
    direct.pathname = `/${databaseName}`;
    const check = new pg.Client({ connectionString: direct.toString() });
    await check.connect();
    try {
      const { rows } = await check.query<{ id: string }>('SELECT id FROM events WHERE id = ANY($1)', [accepted]);
      expect(accepted.filter((id) => !rows.some((row) => row.id === id))).toEqual([]);
    } finally {
      await check.end();
    }
  }, 90_000);
});
