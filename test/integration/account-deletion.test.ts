import { describe, expect, it } from 'vitest';
import type pg from 'pg';
import { ownerWithFlows, postEvent, sampleEvent, useEngineScenario, waitForEvent, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { strongPassword } from '../support/accounts.ts';
import { HttpClient } from '../support/http-client.ts';
import { accountDeletionMessages } from '../../src/shared/auth/account-deletion.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * Deleting an account (docs/decisions/0029-retention-and-account-deletion.md): after the
 * password, nothing of the owner is left in any table, another owner keeps everything,
 * a mail confirms it, and a wrong password deletes nothing.
 */
const scenario = useEngineScenario({ standIns: allStandIns, smtp: true });

const db = () => scenario.testApp.database.pool;

interface Column {
  schema: string;
  table: string;
  column: string;
  dataType: string;
}

/** Every column of every table of the app's schemas (and pg-boss's), from the catalogue: a table added later is scanned too. */
async function allColumns(pool: pg.Pool): Promise<Column[]> {
  const { rows } = await pool.query<{ table_schema: string; table_name: string; column_name: string; data_type: string }>(
    `SELECT c.table_schema, c.table_name, c.column_name, c.data_type
       FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE t.table_type = 'BASE TABLE' AND c.table_schema NOT IN ('pg_catalog', 'information_schema')`,
  );
  return rows.map((row) => ({ schema: row.table_schema, table: row.table_name, column: row.column_name, dataType: row.data_type }));
}

/**
 * Where the owner still shows: rows keyed by their id, or any text or JSON holding their
 * id, email or the id of one of their events (pg-boss's jobs name only the event).
 */
async function tracesOf(owner: { userId: string; email: string; eventIds?: string[] }): Promise<string[]> {
  const needles = [owner.userId, owner.email, ...(owner.eventIds ?? [])].map((needle) => needle.toLowerCase());
  const traces: string[] = [];
  for (const column of await allColumns(db())) {
    const name = `"${column.schema}"."${column.table}"."${column.column}"`;
    const from = `"${column.schema}"."${column.table}"`;
    const target = `"${column.column}"`;
    if (['user_id', 'owner_id'].includes(column.column)) {
      const { rows } = await db().query<{ n: number }>(`SELECT count(*)::int AS n FROM ${from} WHERE ${target}::text = $1`, [owner.userId]);
      if (rows[0]!.n > 0) traces.push(`${name} = owner (${rows[0]!.n})`);
    }
    if (['text', 'character varying', 'jsonb', 'json'].includes(column.dataType)) {
      const { rows } = await db().query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${from} WHERE EXISTS (SELECT 1 FROM unnest($1::text[]) AS needle WHERE strpos(lower(${target}::text), needle) > 0)`,
        [needles],
      );
      if (rows[0]!.n > 0) traces.push(`${name} holds the owner's id, email or events (${rows[0]!.n})`);
    }
  }
  return traces;
}

/** How many rows each table holds for the owner (the scan's counts, for comparing before and after). */
async function footprintOf(owner: { userId: string; email: string; eventIds?: string[] }): Promise<string[]> {
  return (await tracesOf(owner)).sort();
}

async function busyOwner(label: string): Promise<Owner & { email: string; eventIds: string[] }> {
  const owner = await ownerWithFlows(scenario, { post_purchase: {} });
  const session = await owner.client.call(endpoints.account.session);
  const email = session.json.user.email as string;
  const eventIds: string[] = [];
  for (let index = 0; index < 2; index += 1) {
    scenario.testApp.clock.advance(1_000);
    const response = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: `${label}-${index}@example.com` }));
    expect(response.status, response.text).toBe(202);
    eventIds.push(response.json.eventId as string);
    const event = await waitForEvent(db(), response.json.eventId as string);
    expect(event.status, event.error ?? '').toBe('delivered');
  }
  expect((await owner.client.call(endpoints.retention.save, { body: { retentionDays: 90 } })).status).toBe(200);
  // A reset token (better-auth's verifications) and a failed sign-in (the lockout's counter) name the owner too.
  expect((await new HttpClient(scenario.testApp.baseUrl).call(endpoints.account.forgotPassword, { body: { email } })).status).toBe(200);
  await scenario.testApp.smtp.waitForMail(email, 'Reset your');
  expect((await new HttpClient(scenario.testApp.baseUrl).call(endpoints.account.signIn, { body: { email, password: 'Not-the-password-1' } })).status).toBe(401);
  return { ...owner, email, eventIds };
}

