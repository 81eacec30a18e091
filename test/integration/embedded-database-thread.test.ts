import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { pgliteModules, startEmbeddedPostgres } from '../../src/server/database/embedded-postgres.ts';
import { PRIORITY_APPLICATION_NAME, serveEmbeddedDatabase } from '../../src/server/database/embedded-wire-server.ts';

// The embedded database runs in a thread of its own, and the intake's connections go
// first on its single session (docs/decisions/0023-embedded-database-thread.md).

describe('the embedded session runs the intake first, and the others still get a share', () => {
  let database: PGlite;
  let server: { port: number; close(): Promise<void> };
  beforeAll(async () => {
    // The process's compiled PGlite, as the app's database threads use it (embedded-postgres.ts).
  const modules = await pgliteModules();
  database = await PGlite.create({ pgliteWasmModule: modules.pglite, initdbWasmModule: modules.initdb });
    server = await serveEmbeddedDatabase(database);
  });
  afterAll(async () => {
    await server?.close();
    await database?.close();
  });

  it('answers a query of the intake before the queued queries of other connections', async () => {
    const url = `postgres://postgres@127.0.0.1:${server.port}/postgres`;
    const others = new pg.Pool({ connectionString: url, max: 8 });
    const intake = new pg.Pool({ connectionString: url, max: 1, application_name: PRIORITY_APPLICATION_NAME });
    try {
      // Connect everyone first, so only the queries themselves queue.
      await Promise.all(Array.from({ length: 8 }, () => others.query('SELECT 1')));
      await intake.query('SELECT 1');
      const finished: string[] = [];
      const slow = Array.from({ length: 8 }, (_, index) =>
        others.query('SELECT count(*) FROM generate_series(1, 200000)').then(() => finished.push(`other ${index}`)),
      );
      // Sent after all eight, while the first of them runs.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const first = intake.query('SELECT 1').then(() => finished.push('intake'));
      await Promise.all([...slow, first]);
      // Without priority it would come last, behind everything queued before it.
      expect(finished.indexOf('intake')).toBeLessThanOrEqual(2);
    } finally {
      await others.end();
      await intake.end();
    }
  });

  it('keeps answering the other connections while the intake never stops', async () => {
    const url = `postgres://postgres@127.0.0.1:${server.port}/postgres`;
    const others = new pg.Pool({ connectionString: url, max: 2 });
    const intake = new pg.Pool({ connectionString: url, max: 2, application_name: PRIORITY_APPLICATION_NAME });
    try {
      // Connected before the flood: a connection's start-up is not what the share is about,
      // and under a loaded machine it could take the whole flood (a run counted 0 answers).
      await Promise.all([others.query('SELECT 1'), intake.query('SELECT 1')]);
      let flooding = true;
      let answeredDuringFlood = 0;
      const other = (async () => {
        while (flooding) {
          await others.query('SELECT 1');
          if (flooding) answeredDuringFlood += 1;
        }
      })();
      // Two intake connections, so one of them always has an exchange waiting, until the
      // others were answered three times during the flood, or for at most 20 s. Without their
      // share they would get nothing until the intake paused, so the flood would run out.
      // (A fixed flood of 120 exchanges was sometimes over before the others' turn on a busy
      // machine: one of their exchanges stretched by the OS is paid back by a longer wait.)
      const floodEnds = Date.now() + 20_000;
      await Promise.all(
        Array.from({ length: 2 }, async () => {
          while (answeredDuringFlood < 3 && Date.now() < floodEnds) await intake.query('SELECT count(*) FROM generate_series(1, 50000)');
        }),
      );
      flooding = false;
      await other;
      expect(answeredDuringFlood).toBeGreaterThanOrEqual(3);
    } finally {
      await others.end();
      await intake.end();
    }
  });
});

describe('the embedded database thread', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'flowsmith-embedded-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is started again after a crash, on the same address and data, and the app’s connections recover', async () => {
    const exits: string[] = [];
    const embedded = await startEmbeddedPostgres(dataDir, { onThreadExit: (message) => exits.push(message) });
    const pool = new pg.Pool({ connectionString: embedded.connectionString, max: 2, connectionTimeoutMillis: 1_000 });
    pool.on('error', () => undefined);
    try {
      await pool.query('CREATE TABLE kept (id int PRIMARY KEY)');
      await pool.query('INSERT INTO kept VALUES (1)');
      await embedded.crashThread();
      await expect(pool.query('SELECT count(*) FROM kept')).rejects.toThrow();
      expect(exits.join(' ')).toMatch(/ended/);
      const deadline = Date.now() + 15_000;
      let count: number | null = null;
      while (count === null && Date.now() < deadline) {
        try {
          count = (await pool.query<{ count: number }>('SELECT count(*)::int AS count FROM kept')).rows[0]!.count;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
      expect(count).toBe(1);
    } finally {
      await pool.end();
      await embedded.stop();
    }
  });
});

describe('PGlite compiled once per process', () => {
  it('hands every database thread the same compiled WebAssembly, so no thread compiles or frees code of its own', async () => {
    const first = await pgliteModules();
    expect(first.pglite).toBeInstanceOf(WebAssembly.Module);
    expect(first.initdb).toBeInstanceOf(WebAssembly.Module);
    const compile = vi.spyOn(WebAssembly, 'compile');
    try {
      // Two databases one after the other, as test files start them: nothing is compiled again.
      for (let round = 0; round < 2; round += 1) {
        const embedded = await startEmbeddedPostgres(undefined);
        const client = new pg.Client({ connectionString: embedded.connectionString });
        await client.connect();
        expect((await client.query('SELECT 41 + 1 AS answer')).rows).toEqual([{ answer: 42 }]);
        await client.end();
        await embedded.stop();
      }
      expect(compile).not.toHaveBeenCalled();
      expect(await pgliteModules()).toBe(first);
    } finally {
      compile.mockRestore();
    }
  });
});
