import path from 'node:path';
import { loadConfig, ConfigError } from './config.ts';
import { openDatabase } from './database/database.ts';
import { createLogger } from './logger.ts';
import { createMailer } from './mail/mailer.ts';
import { loadOrCreateSecret } from './platform/secrets.ts';
import { loadCredentialCipher } from './credentials/credential-cipher.ts';
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
  const authSecret = config.authSecret ?? (await loadOrCreateSecret(config.dataDir, 'auth-secret'));
  const credentialCipher = await loadCredentialCipher(config);
  // Event jobs run concurrently (up to 100 per worker process) and each holds a connection
  // only for a query at a time; this leaves room for them beside the web requests.
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.role === 'web' ? 20 : 30 });
  logger.info({ database: config.databaseUrl ? 'server' : 'embedded', role: config.role }, 'database ready');
  const mailer = createMailer({
    smtpUrl: config.smtpUrl,
    mailFrom: config.mailFrom,
    outboxDir: path.join(config.dataDir, 'outbox'),
    logger,
  });
  const app = await buildApp({ config, database, mailer, logger, authSecret, credentialCipher });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const forceExit = setTimeout(() => process.exit(1), 15_000);
    forceExit.unref();
    try {
      await app.close();
      mailer.close();
      await database.close();
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));

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

main().catch((error: unknown) => {
  process.stderr.write(`Flowsmith could not start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
