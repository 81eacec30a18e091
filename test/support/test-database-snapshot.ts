import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import { serveEmbeddedDatabase } from '../../src/server/database/embedded-wire-server.ts';
import { runMigrations } from '../../src/server/database/migrate.ts';
import { storedFunctions } from '../../src/server/stored-functions.ts';

/**
 * One migrated database per test run, which every test database then starts from.
 *
 * Migrating a fresh database (our files and pg-boss's schema) takes 3 to 5 s of CPU on
 * embedded PGlite; loading a snapshot of one takes 0.7 s. With some sixty databases a run,
 * that was half of the embedded phase. A database started from the snapshot still runs
 * the migrations, which then find nothing to apply, so a test can never see a schema the
 * migrations would not have made.
 */
/** The schema pg-boss makes at its first start, made here once so each app finds it. */
async function createJobSchema(connectionString: string): Promise<void> {
  const boss = new PgBoss({ connectionString, schema: 'pgboss', schedule: false, supervise: false, max: 1 });
  boss.on('error', () => undefined);
  await boss.start();
  await boss.stop({ graceful: false });
}

/** Migrates `database` through the wire server, as the app's own start would. */
async function migrateEmbedded(database: PGlite): Promise<void> {
  const server = await serveEmbeddedDatabase(database, { port: 0 });
  const connectionString = `postgres://postgres@127.0.0.1:${server.port}/postgres`;
  try {
    await runMigrations({ connectionString }, storedFunctions);
    await createJobSchema(connectionString);
  } finally {
    await server.close();
  }
}

/** For in-memory databases (the integration tests): a `dumpDataDir` file. */
export async function createEmbeddedSnapshot(): Promise<{ file: string; remove(): Promise<void> }> {
  const database = await PGlite.create();
  await migrateEmbedded(database);
  const snapshot = await database.dumpDataDir('none');
  await database.close();
  const directory = await mkdtemp(path.join(os.tmpdir(), 'flowsmith-snapshot-'));
  const file = path.join(directory, 'migrated.tar');
  await writeFile(file, Buffer.from(await snapshot.arrayBuffer()));
  return { file, remove: () => rm(directory, { recursive: true, force: true }) };
}

/**
 * For servers started as processes (the browser tests): a migrated data directory, which
 * each copies to `DATA_DIR/pgdata` (embedded-postgres-thread.ts's layout) before it starts.
 */
export async function createEmbeddedDataDirectory(): Promise<{ directory: string; remove(): Promise<void> }> {
  const parent = await mkdtemp(path.join(os.tmpdir(), 'flowsmith-pgdata-'));
  const directory = path.join(parent, 'pgdata');
  const database = await PGlite.create({ dataDir: directory });
  await migrateEmbedded(database);
  await database.close();
  return { directory, remove: () => rm(parent, { recursive: true, force: true }) };
}

export async function createServerTemplate(adminUrl: string): Promise<{ name: string; remove(): Promise<void> }> {
  const name = `flowsmith_template_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await runMigrations({ connectionString: url.toString() }, storedFunctions);
  await createJobSchema(url.toString());
  return {
    name,
    async remove() {
      const cleanup = new pg.Client({ connectionString: adminUrl });
      await cleanup.connect();
      try {
        await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await cleanup.end();
      }
    },
  };
}
