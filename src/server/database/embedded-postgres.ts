import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { serveEmbeddedDatabase } from './embedded-wire-server.ts';

export interface EmbeddedPostgres {
  connectionString: string;
  stop(): Promise<void>;
}

/**
 * Runs PGlite (PostgreSQL in WebAssembly) behind a loopback socket so that the rest of
 * the app, pg-boss and better-auth included, talks to it through the ordinary `pg`
 * driver (embedded-wire-server.ts keeps concurrent connections from mixing). One data path then serves both the embedded default and a real server
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
  const server = await serveEmbeddedDatabase(database);
  return {
    connectionString: `postgres://postgres@127.0.0.1:${server.port}/postgres`,
    async stop() {
      await server.close();
      await database.close();
    },
  };
}
