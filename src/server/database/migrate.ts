import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { StoredFunction } from './stored-function.ts';

const migrationsDirectory = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

const definitionHash = (definition: string) => createHash('sha256').update(definition).digest('hex');

/**
 * Applies the numbered SQL files in ./migrations that have not run yet, each in its own
 * transaction, then the stored functions whose text changed (`applyStoredFunctions`). An
 * advisory lock keeps two processes starting at once (web + worker) from applying the
 * same file twice.
 *
 * On a connection of its own, without the statement timeouts of the app's pool: a
 * migration may rightly take long, and so may waiting for another process's migrations.
 * `functions` are the stored functions to apply: the app's own list
 * (src/server/stored-functions.ts, handed down by whoever opens the database, so this
 * module imports no feature), or others a test hands (a changed text, say).
 */
export async function runMigrations(settings: pg.ClientConfig, functions: readonly StoredFunction[]): Promise<string[]> {
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
    await applyStoredFunctions(client, functions);
  } finally {
    await client.query('SELECT pg_advisory_unlock(727274)').catch(() => undefined);
    await client.end().catch(() => undefined);
  }
  return applied;
}

/**
 * Replaces each stored function whose text is not the one last applied, and records the
 * hash of the new text, all in one transaction: a database ends with every function as
 * its module holds it, whether it was created just now by the migrations (which define
 * the older texts) or ran the previous text for months. The hash, not the catalog's text,
 * decides, because PostgreSQL keeps a function's body but rewrites its header.
 */
async function applyStoredFunctions(client: pg.Client, functions: readonly StoredFunction[]): Promise<void> {
  const { rows } = await client.query<{ name: string; definition_sha256: string }>('SELECT name, definition_sha256 FROM stored_functions');
  const applied = new Map(rows.map((row) => [row.name, row.definition_sha256]));
  const changed = functions.filter((stored) => applied.get(stored.name) !== definitionHash(stored.definition));
  if (changed.length === 0) return;
  await client.query('BEGIN');
  let current = '';
  try {
    for (const stored of changed) {
      current = stored.name;
      await client.query(stored.definition);
      await client.query(
        `INSERT INTO stored_functions (name, definition_sha256) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET definition_sha256 = EXCLUDED.definition_sha256, applied_at = now()`,
        [stored.name, definitionHash(stored.definition)],
      );
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw new Error(`Stored function ${current} failed: ${(error as Error).message}`, { cause: error });
  }
}

/** Migration files not yet applied to the database `db` reaches (readiness: all must be). */
export async function findPendingMigrations(db: { query: pg.Pool['query'] }): Promise<string[]> {
  const files = (await readdir(migrationsDirectory)).filter((file) => /^\d{3}_.+\.sql$/.test(file));
  const { rows } = await db.query<{ name: string }>('SELECT name FROM schema_migrations');
  const done = new Set(rows.map((row) => row.name));
  return files.filter((file) => !done.has(file)).sort();
}
