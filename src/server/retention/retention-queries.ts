import type { Queryable } from '../database/database.ts';
import { DEFAULT_RETENTION_DAYS } from '../../shared/retention/retention-days.ts';

/** The retention module's table: one period per owner (no row: the default). */

export async function findRetentionDays(db: Queryable, userId: string): Promise<number> {
  const { rows } = await db.query<{ retention_days: number }>('SELECT retention_days FROM retention_settings WHERE user_id = $1', [userId]);
  return rows[0]?.retention_days ?? DEFAULT_RETENTION_DAYS;
}

export async function saveRetentionDays(db: Queryable, userId: string, days: number, now: Date): Promise<void> {
  await db.query(
    `INSERT INTO retention_settings (user_id, retention_days, updated_at) VALUES ($1, $2, $3)
     ON CONFLICT (user_id) DO UPDATE SET retention_days = EXCLUDED.retention_days, updated_at = EXCLUDED.updated_at`,
    [userId, days, now],
  );
}

/** Every owner with their period, a page at a time (by id, after `afterId`). */
export async function listRetentionPeriods(db: Queryable, afterId: string, limit: number): Promise<Array<{ userId: string; days: number }>> {
  const { rows } = await db.query<{ id: string; retention_days: number }>(
    `SELECT u.id, COALESCE(s.retention_days, $3::int) AS retention_days
       FROM users u LEFT JOIN retention_settings s ON s.user_id = u.id
      WHERE u.id > $1 ORDER BY u.id LIMIT $2`,
    [afterId, limit, DEFAULT_RETENTION_DAYS],
  );
  return rows.map((row) => ({ userId: row.id, days: row.retention_days }));
}