describe('deleting an account', () => {
  it('with a wrong password deletes nothing and says why', async () => {
    const owner = await busyOwner('wrong');
    const before = await footprintOf(owner);
    expect(before.length).toBeGreaterThan(10);
    const refused = await owner.client.call(endpoints.account.delete, { body: { password: 'Garden-path-43', confirm: true } });
    expect(refused.status, refused.text).toBe(401);
    expect(refused.json.message).toBe(accountDeletionMessages.wrongPassword);
    const unconfirmed = await owner.client.call(endpoints.account.delete, { body: { password: strongPassword } });
    expect(unconfirmed.status, unconfirmed.text).toBe(400);
    const empty = await owner.client.call(endpoints.account.delete, { body: { password: '', confirm: true } });
    expect(empty.status, empty.text).toBe(400);
    expect(empty.json.message).toBe(accountDeletionMessages.passwordRequired);
    expect(await footprintOf(owner)).toEqual(before);
    expect((await owner.client.call(endpoints.account.session)).status).toBe(200);
  });

  it('locks out after as many wrong passwords as sign-in does', async () => {
    const owner = await busyOwner('lock');
    const statuses = [];
    for (let index = 0; index < 5; index += 1) {
      statuses.push((await owner.client.call(endpoints.account.delete, { body: { password: `Wrong-pass-${index}`, confirm: true } })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    // Locked: even the right password waits, and nothing is deleted.
    const locked = await owner.client.call(endpoints.account.delete, { body: { password: strongPassword, confirm: true } });
    expect(locked.status).toBe(429);
    expect((await owner.client.call(endpoints.account.session)).status).toBe(200);
  });

  it('leaves no row of the owner in any table, touches no other owner, signs out and mails a confirmation', async () => {
    const doomed = await busyOwner('doomed');
    const other = await busyOwner('other');
    const otherBefore = await footprintOf(other);
    expect((await footprintOf(doomed)).length).toBeGreaterThan(10);

    const deleted = await doomed.client.call(endpoints.account.delete, { body: { password: strongPassword, confirm: true } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.json.message).toBe(accountDeletionMessages.deleted);

    expect(await tracesOf(doomed)).toEqual([]);
    expect(await footprintOf(other)).toEqual(otherBefore);
    const mail = await scenario.testApp.smtp.waitForMail(doomed.email, accountDeletionMessages.mailSubject);
    expect(mail.body).toContain('Your Flowsmith account is deleted');

    expect((await doomed.client.call(endpoints.account.session)).status).toBe(401);
    // Past the address's lockout window (the other tests here failed sign-ins from this address on purpose).
    scenario.testApp.clock.advance(16 * 60_000);
    const signIn = await new HttpClient(scenario.testApp.baseUrl).call(endpoints.account.signIn, { body: { email: doomed.email, password: strongPassword } });
    expect(signIn.status).toBe(401);
    expect((await other.client.call(endpoints.account.session)).status).toBe(200);
    // No log line carries the password.
    expect(scenario.testApp.logLines.some((line) => line.includes(strongPassword))).toBe(false);
  });
});

describe('a webhook racing an account deletion', () => {
  it('is answered 404, not 500, when the flow it names was deleted a moment before', async () => {
    const owner = await ownerWithFlows(scenario, { post_purchase: {} });
    const path = owner.flows.post_purchase.webhookPath;
    // The intake now holds the flow in its one-second cache (on the app's clock, which stands still here).
    expect((await postEvent(scenario.testApp.baseUrl, path, sampleEvent('post_purchase', { email: 'race-1@example.com' }))).status).toBe(202);
    const password = strongPassword;
    const deleted = await owner.client.call(endpoints.account.delete, { body: { password, confirm: true } });
    expect(deleted.status, deleted.text).toBe(200);
    const late = await postEvent(scenario.testApp.baseUrl, path, sampleEvent('post_purchase', { email: 'race-2@example.com' }));
    expect(late.status, late.text).toBe(404);
  });
});
