import { PgBoss } from 'pg-boss';
import type pg from 'pg';

/**
 * Sends one job on a scheduled queue, as pg-boss's timekeeper does when the cron comes
 * due: a test cannot wait for the next quarter hour or minute.
 */
export async function sendScheduledJob(pool: pg.Pool, queue: string): Promise<void> {
  const sender = new PgBoss({ db: { executeSql: (text, values) => pool.query(text, values as unknown[] | undefined) }, schema: 'pgboss', supervise: false, schedule: false, migrate: false });
  sender.on('error', () => undefined);
  await sender.start();
  try {
    await sender.send(queue, null);
  } finally {
    await sender.stop({ close: false, graceful: false });
  }
}

/** The cron and time zone of a queue's schedule, as pg-boss stored it. */
export async function scheduleOf(pool: pg.Pool, queue: string): Promise<Array<{ cron: string; timezone: string }>> {
  const { rows } = await pool.query<{ cron: string; timezone: string }>('SELECT cron, timezone FROM pgboss.schedule WHERE name = $1', [queue]);
  return rows;
}
