import type pg from 'pg';
import type { Queryable } from '../database/database.ts';

/**
 * How long one upkeep statement may take. A server cancels the app's statements after a
 * few seconds (database.ts), which suits a request and not a vacuum of a large table.
 */
const UPKEEP_STATEMENT_TIMEOUT_MS = 10 * 60_000;

/** Whether the server runs its autovacuum: some are configured without it. */
export async function readAutovacuumEnabled(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ enabled: boolean }>("SELECT current_setting('autovacuum')::boolean AS enabled");
  return rows[0]!.enabled;
}

/**
 * A connection for one upkeep pass: its statements may run long, and only one process
 * at a time works (a server may have several web and worker processes, each with its
 * upkeep). Null when another process holds the pass's lock.
 */
export async function beginUpkeepSession(pool: pg.Pool): Promise<pg.PoolClient | null> {
  const client = await pool.connect();
  try {
    await client.query(`SET statement_timeout = ${UPKEEP_STATEMENT_TIMEOUT_MS}`);
    const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock(hashtext('flowsmith.database-upkeep')) AS locked");
    if (rows[0]!.locked) return client;
    await client.query('RESET statement_timeout');
    client.release();
    return null;
  } catch (error) {
    client.release(error instanceof Error ? error : true);
    throw error;
  }
}

/** Gives the pass's connection back as it found it. */
export async function endUpkeepSession(client: pg.PoolClient): Promise<void> {
  try {
    await client.query("SELECT pg_advisory_unlock(hashtext('flowsmith.database-upkeep'))");
    await client.query('RESET statement_timeout');
    client.release();
  } catch (error) {
    // A connection that cannot be reset is not handed to a request with our settings.
    client.release(error instanceof Error ? error : true);
  }
}

const longStatement = (text: string): pg.QueryConfig => ({ text, query_timeout: UPKEEP_STATEMENT_TIMEOUT_MS }) as pg.QueryConfig;

/** What PostgreSQL's statistics say of one table since its last vacuum and analyze. */
export interface TableActivity {
  /** Schema-qualified and quoted, ready for a statement. */
  qualifiedName: string;
  /** `schema.table`, for logs. */
  name: string;
  liveRows: number;
  deadRows: number;
  modifiedSinceAnalyze: number;
}

/**
 * The tables of the app's schemas with their live and dead rows. PGlite hands a
 * session's statistics over to the views only when asked (it has no idle loop that
 * reports them), so they are flushed first: `pg_stat_force_next_flush()` makes the end of
 * its own transaction report them, and the next statement reads them.
 */
export async function readTableActivity(db: Queryable): Promise<TableActivity[]> {
  await db.query('SELECT pg_stat_force_next_flush()');
  const { rows } = await db.query<{ schema: string; table: string; live: string; dead: string; modified: string }>(
    `SELECT schemaname AS schema, relname AS table, n_live_tup::text AS live, n_dead_tup::text AS dead, n_mod_since_analyze::text AS modified
       FROM pg_stat_user_tables
      WHERE schemaname IN ('public', 'pgboss')
      ORDER BY n_dead_tup DESC`,
  );
  return rows.map((row) => ({
    qualifiedName: `${quoteIdentifier(row.schema)}.${quoteIdentifier(row.table)}`,
    name: `${row.schema}.${row.table}`,
    liveRows: Number(row.live),
    deadRows: Number(row.dead),
    modifiedSinceAnalyze: Number(row.modified),
  }));
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * VACUUM (with ANALYZE when asked) of one table. VACUUM cannot run in a transaction
 * block, so it goes as one statement of its own.
 */
export async function vacuumTable(client: pg.PoolClient, qualifiedName: string, options: { analyze: boolean }): Promise<void> {
  await client.query(longStatement(`VACUUM ${options.analyze ? '(ANALYZE) ' : ''}${qualifiedName}`));
}

/** ANALYZE alone: the planner's figures of a table that grows without dead rows. */
export async function analyzeTable(client: pg.PoolClient, qualifiedName: string): Promise<void> {
  await client.query(longStatement(`ANALYZE ${qualifiedName}`));
}

/**
 * A checkpoint: writes the changed pages to the data files, after which the write-ahead
 * log before it is no longer needed and PostgreSQL recycles or removes its segments.
 */
export async function checkpoint(client: pg.PoolClient): Promise<void> {
  await client.query(longStatement('CHECKPOINT'));
}
