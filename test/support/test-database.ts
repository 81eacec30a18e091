import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { providedOrNull } from './provided.ts';
import { openDatabase, type Database } from '../../src/server/database/database.ts';
import { storedFunctions } from '../../src/server/stored-functions.ts';
import { newEvent, type NewEvent } from '../../src/server/events/event-queries.ts';

/**
 * A fresh, migrated database per test file. Embedded PGlite (in memory) by default; with
 * FLOWSMITH_TEST_DB=server a new database on the server named by TEST_DATABASE_URL,
 * dropped again on close. The same tests thus run on both engines. Each starts from the
 * run's migrated snapshot where the project's global set-up made one
 * (test-database-setup.ts); its migrations then find nothing left to apply.
 */
export function testDatabaseKind(): 'embedded' | 'server' {
  return process.env.FLOWSMITH_TEST_DB === 'server' ? 'server' : 'embedded';
}

export async function createTestDatabase(): Promise<Database & { kind: 'embedded' | 'server' }> {
  const snapshot = providedOrNull('testDatabaseSnapshot');
  if (testDatabaseKind() === 'embedded') {
    const database = await openDatabase({ databaseUrl: undefined, dataDir: null, storedFunctions, ...(snapshot?.embeddedFile ? { embeddedSnapshotFile: snapshot.embeddedFile } : {}) });
    return { ...database, kind: 'embedded' };
  }
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('FLOWSMITH_TEST_DB=server needs TEST_DATABASE_URL');
  const name = `flowsmith_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(snapshot?.serverTemplate ? `CREATE DATABASE ${name} TEMPLATE ${snapshot.serverTemplate}` : `CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString(), dataDir: null, storedFunctions });
  return {
    ...database,
    kind: 'server',
    async close() {
      // Dropped even when closing fails (a test that ended the pool itself to play a lost
      // database): each CI run otherwise left one database behind on the server.
      try {
        await database.close();
      } finally {
        const cleanup = new pg.Client({ connectionString: adminUrl });
        await cleanup.connect();
        await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await cleanup.end();
      }
    },
  };
}

/** An owner with one active abandoned-cart flow, written directly (for tests of the events module below the routes). */
export async function insertOwnerWithFlow(database: Database, owner: { userId: string; flowId: string; name: string }): Promise<void> {
  await database.pool.query('INSERT INTO users (id, full_name, email) VALUES ($1, $2, $3)', [owner.userId, owner.name, `${owner.userId}@example.com`]);
  await database.pool.query("INSERT INTO flows (id, user_id, flow_type, is_active) VALUES ($1, $2, 'abandoned_cart', true)", [owner.flowId, owner.userId]);
}

/** A generic cart event for the flow `insertOwnerWithFlow` made, received now, as the intake would build it. */
export function genericCartEvent(owner: { userId: string; flowId: string }, fields: Partial<NewEvent> = {}): NewEvent {
  return newEvent({
    id: randomUUID(),
    flowId: owner.flowId,
    userId: owner.userId,
    flowType: 'abandoned_cart',
    source: 'generic',
    topic: 'cart_abandoned',
    status: 'received',
    contentType: 'application/json',
    rawBody: '{}',
    receivedAt: new Date(),
    ...fields,
  });
}
