import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKind } from '../support/test-database.ts';

/**
 * The harness's own promise: a server test database is dropped when its test closes it,
 * even after the test ended its pool to play a lost database (observability.test.ts),
 * so CI runs leave nothing behind on the machine's PostgreSQL.
 */
describe('a test database', () => {
  // Embedded test databases live in memory and vanish with their pool; only a server one can be left behind.
  it.skipIf(testDatabaseKind() === 'embedded')('is dropped on close even when its pool was already ended', async () => {
    const database = await createTestDatabase();
    const name = new URL(database.connectionString).pathname.slice(1);
    await database.pool.end();
    await database.close().catch(() => undefined);
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    try {
      const { rows } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      expect(rows).toHaveLength(0);
    } finally {
      await admin.end();
    }
  });
});
