import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerWithFlows, postEvent, sampleEvent, startEngineScenario, type EngineScenario, allStandIns } from '../support/engine-scenario.ts';
import pg from 'pg';
import pino from 'pino';
import { createDatabaseUpkeep } from '../../src/server/background/database-upkeep.ts';
import { readAutovacuumEnabled, readTableActivity } from '../../src/server/background/database-upkeep-queries.ts';
import type { Queryable } from '../../src/server/database/database.ts';
import { createTestDatabase, testDatabaseKind } from '../support/test-database.ts';

/** `count` changes written and deleted again: dead rows in the change log. */
async function deadChanges(db: Queryable, count: number): Promise<void> {
  await db.query(
    `INSERT INTO event_changes (user_id, flow_id, event_id, status)
     SELECT 'upkeep-owner', 'upkeep-flow', 'event-' || n, 'received' FROM generate_series(1, $1::int) AS n`,
    [count],
  );
  await db.query("DELETE FROM event_changes WHERE flow_id = 'upkeep-flow'");
}

const changeLogActivity = async (db: Queryable) => (await readTableActivity(db)).find((table) => table.name === 'public.event_changes')!;

/**
 * The embedded database's upkeep (docs/decisions/0033-steady-for-hours.md): PGlite has no
 * autovacuum and no checkpointer, so the app vacuums, analyzes and checkpoints it itself.
 * Embedded only: on a server PostgreSQL its own autovacuum and checkpointer do this and the
 * upkeep never starts (the server's statistics also reach the views on their own schedule,
 * so a pass there would find other tables than the test made).
 */
describe.skipIf(testDatabaseKind() === 'server')('the embedded database upkeep', () => {
  let scenario: EngineScenario;
  beforeAll(async () => {
    scenario = await startEngineScenario({ standIns: allStandIns, databaseUpkeep: { intervalMs: 200, checkpointIntervalMs: 60 * 60_000, minAnalyzeIntervalMs: 0 } });
  });
  afterAll(async () => {
    await scenario?.close();
  });
  const db = () => scenario.testApp.database.pool;
  const changeLog = () => changeLogActivity(db());

  it('runs PostgreSQL with bounded memory: PGlite keeps what it once took in a heap that never shrinks', async () => {
    const { rows } = await db().query("SELECT current_setting('shared_buffers') AS buffers, current_setting('maintenance_work_mem') AS vacuum_memory");
    expect(rows[0]).toEqual({ buffers: '64MB', vacuum_memory: '16MB' });
    expect(await scenario.testApp.app.databaseUpkeep.mode()).toBe('embedded');
  });

  it('writes no full-page images, which guard only against a power cut that fsync off does not survive anyway, and deletes the log a checkpoint no longer needs', async () => {
    const { rows } = await db().query(
      "SELECT current_setting('fsync') AS fsync, current_setting('full_page_writes') AS full_pages, current_setting('min_wal_size') AS kept_at_least, current_setting('max_wal_size') AS forced_checkpoint_at, current_setting('wal_recycle') AS recycled, current_setting('wal_init_zero') AS zero_filled",
    );
    expect(rows[0]).toEqual({ fsync: 'off', full_pages: 'off', kept_at_least: '32MB', forced_checkpoint_at: '256MB', recycled: 'off', zero_filled: 'off' });
  });

  it('vacuums on its own, on its interval, the tables that gathered dead rows', async () => {
    await deadChanges(db(), 3_000);
    expect((await changeLog()).deadRows).toBeGreaterThanOrEqual(3_000);
    await expect.poll(async () => (await changeLog()).deadRows, { timeout: 10_000, interval: 100 }).toBe(0);
    const { rows } = await db().query("SELECT last_vacuum IS NOT NULL AS vacuumed FROM pg_stat_user_tables WHERE schemaname = 'public' AND relname = 'event_changes'");
    expect(rows[0].vacuumed).toBe(true);
  });

  it('vacuums and analyzes one table per statement, and takes a checkpoint that moves the redo point', async () => {
    await scenario.testApp.app.databaseUpkeep.stop();
    await deadChanges(db(), 2_000);
    const before = (await db().query<{ redo: string }>('SELECT redo_lsn::text AS redo FROM pg_control_checkpoint()')).rows[0]!.redo;
    const pass = await scenario.testApp.app.databaseUpkeep.runOnce({ checkpoint: true });
    expect(pass.vacuumed).toContain('public.event_changes');
    expect(pass.analyzed).toContain('public.event_changes');
    expect(pass.checkpointed).toBe(true);
    const after = (await db().query<{ moved: boolean }>('SELECT redo_lsn > $1::pg_lsn AS moved FROM pg_control_checkpoint()', [before])).rows[0]!.moved;
    expect(after).toBe(true);
    expect((await changeLog()).deadRows).toBe(0);
    // Nothing left to do: the next pass touches nothing and takes no checkpoint before it is due.
    expect(await scenario.testApp.app.databaseUpkeep.runOnce()).toMatchObject({ vacuumed: [], checkpointed: false });
  });

  it('lets webhooks through while it vacuums: every one answered 202, none 503', async () => {
    const owner = await ownerWithFlows(scenario, { post_purchase: {} });
    await deadChanges(db(), 20_000);
    let passes = 0;
    let sending = true;
    const upkeep = (async () => {
      while (sending) {
        await scenario.testApp.app.databaseUpkeep.runOnce({ checkpoint: true });
        passes += 1;
      }
    })();
    const statuses: number[] = [];
    for (let index = 0; index < 40; index += 1) {
      const response = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: `upkeep-${index}@example.com` }));
      statuses.push(response.status);
    }
    sending = false;
    await upkeep;
    expect(passes).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 202)).toBe(true);
  });
});

