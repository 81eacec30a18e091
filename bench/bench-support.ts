import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import type { Queryable } from '../src/server/database/database.ts';
import { createCredentialCipher, parseCredentialsKey } from '../src/server/credentials/credential-cipher.ts';
import { saveCredentials } from '../src/server/credentials/credential-store.ts';
import { credentialsInputSchema } from '../src/shared/credentials/credential-schemas.ts';
import type { FlowType } from '../src/shared/flows/flow-types.ts';
import type { Assistant } from '../src/shared/flows/flow-schemas.ts';

/** What both benchmarks share: a fresh database, an owner with a flow, and child processes. */
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
  await saveCredentials(pool, cipher, userId, credentials, { now: new Date(), obtainedShopifyToken: null });
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
