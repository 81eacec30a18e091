import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { serveEmbeddedDatabase } from './embedded-wire-server.ts';

/**
 * The embedded database's own thread (embedded-postgres.ts starts it). PGlite runs
 * PostgreSQL in WebAssembly, synchronously: on the app's thread every statement would stop
 * HTTP, HMAC checks and the worker's bookkeeping for as long as it runs. Here it has a
 * thread (and on a machine with two cores, a core) of its own, and the app talks to it over
 * loopback TCP exactly as to a server.
 */
export interface EmbeddedThreadStart {
  dataDir: string | null;
  /**
   * For an in-memory database: a file written by PGlite's `dumpDataDir` to start from
   * instead of an empty cluster (tests start each database from one migrated snapshot).
   */
  snapshotFile?: string | null;
  /** The port to listen on (a restarted thread takes its predecessor's, so pooled clients find it). */
  port: number;
  /** PGlite's WebAssembly, compiled once by the process (embedded-postgres.ts says why). */
  modules: PGliteModules;
}

export interface PGliteModules {
  pglite: WebAssembly.Module;
  initdb: WebAssembly.Module;
}

export type EmbeddedThreadMessage = { type: 'listening'; port: number } | { type: 'failed'; message: string } | { type: 'stopped' };

/**
 * PostgreSQL's memory settings for the embedded database. PGlite lives in a WebAssembly
 * heap that grows as memory is first used and never gives it back, so what PostgreSQL
 * takes once it keeps for good: the process grew by about 95 MB over the first half hour
 * of a steady load (docs/decisions/0033-steady-for-hours.md). Vacuum's memory for dead
 * rows (64 MB by default, taken as a table's dead rows need it) rose with the tables;
 * 16 MB holds about three million of them, more than a pass meets. Shared buffers of
 * 64 MB instead of 128 MB are filled within a few minutes of a steady load rather than
 * after half an hour; 32 MB cost a fifth of bench:ingest's burst.
 */
const embeddedMemorySettings = ['shared_buffers=64MB', 'maintenance_work_mem=16MB'];

/**
 * The write-ahead log's share of the data folder (docs/decisions/0053-write-ahead-log.md).
 * PGlite runs with fsync off (its `-F` start flag): a write reaches the operating system's
 * cache and survives the process, not a power cut. Full-page images guard against pages
 * torn by exactly such a cut, so they buy nothing here, and they were most of the log: every
 * page first touched after each of the upkeep's minutely checkpoints was written whole.
 * After a checkpoint PostgreSQL renames the log files it no longer needs for reuse, up to
 * what it expects the next cycle to write, so the folder held two cycles of log; with
 * recycling off it deletes them and holds only the log since the last checkpoint, and a
 * new file is created without being filled with zeros first (nothing reads a file's
 * unwritten end back). 256 MB before a checkpoint is forced leaves a burst of webhooks
 * (bench:ingest) its own pace.
 */
const embeddedWalSettings = ['full_page_writes=off', 'wal_recycle=off', 'wal_init_zero=off', 'min_wal_size=32MB', 'max_wal_size=256MB'];

const start = workerData as EmbeddedThreadStart;
const port = parentPort!;

async function run(): Promise<void> {
  let database: PGlite;
  const startParams = [...PGlite.defaultStartParams, ...[...embeddedMemorySettings, ...embeddedWalSettings].flatMap((setting) => ['-c', setting])];
  const options = { startParams, pgliteWasmModule: start.modules.pglite, initdbWasmModule: start.modules.initdb };
  if (start.dataDir) {
    const directory = path.join(start.dataDir, 'pgdata');
    await mkdir(directory, { recursive: true });
    database = await PGlite.create({ ...options, dataDir: directory });
  } else if (start.snapshotFile) {
    database = await PGlite.create({ ...options, loadDataDir: new Blob([await readFile(start.snapshotFile)]) });
  } else {
    database = await PGlite.create(options);
  }
  const server = await serveEmbeddedDatabase(database, { port: start.port });
  port.on('message', (message: { type: 'stop' }) => {
    if (message.type !== 'stop') return;
    void (async () => {
      await server.close();
      await database.close();
      port.postMessage({ type: 'stopped' } satisfies EmbeddedThreadMessage);
    })();
  });
  port.postMessage({ type: 'listening', port: server.port } satisfies EmbeddedThreadMessage);
}

run().catch((error: unknown) => {
  port.postMessage({ type: 'failed', message: (error as Error).message ?? String(error) } satisfies EmbeddedThreadMessage);
});
