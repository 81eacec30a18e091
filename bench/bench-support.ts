import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { openDatabase, type Database, type Queryable } from '../src/server/database/database.ts';
import { storedFunctions } from '../src/server/stored-functions.ts';
import { buildApp } from '../src/server/app.ts';
import { loadConfig } from '../src/server/config.ts';
import { createLogger } from '../src/server/logger.ts';
import { createMailer } from '../src/server/mail/mailer.ts';
import type { EngineOptions } from '../src/server/engine/spine/engine.ts';
import type { RecordedRequest } from '../test/fakes/fake-server.ts';
import { createCredentialCipher, parseCredentialsKey } from '../src/server/platform/credential-cipher.ts';
import { saveCredentials } from '../src/server/credentials/credential-store.ts';
import { credentialsInputSchema } from '../src/shared/credentials/credential-schemas.ts';
import type { FlowType } from '../src/shared/flows/flow-types.ts';
import type { Assistant } from '../src/shared/flows/flow-schemas.ts';

/** What the benchmarks share: a fresh database, an owner with a flow, the app on it, child processes, and how to count. */
export const defaultAdminUrl = 'postgres://postgres@127.0.0.1:5432/postgres';

/** A new, empty database on the server (TEST_DATABASE_URL or the local default), dropped by `drop`. */
export async function createBenchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL ?? defaultAdminUrl;
  const name = `flowsmith_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const cleanup = new pg.Client({ connectionString: adminUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

export const benchKeys = {
  credentialsKey: randomBytes(32).toString('base64'),
  klaviyo: 'pk_test_valid',
  openai: 'sk-test-valid',
  shopifyToken: 'shpat_bench_token_0123456789',
  signingSecret: 'shpss_bench_signing_secret_0123456789',
};

/** An owner (created directly, as end-to-end fixtures do) with saved credentials and one active flow. */
export async function seedOwnerWithFlow(
  pool: pg.Pool,
  flow: { flowType: FlowType; assistants: Assistant[]; klaviyoEventName?: string | null; waitMinutes?: number },
): Promise<{ userId: string; flowId: string }> {
  const userId = randomUUID();
  const flowId = randomBytes(16).toString('base64url');
  await pool.query('INSERT INTO users (id, full_name, email, email_verified) VALUES ($1, $2, $3, true)', [userId, 'Bench Owner', `bench-${userId}@shop.example`]);
  const cipher = createCredentialCipher(parseCredentialsKey(benchKeys.credentialsKey));
  const credentials = credentialsInputSchema.parse({
    klaviyoApiKey: benchKeys.klaviyo,
    openaiApiKey: benchKeys.openai,
    openaiModel: 'gpt-5-mini',
    shopifyDomain: 'bench-shop.myshopify.com',
    shopifyAuthMethod: 'access_token',
    shopifyAccessToken: benchKeys.shopifyToken,
    shopifySigningSecret: benchKeys.signingSecret,
  });
  await saveCredentials(pool, cipher, userId, { credentials, now: new Date(), obtainedShopifyToken: null });
  await pool.query(
    `INSERT INTO flows (id, user_id, flow_type, is_active, webhook_url, assistants, wait_minutes, klaviyo_event_name)
     VALUES ($1, $2, $3, true, NULL, $4::jsonb, $5, $6)`,
    [flowId, userId, flow.flowType, JSON.stringify(flow.assistants), flow.waitMinutes ?? 0, flow.klaviyoEventName ?? null],
  );
  return { userId, flowId };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Starts a TypeScript entry in a child Node process and waits until `readyUrl` answers. */
export async function startProcess(file: string, env: Record<string, string>, readyUrl: string): Promise<{ child: ChildProcess; stop(): Promise<void> }> {
  // BENCH_PROFILE=1 writes a CPU profile of each child to .tmp/prof (open it in Chrome DevTools).
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir=.tmp/prof'] : [];
  const child = spawn(process.execPath, [...profile, path.resolve(import.meta.dirname, file)], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${file} exited with ${child.exitCode}`);
    try {
      if ((await fetch(readyUrl)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${file} did not become ready`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    child,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export async function countRows(db: Queryable, sql: string, values: unknown[] = []): Promise<number> {
  const { rows } = await db.query<{ count: string }>(sql, values);
  return Number(rows[0]!.count);
}

export function formatNumber(value: number, digits = 0): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** The real app (ROLE=all) on a fresh database, against the given fakes, with one owner and one flow. */
export interface BenchApp {
  db: Database;
  flowId: string;
  /** The flow's webhook URL. */
  url: string;
  /** Log lines at warn or above, for the report. */
  warnings: string[];
  close(): Promise<void>;
}

export async function startBenchApp(options: {
  openaiBaseUrl: string;
  klaviyoBaseUrl: string;
  /** The owner's shop; without it, Shopify is never asked (the events name no Shopify product). */
  shopifyBaseUrl?: string;
  flow: { flowType: FlowType; assistants: Assistant[]; klaviyoEventName?: string | null };
  engine?: Partial<EngineOptions>;
  /** Off: one text per shopper a day would skip the benchmark's repeat shoppers. */
  shopperCooldown?: boolean;
}): Promise<BenchApp> {
  const database = await createBenchDatabase();
  const db = await openDatabase({ databaseUrl: database.url, dataDir: null, poolSize: 30, storedFunctions });
  const port = await freePort();
  const config = loadConfig({
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATABASE_URL: database.url,
    DATA_DIR: path.resolve('.tmp/bench-data'),
    OPENAI_BASE_URL: options.openaiBaseUrl,
    KLAVIYO_BASE_URL: options.klaviyoBaseUrl,
    ...(options.shopifyBaseUrl ? { SHOPIFY_BASE_URL: options.shopifyBaseUrl } : {}),
    ROLE: 'all',
  });
  const warnings: string[] = [];
  const logger = createLogger('warn', new Writable({ write: (chunk: Buffer, _encoding, done) => (warnings.push(chunk.toString()), done()) }));
  const app = await buildApp({
    config,
    database: db,
    logger,
    mailer: createMailer({ smtpUrl: undefined, mailFrom: config.mailFrom, outboxDir: path.resolve('.tmp/bench-data/outbox'), logger }),
    authSecret: 'bench-secret-that-is-long-enough-for-signing',
    credentialCipher: createCredentialCipher(parseCredentialsKey(benchKeys.credentialsKey)),
    ...(options.engine ? { engine: options.engine } : {}),
  });
  const { flowId } = await seedOwnerWithFlow(db.pool, { flowType: options.flow.flowType, assistants: options.flow.assistants, klaviyoEventName: options.flow.klaviyoEventName ?? null });
  // The flow's daily cap (2,000 by default) would skip part of a large run.
  await db.pool.query('UPDATE flows SET daily_generation_cap = 1000000 WHERE id = $1', [flowId]);
  if (options.shopperCooldown === false) await db.pool.query('UPDATE flows SET shopper_cooldown_hours = 0 WHERE id = $1', [flowId]);
  await app.listen({ port, host: '127.0.0.1' });
  return {
    db,
    flowId,
    url: `http://127.0.0.1:${port}/api/webhooks/${options.flow.flowType}/${flowId}`,
    warnings,
    async close() {
      await app.close();
      await db.close();
      await database.drop();
    },
  };
}

/** A generic abandoned-cart event of two products for `email`. */
export function cartEvent(email: string) {
  return {
    event_id: `evt_${randomUUID()}`,
    event_type: 'cart_abandoned',
    timestamp: new Date().toISOString(),
    properties: {
      customer: { email, first_name: 'Bench', last_name: 'Shopper' },
      cart_id: randomUUID(),
      products: [
        { id: 'p1', name: 'Trail Shoe', price: 89.5, quantity: 1, description: 'A light trail running shoe' },
        { id: 'p2', name: 'Wool Socks', price: 12, quantity: 2, description: 'Merino socks' },
      ],
      total: 113.5,
      currency: 'USD',
      abandoned_at: new Date().toISOString(),
    },
  };
}

/** Posts every body to the webhook URL over `connections` at once, each answer a 202. */
export async function sendEvents(url: string, bodies: unknown[], connections: number, paceMs = 0): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++]!;
        const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        if (response.status !== 202) throw new Error(`webhook answered ${response.status}: ${await response.text()}`);
        if (paceMs > 0) await new Promise((resolve) => setTimeout(resolve, paceMs));
      }
    }),
  );
}

/** Every profile write Klaviyo accepted, single or in a bulk import job, by email, with when it arrived. */
export function profileWrites(requests: RecordedRequest[]): Array<{ email: string; at: number }> {
  const writes: Array<{ email: string; at: number }> = [];
  for (const request of requests) {
    if (request.method !== 'POST' || request.status === null || request.status >= 300) continue;
    const body = request.body as { data?: { attributes?: { email?: string; profiles?: { data?: Array<{ attributes?: { email?: string } }> } } } } | undefined;
    if (request.path === '/api/profile-import' && body?.data?.attributes?.email) writes.push({ email: body.data.attributes.email, at: request.receivedAt });
    if (request.path === '/api/profile-bulk-import-jobs') {
      for (const profile of body?.data?.attributes?.profiles?.data ?? []) if (profile.attributes?.email) writes.push({ email: profile.attributes.email, at: request.receivedAt });
    }
  }
  return writes;
}

/** The most items in any window of `windowMs` ending at one of them. */
export function busiestWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let busiest = 0;
  for (let start = 0, end = 0; end < sorted.length; end += 1) {
    while (sorted[end]! - sorted[start]! >= windowMs) start += 1;
    busiest = Math.max(busiest, end - start + 1);
  }
  return busiest;
}