/**
 * On a server: nothing where its autovacuum runs; where it is off (as on some managed and
 * hand-configured servers, and this project's CI machine), vacuum and analyze of the app's
 * tables, checkpoints left to the server, one process at a time.
 */
describe.skipIf(testDatabaseKind() === 'embedded')('the upkeep on a server PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });
  const upkeep = () => createDatabaseUpkeep({ pool: database.pool, embedded: false, logger: pino({ level: 'silent' }), options: { minAnalyzeIntervalMs: 0 } });

  it("follows the server's autovacuum setting: vacuums dead rows when it is off, and never takes a checkpoint", async () => {
    const autovacuum = await readAutovacuumEnabled(database.pool);
    expect(await upkeep().mode()).toBe(autovacuum ? 'none' : 'vacuum-only');
    await deadChanges(database.pool, 3_000);
    // A server's sessions report their statistics on their own, within seconds.
    await expect.poll(async () => (await changeLogActivity(database.pool)).deadRows, { timeout: 20_000, interval: 250 }).toBeGreaterThanOrEqual(3_000);
    const pass = await upkeep().runOnce({ checkpoint: true });
    expect(pass.checkpointed).toBe(false);
    if (autovacuum) {
      expect(pass).toEqual({ vacuumed: [], analyzed: [], checkpointed: false });
    } else {
      expect(pass.vacuumed).toContain('public.event_changes');
      await expect.poll(async () => (await changeLogActivity(database.pool)).deadRows, { timeout: 20_000, interval: 250 }).toBe(0);
    }
  });

  it('lets one process work at a time, and gives its connection back as it found it', async () => {
    // One connection, so the checks below read the very connection the passes used.
    const single = new pg.Pool({ ...database.clientConfig, max: 1 });
    const other = await database.pool.connect();
    try {
      const passOnSingle = () => createDatabaseUpkeep({ pool: single, embedded: false, logger: pino({ level: 'silent' }) }).runOnce();
      await other.query("SELECT pg_advisory_lock(hashtext('flowsmith.database-upkeep'))");
      await deadChanges(database.pool, 1_000);
      expect(await passOnSingle()).toEqual({ vacuumed: [], analyzed: [], checkpointed: false });
      const setting = async () => (await single.query<{ timeout: string }>("SELECT current_setting('statement_timeout') AS timeout")).rows[0]!.timeout;
      expect(await setting()).toBe('2500ms');
      await other.query("SELECT pg_advisory_unlock(hashtext('flowsmith.database-upkeep'))");
      await passOnSingle();
      expect(await setting()).toBe('2500ms');
      const held = await single.query<{ count: string }>("SELECT count(*)::text AS count FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()");
      expect(held.rows[0]!.count).toBe('0');
    } finally {
      other.release();
      await single.end();
    }
  });
});

