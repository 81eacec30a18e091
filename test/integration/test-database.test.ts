import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { createTestDatabase, testDatabaseKind } from '../support/test-database.ts';
import { findPendingMigrations } from '../../src/server/database/migrate.ts';

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

  it("starts from the run's migrated snapshot, fully migrated, and apart from every other test database", async () => {
    const snapshot = inject('testDatabaseSnapshot');
    expect(testDatabaseKind() === 'embedded' ? snapshot.embeddedFile : snapshot.serverTemplate).toBeTruthy();
    const first = await createTestDatabase();
    const second = await createTestDatabase();
    try {
      expect(await findPendingMigrations(first.pool)).toEqual([]);
      // pg-boss's schema came with the snapshot, so an app's first start does not make it.
      const { rows } = await first.pool.query<{ found: boolean }>("SELECT to_regclass('pgboss.job') IS NOT NULL AS found");
      expect(rows[0]!.found).toBe(true);
      await first.pool.query("INSERT INTO users (id, full_name, email) VALUES ('snapshot-owner', 'Snap Shot', 'snap@example.com')");
      const { rowCount } = await second.pool.query("SELECT 1 FROM users WHERE id = 'snapshot-owner'");
      expect(rowCount).toBe(0);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});
