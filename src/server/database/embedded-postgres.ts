import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EmbeddedThreadMessage, EmbeddedThreadStart, PGliteModules } from './embedded-postgres-thread.ts';

export interface EmbeddedPostgres {
  connectionString: string;
  stop(): Promise<void>;
  /** Ends the database thread abruptly, as a crash would (for the tests that inject that fault). */
  crashThread(): Promise<void>;
}

/**
 * Runs PGlite (PostgreSQL in WebAssembly) in a thread of its own behind a loopback socket,
 * so that the rest of the app, pg-boss and better-auth included, talks to it through the
 * ordinary `pg` driver (embedded-wire-server.ts keeps concurrent connections from mixing).
 * One data path then serves both the embedded default and a real server
 * (docs/decisions/0002-one-database-path.md), and PostgreSQL's work runs beside the app's
 * rather than in its event loop (docs/decisions/0023-embedded-database-thread.md).
 *
 * A thread that dies (out of memory, a WebAssembly trap) is started again on the same
 * port and data directory: meanwhile the app's queries fail and it answers 503, as when a
 * server goes away, and then it carries on by itself.
 *
 * `dataDir` undefined keeps the database in memory (tests); such a database cannot
 * outlive its thread, so it is not restarted.
 */
export async function startEmbeddedPostgres(
  dataDir: string | undefined,
  options: { onThreadExit?: (message: string) => void; snapshotFile?: string } = {},
): Promise<EmbeddedPostgres> {
  let stopping = false;
  let restarts = 0;
  let current = await startThread({ dataDir: dataDir ?? null, snapshotFile: dataDir ? null : (options.snapshotFile ?? null), port: 0 });
  const port = current.port;

  // Back off when it keeps dying, but never give up: the app stays up answering 503.
  const restartLater = (dataDirectory: string) => {
    const delayMs = Math.min(30_000, 250 * 2 ** Math.min(restarts, 7));
    restarts += 1;
    setTimeout(() => {
      if (stopping) return;
      startThread({ dataDir: dataDirectory, port }).then(
        (next) => {
          current = next;
          restarts = 0;
          watch(next);
        },
        (error: unknown) => {
          options.onThreadExit?.(`restarting the embedded database failed: ${(error as Error).message}`);
          restartLater(dataDirectory);
        },
      );
    }, delayMs).unref();
  };
  const watch = (thread: RunningThread) => {
    thread.worker.once('exit', (code) => {
      if (stopping) return;
      options.onThreadExit?.(`the embedded database thread ended (exit code ${code})`);
      if (dataDir) restartLater(dataDir);
    });
  };
  watch(current);

  return {
    connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async crashThread() {
      await current.worker.terminate();
    },
    async stop() {
      stopping = true;
      const { worker } = current;
      const stopped = new Promise<void>((resolve) => {
        worker.on('message', (message: EmbeddedThreadMessage) => {
          if (message.type === 'stopped') resolve();
        });
        worker.once('exit', () => resolve());
      });
      worker.postMessage({ type: 'stop' });
      // A thread that cannot close cleanly within 10 s is ended (its data dir is fsynced per commit).
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, 10_000).unref());
      await Promise.race([stopped, timeout]);
      await worker.terminate();
    },
  };
}

interface RunningThread {
  worker: Worker;
  port: number;
}

let compiledModules: Promise<PGliteModules> | undefined;

/**
 * PGlite's WebAssembly, compiled once per process and handed to every database thread
 * (docs/decisions/0023-embedded-database-thread.md). A thread that compiled its own copy
 * freed that code when it ended, and V8 keeps one process-wide register of executable
 * pages: with databases starting in one thread while an ended one's code was freed in
 * another, a test process aborted on V8's check of that register ("Check failed:
 * jit_page_->allocations_.erase(addr) == 1"). Held here, the code is compiled once and
 * never freed, and a database (a restarted one too) starts without compiling again.
 */
export function pgliteModules(): Promise<PGliteModules> {
  compiledModules ??= (async () => {
    const distDirectory = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
    const compile = async (file: string) => WebAssembly.compile(await readFile(path.join(distDirectory, file)));
    const [pglite, initdb] = await Promise.all([compile('pglite.wasm'), compile('initdb.wasm')]);
    return { pglite, initdb };
  })();
  return compiledModules;
}

async function startThread(where: Omit<EmbeddedThreadStart, 'modules'>): Promise<RunningThread> {
  const start: EmbeddedThreadStart = { ...where, modules: await pgliteModules() };
  const worker = new Worker(new URL('./embedded-postgres-thread.ts', import.meta.url), { workerData: start });
  return new Promise<RunningThread>((resolve, reject) => {
    const onExit = (code: number) => reject(new Error(`the embedded database thread ended while starting (exit code ${code})`));
    worker.once('error', reject);
    worker.once('exit', onExit);
    worker.on('message', (message: EmbeddedThreadMessage) => {
      if (message.type === 'listening') {
        worker.off('exit', onExit);
        worker.off('error', reject);
        // A later error ends the thread; its `exit` is what the watcher acts on.
        worker.on('error', () => undefined);
        resolve({ worker, port: message.port });
      } else if (message.type === 'failed') {
        worker.off('exit', onExit);
        void worker.terminate();
        reject(new Error(message.message));
      }
    });
  });
}
