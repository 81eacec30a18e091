import type { Queryable } from './database.ts';

/**
 * How big the database is and what takes the room, for /metrics and the dashboard: a
 * database that grows without bound, or tables full of dead rows that vacuum does not
 * clear, show here before the disk fills. Both engines answer these: PGlite keeps
 * PostgreSQL's statistics (pg_stat_user_tables) like a server.
 */

/** The whole database on disk: tables, indexes, TOAST, and the catalogue. */
export async function findDatabaseBytes(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ bytes: string }>('SELECT pg_database_size(current_database()) AS bytes');
  return Number(rows[0]!.bytes);
}

export interface TableSize {
  /** `schema.table`: the app's own tables and pg-boss's, a small fixed set. */
  table: string;
  /** On disk, its indexes and TOAST included. */
  bytes: number;
  /** PostgreSQL's statistics' estimates, updated as transactions end and by vacuum and analyze. */
  liveRows: number;
  deadRows: number;
}

/**
 * The `limit` largest tables of the app (public) and of pg-boss. A partition is counted
 * under the table it belongs to: pg-boss splits its jobs by queue and its statistics by
 * day, and a series per day's partition would be a new name every day.
 */
export async function listLargestTables(db: Queryable, limit = 10): Promise<TableSize[]> {
  const { rows } = await db.query<{ table_name: string; bytes: string; live_rows: string; dead_rows: string }>(
    `SELECT n.nspname || '.' || c.relname AS table_name,
            sum(pg_total_relation_size(s.relid)) AS bytes, sum(s.n_live_tup) AS live_rows, sum(s.n_dead_tup) AS dead_rows
       FROM pg_stat_user_tables s
       JOIN pg_class c ON c.oid = coalesce(pg_partition_root(s.relid), s.relid)
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE s.schemaname IN ('public', 'pgboss')
      GROUP BY n.nspname, c.relname
      ORDER BY sum(pg_total_relation_size(s.relid)) DESC, 1
      LIMIT $1`,
    [limit],
  );
  return rows.map((row) => ({ table: row.table_name, bytes: Number(row.bytes), liveRows: Number(row.live_rows), deadRows: Number(row.dead_rows) }));
}
