import type { Queryable } from '../database/database.ts';

/**
 * Dry-run test events (sent from the console): the engine generates their texts and
 * stops before Klaviyo. The flag lives on the stored event, so it holds on whichever
 * worker process picks the job up.
 */
export async function markDryRun(db: Queryable, eventId: string): Promise<void> {
  await db.query('UPDATE events SET dry_run = true WHERE id = $1', [eventId]);
}

export async function isDryRunEvent(db: Queryable, eventId: string): Promise<boolean> {
  const { rows } = await db.query<{ dry_run: boolean }>('SELECT dry_run FROM events WHERE id = $1', [eventId]);
  return rows[0]?.dry_run ?? false;
}
