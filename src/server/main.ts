import path from 'node:path';
import { loadConfig, ConfigError } from './config.ts';
import { openDatabase, type Database } from './database/database.ts';
import { storedFunctions } from './stored-functions.ts';
import { isDatabaseUnavailable } from './database/database-errors.ts';
import type { Logger } from 'pino';
import type { AppConfig } from './config.ts';
import { createFaultPolicy } from './platform/process-faults.ts';
import { systemClock } from './platform/clock.ts';
import { createLogger } from './logger.ts';
import { createMailer } from './mail/mailer.ts';
import { loadOrCreateSecret } from './platform/secrets.ts';
import { loadCredentialCipher } from './platform/credential-cipher.ts';
import { buildApp } from './app.ts';

/** Starts Flowsmith: configuration, database (embedded unless DATABASE_URL), migrations, HTTP. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  let stop: (reason: string, exitCode: number) => Promise<void> = async (_reason, exitCode) => process.exit(exitCode);
  const faults = createFaultPolicy({ logger, clock: systemClock, giveUp: (reason) => void stop(reason, 1) });
  process.on('uncaughtException', (error, origin) => faults.onUncaughtException(error, origin));
  process.on('unhandledRejection', (reason) => faults.onUnhandledRejection(reason));
  const authSecret = config.authSecret ?? (await loadOrCreateSecret(config.dataDir, 'auth-secret'));
  const credentialCipher = await loadCredentialCipher(config);
  const database = await openDatabaseWhenReachable(config, logger);
  logger.info({ database: config.databaseUrl ? 'server' : 'embedded', role: config.role }, 'database ready');
  const mailer = createMailer({
    smtpUrl: config.smtpUrl,
    mailFrom: config.mailFrom,
    outboxDir: path.join(config.dataDir, 'outbox'),
    logger,
  });
  const app = await buildApp({ config, database, mailer, logger, authSecret, credentialCipher });

  let stopping = false;
  stop = async (reason: string, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'shutting down');
    const forceExit = setTimeout(() => process.exit(1), 15_000);
    forceExit.unref();
    try {
      await app.close();
      mailer.close();
      await database.close();
      process.exit(exitCode);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM', 0));
  process.once('SIGINT', () => void stop('SIGINT', 0));

  if (config.role === 'worker') {
    // A worker serves no HTTP: `ready` starts the event worker, `close` (on a signal) lets
    // its jobs finish or hands them back to the queue.
    await app.ready();
    logger.info({ role: config.role }, 'Flowsmith worker is running');
  } else {
    await app.listen({ port: config.port, host: '0.0.0.0' });
    logger.info({ url: config.publicUrl, role: config.role }, 'Flowsmith is running');
  }
}

/**
 * A database server that is still starting (as beside the app in a compose file) or
 * restarting is waited for, up to a minute; then the start fails, and the supervisor
 * decides. Anything else (a bad migration, say) fails the start at once.
 */
async function openDatabaseWhenReachable(config: AppConfig, logger: Logger): Promise<Database> {
  const giveUpAt = Date.now() + 60_000;
  let pauseMs = 1_000;
  for (;;) {
    try {
      // Event jobs run concurrently (up to 100 per worker process) and each holds a connection
      // only for a query at a time; this leaves room for them beside the web requests.
      return await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.role === 'web' ? 20 : 30, logger, storedFunctions });
    } catch (error) {
      if (!config.databaseUrl || !isDatabaseUnavailable(error) || Date.now() + pauseMs > giveUpAt) throw error;
      logger.warn({ err: { message: (error as Error).message }, retryInMs: pauseMs }, 'the database is not reachable yet; trying again');
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      pauseMs = Math.min(pauseMs * 2, 10_000);
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`Flowsmith could not start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
