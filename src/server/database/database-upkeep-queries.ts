import type pg from 'pg';
import type { Queryable } from './database.ts';

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
 * block, so it goes on a connection of its own, as one statement.
 */
export async function vacuumTable(pool: pg.Pool, qualifiedName: string, options: { analyze: boolean }): Promise<void> {
  await pool.query(`VACUUM ${options.analyze ? '(ANALYZE) ' : ''}${qualifiedName}`);
}

/** ANALYZE alone: the planner's figures of a table that grows without dead rows. */
export async function analyzeTable(pool: pg.Pool, qualifiedName: string): Promise<void> {
  await pool.query(`ANALYZE ${qualifiedName}`);
}

/**
 * A checkpoint: writes the changed pages to the data files, after which the write-ahead
 * log before it is no longer needed and PostgreSQL recycles or removes its segments.
 */
export async function checkpoint(pool: pg.Pool): Promise<void> {
  await pool.query('CHECKPOINT');
}
