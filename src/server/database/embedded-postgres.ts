import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  connectionString: string;
  stop(): Promise<void>;
}

/**
 * Runs PGlite (PostgreSQL in WebAssembly) behind a loopback socket so that the rest of
 * the app, pg-boss and better-auth included, talks to it through the ordinary `pg`
 * driver. One data path then serves both the embedded default and a real server
 * (docs/decisions/0002-one-database-path.md).
 *
 * `dataDir` undefined keeps the database in memory (tests).
 */
export async function startEmbeddedPostgres(dataDir: string | undefined): Promise<EmbeddedPostgres> {
  let database: PGlite;
  if (dataDir) {
    const directory = path.join(dataDir, 'pgdata');
    await mkdir(directory, { recursive: true });
    database = await PGlite.create({ dataDir: directory });
  } else {
    database = await PGlite.create();
  }
  const server = new PGLiteSocketServer({ db: database, host: '127.0.0.1', port: 0, maxConnections: 50 });
  await server.start();
  return {
    connectionString: `postgres://postgres@${server.getServerConn()}/postgres`,
    async stop() {
      await server.stop();
      await database.close();
    },
  };
}
