import pg from 'pg';
import { startEmbeddedPostgres } from './embedded-postgres.ts';
import { runMigrations } from './migrate.ts';

export interface Database {
  pool: pg.Pool;
  connectionString: string;
  close(): Promise<void>;
}

export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

/**
 * Opens the app's database: the server at `databaseUrl` when given, otherwise embedded
 * PostgreSQL under `dataDir` (or in memory when `dataDir` is null). Migrations run before
 * this returns, so callers always see the current schema.
 */
export async function openDatabase(options: {
  databaseUrl: string | undefined;
  dataDir: string | null;
  poolSize?: number;
}): Promise<Database> {
  const embedded = options.databaseUrl ? undefined : await startEmbeddedPostgres(options.dataDir ?? undefined);
  const connectionString = options.databaseUrl ?? embedded!.connectionString;
  const pool = new pg.Pool({ connectionString, max: options.poolSize ?? 10 });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  try {
    await runMigrations(pool);
  } catch (error) {
    await pool.end();
    await embedded?.stop();
    throw error;
  }
  return {
    pool,
    connectionString,
    async close() {
      await pool.end();
      await embedded?.stop();
    },
  };
}

/** Runs `work` in one transaction, committing on success and rolling back on any error. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
