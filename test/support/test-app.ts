import { Writable } from 'node:stream';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server/app.ts';
import { testPasswordHashing } from './test-password-hashing.ts';
import { loadConfig, type AppConfig } from '../../src/server/config.ts';
import { createLogger } from '../../src/server/logger.ts';
import { createMailer } from '../../src/server/mail/mailer.ts';
import { ManualClock } from './manual-clock.ts';
import { createTestDatabase } from './test-database.ts';
import { startSmtpCapture, type SmtpCapture } from './smtp-capture.ts';
import { inProcessOrigin, registerInProcessApp, unregisterInProcessApp } from './in-process-fetch.ts';
import type { Database } from '../../src/server/database/database.ts';
import type { OverloadLimits } from '../../src/server/observability/overload.ts';
import type { DatabaseUpkeepOptions } from '../../src/server/background/database-upkeep.ts';
import type { EngineOptions } from '../../src/server/engine/spine/engine.ts';
import type { CredentialsLoader } from '../../src/server/engine/spine/engine-credentials.ts';

/**
 * Engine timings for tests: quick supervision of lost jobs, and three tries a second or
 * two apart on the app's clock (a test moves the manual clock to reach the next try).
 */
export const testEngineOptions: Partial<EngineOptions> = {
  retry: { tries: 3, delaysMs: [1_000, 2_000], jitter: 0, maxInPlaceWaitMs: 1_000, maxRetryAfterMs: 60 * 60_000 },
  pollIntervalMs: 100,
  retryDelaySeconds: 1,
  heartbeatSeconds: 10,
  superviseIntervalSeconds: 1,
  stopTimeoutMs: 2_000,
  timerSweepIntervalMs: 100,
};

export interface TestApp {
  app: FastifyInstance;
  /** Where `fetch` reaches the app: its port, or its in-process origin (test/support/in-process-fetch.ts). */
  baseUrl: string;
  config: AppConfig;
  database: Database;
  /** The mails the app sent; only for an app started with `smtp: true`. */
  smtp: SmtpCapture;
  clock: ManualClock;
  /** Every log line the app wrote, as raw JSON text. */
  logLines: string[];
  close(): Promise<void>;
}

/**
 * The real app with a fresh database and a manual clock. `env` adds configuration as the
 * environment would. It answers in-process through `inject` unless the test asks for a
 * real port (`listen: true`: a live stream, socket limits, another process calling it);
 * an SMTP server catches its mails when the test reads them (`smtp: true`), and without
 * one the mailer keeps them in the data folder's outbox, as it does in development.
 */
export async function startTestApp(
  options: {
    listen?: boolean;
    smtp?: boolean;
    env?: Record<string, string>;
    webRoot?: string;
    accountRateLimitPerMinute?: number;
    pixelRateLimitPerMinute?: number;
    engine?: Partial<EngineOptions>;
    loadEngineCredentials?: CredentialsLoader;
    overload?: Partial<OverloadLimits>;
    databaseUpkeep?: Partial<DatabaseUpkeepOptions>;
    /** better-auth's own scrypt, as the product hashes, instead of the tests' cheaper one. */
    productPasswordHashing?: boolean;
  } = {},
): Promise<TestApp> {
  const smtp = options.smtp ? await startSmtpCapture() : null;
  const database = await createTestDatabase();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'flowsmith-test-'));
  const logLines: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      callback();
    },
  });
  const logger = createLogger('info', logStream);
  const clock = new ManualClock();
  // PUBLIC_URL (used in mails and webhook URLs) must name the address tests reach, so a
  // free port is picked first and the app configured with it. Another test file may take
  // that port before the app listens on it (a CI run failed on EADDRINUSE so): then the
  // app is built again on another.
  const mailers: Array<ReturnType<typeof createMailer>> = [];
  const build = async (port: number, publicUrl: string): Promise<{ app: FastifyInstance; config: AppConfig }> => {
    const config = loadConfig({
      DATA_DIR: dataDir,
      ...(smtp ? { SMTP_URL: smtp.url } : {}),
      PORT: String(port),
      PUBLIC_URL: publicUrl,
      ...options.env,
    });
    const mailer = createMailer({ smtpUrl: config.smtpUrl, mailFrom: config.mailFrom, outboxDir: path.join(dataDir, 'outbox'), logger });
    mailers.push(mailer);
    const app = await buildApp({
      config,
      database,
      mailer,
      logger,
      clock,
      authSecret: 'test-secret-that-is-long-enough-for-hmac-signing',
      accountRateLimitPerMinute: options.accountRateLimitPerMinute ?? 10_000,
      engine: { ...testEngineOptions, ...options.engine },
      ...(options.pixelRateLimitPerMinute ? { pixelRateLimitPerMinute: options.pixelRateLimitPerMinute } : {}),
      ...(options.loadEngineCredentials ? { loadEngineCredentials: options.loadEngineCredentials } : {}),
      ...(options.webRoot ? { webRoot: options.webRoot } : {}),
      // Off unless a test asks: a whole suite on two cores stalls the event loop now and then
      // (embedded PostgreSQL runs in this process), and a shed request would fail an unrelated test.
      overload: options.overload ?? { maxEventLoopDelayMs: 0 },
      ...(options.databaseUpkeep ? { databaseUpkeep: options.databaseUpkeep } : {}),
      ...(options.productPasswordHashing ? {} : { passwordHashing: testPasswordHashing }),
    });
    return { app, config };
  };
  const listening = async (attempt: number): Promise<{ app: FastifyInstance; config: AppConfig; port: number }> => {
    const port = await freePort();
    const { app, config } = await build(port, `http://127.0.0.1:${port}`);
    try {
      await app.listen({ port, host: '127.0.0.1' });
      return { app, config, port };
    } catch (error) {
      await app.close();
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 5) throw error;
      return listening(attempt + 1);
    }
  };
  const inProcess = async () => {
    // The origin is known before the app is built, so PUBLIC_URL (mails, webhook addresses)
    // names where the test reaches it. No port is opened.
    const origin = inProcessOrigin();
    const { app, config } = await build(0, origin);
    await app.ready();
    registerInProcessApp(origin, app);
    return { app, config, baseUrl: origin, inProcess: true };
  };
  const started = options.listen
    ? await listening(1).then(({ app, config, port }) => ({ app, config, baseUrl: `http://127.0.0.1:${port}`, inProcess: false }))
    : await inProcess();
  const { app, config, baseUrl } = started;
  return {
    app,
    baseUrl,
    config,
    database,
    get smtp(): SmtpCapture {
      if (!smtp) throw new Error('this test app has no SMTP server: start it with { smtp: true } to read its mails');
      return smtp;
    },
    clock,
    logLines,
    async close() {
      // Everything is released even when the app cannot close cleanly (its database gone).
      try {
        if (started.inProcess) unregisterInProcessApp(baseUrl);
        await app.close();
      } finally {
        for (const mailer of mailers) mailer.close();
        try {
          await database.close();
        } finally {
          await smtp?.close();
          await rm(dataDir, { recursive: true, force: true });
        }
      }
    },
  };
}


async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
