import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const migrationsDirectory = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * Applies the numbered SQL files in ./migrations that have not run yet, each in its own
 * transaction. An advisory lock keeps two processes starting at once (web + worker)
 * from applying the same file twice.
 *
 * On a connection of its own, without the statement timeouts of the app's pool: a
 * migration may rightly take long, and so may waiting for another process's migrations.
 */
export async function runMigrations(settings: pg.ClientConfig): Promise<string[]> {
  const client = new pg.Client({ ...settings, statement_timeout: undefined, query_timeout: undefined, idle_in_transaction_session_timeout: undefined });
  // Without a listener, a connection lost while migrating would end the process instead
  // of failing the start with the statement's error.
  client.on('error', () => undefined);
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock(727274)');
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const done = new Set(
      (await client.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((row) => row.name),
    );
    const files = (await readdir(migrationsDirectory)).filter((file) => /^\d{3}_.+\.sql$/.test(file)).sort();
    for (const file of files) {
      if (done.has(file)) continue;
      const sql = await readFile(path.join(migrationsDirectory, file), 'utf8');
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
        await client.query('COMMIT');
        applied.push(file);
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`Migration ${file} failed: ${(error as Error).message}`, { cause: error });
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock(727274)').catch(() => undefined);
    await client.end().catch(() => undefined);
  }
  return applied;
}

/** Migration files not yet applied to the database `db` reaches (readiness: all must be). */
export async function findPendingMigrations(db: { query: pg.Pool['query'] }): Promise<string[]> {
  const files = (await readdir(migrationsDirectory)).filter((file) => /^\d{3}_.+\.sql$/.test(file));
  const { rows } = await db.query<{ name: string }>('SELECT name FROM schema_migrations');
  const done = new Set(rows.map((row) => row.name));
  return files.filter((file) => !done.has(file)).sort();
}
