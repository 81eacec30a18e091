import type pg from 'pg';
import { inTransaction } from '../database/database.ts';
import { deleteOwnerEvents, listOwnerEventIds } from '../events/event-queries.ts';
import { deleteEventJobs } from '../background/job-queue-queries.ts';
import { deleteOwnerChanges } from '../realtime/event-change-queries.ts';
import { deleteUserAndTokens } from '../auth/account-queries.ts';
import { clearAccountFailures } from '../auth/login-lockout.ts';

/**
 * Deletes an owner and everything kept for them in one transaction
 * (docs/decisions/0029-retention-and-account-deletion.md): the queued jobs of their
 * events (pg-boss's table has no key to cascade from), the live stream's changes (ids
 * only, no foreign key), their events through the events module, their one-time tokens
 * and lockout counter, and last the owner's row, whose foreign keys cascade to every
 * other owner-keyed table (sessions, accounts, flows, keys, bulk jobs, sandbox, settings).
 */
export async function deleteOwnerEverywhere(pool: pg.Pool, user: { id: string; email: string }): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    const eventIds = await listOwnerEventIds(client, user.id);
    await deleteEventJobs(client, eventIds);
await deleteOwnerChanges(client, user.id);
    await deleteOwnerEvents(client, user.id);
await clearAccountFailures(client, user.email);
    return deleteUserAndTokens(client, user);
  });
}
