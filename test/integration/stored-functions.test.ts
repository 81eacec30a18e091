import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/server/database/database.ts';
import { runMigrations } from '../../src/server/database/migrate.ts';
import { storedFunctions } from '../../src/server/stored-functions.ts';
import type { StoredFunction } from '../../src/server/database/stored-function.ts';
import { recordEventArrivalsFunction } from '../../src/server/realtime/event-change-functions.ts';
import { createTestDatabase } from '../support/test-database.ts';

const migrations = path.resolve(import.meta.dirname, '../../src/server/database/migrations');

/** What PostgreSQL keeps of a definition: the text between its dollar quotes. */
function bodyOf(definition: string): string {
  const body = /\$\$([\s\S]*)\$\$/.exec(definition)?.[1];
  if (body === undefined) throw new Error(`No $$-quoted body in: ${definition.slice(0, 80)}`);
  return body;
}

let database: Database;
const db = () => database.pool;

async function storedBodies(): Promise<Record<string, string>> {
  const { rows } = await db().query<{ name: string; body: string }>(
    `SELECT p.proname AS name, p.prosrc AS body FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'public' AND p.proname = ANY($1::text[])`,
    [storedFunctions.map((stored) => stored.name)],
  );
  return Object.fromEntries(rows.map((row) => [row.name, row.body]));
}

const moduleBodies = () => Object.fromEntries(storedFunctions.map((stored) => [stored.name, bodyOf(stored.definition)]));

async function appliedAt(): Promise<Record<string, string>> {
  const { rows } = await db().query<{ name: string; applied_at: Date }>('SELECT name, applied_at FROM stored_functions');
  return Object.fromEntries(rows.map((row) => [row.name, row.applied_at.toISOString()]));
}

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await database?.close();
});

describe('the stored functions', () => {
  it('are, on a fresh database, as their modules hold them, each recorded once', async () => {
    expect(storedFunctions.length).toBeGreaterThanOrEqual(6);
    expect(await storedBodies()).toEqual(moduleBodies());
    const { rows } = await db().query<{ name: string }>('SELECT name FROM stored_functions ORDER BY name');
    expect(rows.map((row) => row.name)).toEqual(storedFunctions.map((stored) => stored.name).sort());
  });

  it('replace an older text on a database migrated before the functions were recorded', async () => {
    // An owner's database as migration 034 left it, but still with migration 031's text of
    // the arrivals trigger (its per-flow lock), and without the record of migration 035.
    const migration031 = await readFile(path.join(migrations, '031_change_log_arrivals.sql'), 'utf8');
    const olderArrivals = /CREATE OR REPLACE FUNCTION record_event_arrivals[\s\S]*?\n\$\$;/.exec(migration031)?.[0];
    expect(olderArrivals).toContain('pg_advisory_xact_lock');
    await db().query(olderArrivals!);
    await db().query('DROP TABLE stored_functions');
    await db().query("DELETE FROM schema_migrations WHERE name LIKE '035\\_%'");
    expect((await storedBodies()).record_event_arrivals).not.toBe(bodyOf(recordEventArrivalsFunction.definition));

    expect(await runMigrations(database.clientConfig, storedFunctions)).toEqual(['035_stored_function_hashes.sql']);

    expect(await storedBodies()).toEqual(moduleBodies());
    expect(Object.keys(await appliedAt()).sort()).toEqual(storedFunctions.map((stored) => stored.name).sort());
  });

  it('apply a changed text at the next start and leave the unchanged ones as they were', async () => {
    const before = await appliedAt();
    const changed: StoredFunction = {
      name: recordEventArrivalsFunction.name,
      definition: recordEventArrivalsFunction.definition.replace('BEGIN\n', 'BEGIN\n  -- a changed text\n'),
    };
    expect(changed.definition).not.toBe(recordEventArrivalsFunction.definition);
    const others = storedFunctions.filter((stored) => stored.name !== changed.name);

    await runMigrations(database.clientConfig, [...others, changed]);

    expect((await storedBodies()).record_event_arrivals).toBe(bodyOf(changed.definition));
    const after = await appliedAt();
    expect(after.record_event_arrivals).not.toBe(before.record_event_arrivals);
    for (const stored of others) expect(after[stored.name], stored.name).toBe(before[stored.name]);

    // And back to the module's text, as the next start with the module's text does.
    await runMigrations(database.clientConfig, storedFunctions);
    expect(await storedBodies()).toEqual(moduleBodies());
  });

  it('apply none of the changed texts when one of them fails, and name the one that failed', async () => {
    const before = await storedBodies();
    const changed: StoredFunction = {
      name: recordEventArrivalsFunction.name,
      definition: recordEventArrivalsFunction.definition.replace('BEGIN\n', 'BEGIN\n  -- changed, then rolled back\n'),
    };
    const broken: StoredFunction = { name: 'broken_function', definition: 'CREATE OR REPLACE FUNCTION broken_function() RETURNS int LANGUAGE sql AS $$ SELECT $$' };

    await expect(runMigrations(database.clientConfig, [changed, broken])).rejects.toThrow(/Stored function broken_function failed/);

    expect(await storedBodies()).toEqual(before);
    const { rows } = await db().query("SELECT 1 FROM stored_functions WHERE name = 'broken_function'");
    expect(rows).toHaveLength(0);
  });
});
