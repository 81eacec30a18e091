import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const mainFile = path.resolve(import.meta.dirname, '../../src/server/main.ts');

/**
 * A real `ROLE=worker` process (src/server/main.ts, as production starts it) on a shared
 * database, for tests and benchmarks that need several processes or a hard kill.
 */
export interface WorkerProcess {
  child: ChildProcess;
  /** Every line the process wrote, stdout and stderr. */
  output: string[];
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): Promise<number | string>;
}

export async function startWorkerProcess(env: Record<string, string>, options: { readyTimeoutMs?: number } = {}): Promise<WorkerProcess> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'flowsmith-worker-'));
  const child = spawn(process.execPath, [mainFile], {
    env: { PATH: process.env.PATH ?? '', ROLE: 'worker', DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  let onLine: ((line: string) => void) | null = null;
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
      output.push(line);
      onLine?.(line);
    }
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      void rm(dataDir, { recursive: true, force: true });
      resolve(code ?? signal ?? 'unknown');
    });
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${output.join('\n')}`)), options.readyTimeoutMs ?? 30_000);
    const ready = (line: string) => {
      if (line.includes('Flowsmith worker is running')) {
        clearTimeout(timer);
        onLine = null;
        resolve();
      }
    };
    onLine = ready;
    output.forEach(ready);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited (${code}) before it was ready:\n${output.join('\n')}`));
    });
  });
  return {
    child,
    output,
    exited,
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
