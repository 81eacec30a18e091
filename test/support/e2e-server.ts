import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { providedOrNull } from './provided.ts';
import { startSmtpCapture, type SmtpCapture } from './smtp-capture.ts';

const repositoryRoot = path.resolve(import.meta.dirname, '../..');
const builtIndex = path.join(repositoryRoot, 'dist/web/index.html');
const startTimeoutMs = 60_000;
const stopTimeoutMs = 15_000;

export interface E2EServer {
  /** http://127.0.0.1:PORT, also the server's PUBLIC_URL, so mailed links point here. */
  baseUrl: string;
  smtp: SmtpCapture;
  /** Everything the server wrote to stdout and stderr so far (pino JSON lines). */
  output(): string;
  /** True once the process has ended, by itself or by `stop`. */
  exited(): boolean;
  stop(): Promise<void>;
}

/**
 * The real server as a separate process (`node src/server/main.ts`), exactly as an owner
 * starts it: embedded PGlite in a fresh temporary DATA_DIR, mail to an in-test SMTP
 * server. `env` adds or overrides variables, e.g. OPENAI_BASE_URL pointing at a fake.
 * `requireWebApp: false` starts it without the built web app (its pages then answer 503),
 * for tests of the API alone.
 */
export async function startE2EServer(
  options: {
    env?: Record<string, string>;
    requireWebApp?: boolean;
    /** Where the port to try comes from (a free one by default); tests of this helper hand it a taken one. */
    pickPort?: () => Promise<number>;
  } = {},
): Promise<E2EServer> {
  if ((options.requireWebApp ?? true) && !existsSync(builtIndex)) {
    throw new Error(`The web app is not built (${builtIndex} is missing): run \`npx vite build\` first (npm test does it for you).`);
  }
  if (options.env?.LOG_LEVEL && !['trace', 'debug', 'info'].includes(options.env.LOG_LEVEL)) {
    throw new Error(`LOG_LEVEL ${options.env.LOG_LEVEL} hides the line that says the server listens ("${runningLine}"), which this helper waits for.`);
  }
  const smtp = await startSmtpCapture();
  // A free port is only free when it is looked at: another file's server, Chromium or a
  // connection may take it before this server listens (a run failed on EADDRINUSE). The
  // server then exits at once, and starts again on another port, as the in-process test
  // apps do (test-app.ts).
  let started: { baseUrl: string; dataDir: string; child: ChildProcess; output: () => string } | null = null;
  for (let attempt = 1; !started; attempt += 1) {
    const dataDir = await freshDataDirectory(options.env);
    const port = await (options.pickPort ?? freePort)();
    const baseUrl = `http://127.0.0.1:${port}`;
    const child = spawnServer(port, baseUrl, dataDir, smtp, options.env);
    try {
      await waitUntilReady(baseUrl, child.process, child.output);
      started = { baseUrl, dataDir, child: child.process, output: child.output };
    } catch (error) {
      await stopProcess(child.process);
      await rm(dataDir, { recursive: true, force: true });
      if (attempt < 5 && child.process.exitCode !== null && child.output().includes('EADDRINUSE')) continue;
      await smtp.close();
      throw error;
    }
  }
  const { baseUrl, dataDir, child, output } = started;
  const cleanUp = async () => {
    await stopProcess(child);
    await smtp.close();
    await rm(dataDir, { recursive: true, force: true });
  };

  let stopped: Promise<void> | null = null;
  return {
    baseUrl,
    smtp,
    output,
    stop: () => (stopped ??= cleanUp()),
    exited: () => child.exitCode !== null || child.signalCode !== null,
  };
}

/**
 * A new temporary DATA_DIR. It holds the run's migrated database, where the project's
 * set-up made one (e2e-setup.ts): the server then starts as on an owner's second start, its
 * migrations finding nothing to do.
 */
async function freshDataDirectory(env: Record<string, string> | undefined): Promise<string> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'flowsmith-e2e-'));
  const migrated = providedOrNull('e2eDataDirectory');
  if (migrated && !env?.DATABASE_URL) await cp(migrated, path.join(dataDir, 'pgdata'), { recursive: true });
  return dataDir;
}

/** The server process on `port`, with what it writes kept; killed with the test process if that ends first. */
function spawnServer(
  port: number,
  baseUrl: string,
  dataDir: string,
  smtp: SmtpCapture,
  extraEnv: Record<string, string> | undefined,
): { process: ChildProcess; output(): string } {
  // Only what a process needs plus the app's own settings: a developer's DATABASE_URL or
  // AUTH_SECRET in the shell must not leak into a test server.
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? os.tmpdir(),
    TMPDIR: process.env.TMPDIR ?? os.tmpdir(),
    PORT: String(port),
    PUBLIC_URL: baseUrl,
    DATA_DIR: dataDir,
    SMTP_URL: smtp.url,
    LOG_LEVEL: 'info',
    // As `npm start` does: the compiled code of the server's modules is kept between starts,
    // which takes about half a second off each of the run's some twenty server starts.
    NODE_COMPILE_CACHE: path.join(repositoryRoot, 'node_modules/.cache/node-compile'),
    ...extraEnv,
  };
  let output = '';
  const child = spawn(process.execPath, [path.join(repositoryRoot, 'src/server/main.ts')], {
    cwd: repositoryRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  // A backstop for a test process that ends without its afterAll (a worker torn down on a
  // timeout): the server it started must not go on running, loading the machine, for ever.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  return { process: child, output: () => output };
}

/** What main.ts logs once it listens on its port (and not when the port was taken). */
const runningLine = 'Flowsmith is running';

async function waitUntilReady(baseUrl: string, child: ChildProcess, output: () => string): Promise<void> {
  const exited = new Promise<never>((_resolve, reject) => {
    child.once('exit', (code, signal) =>
      reject(new Error(`The server exited while starting (code ${code}, signal ${signal}). Its output:\n${output()}`)),
    );
  });
  exited.catch(() => undefined);
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    // Only once the process says it listens: until then an answer on its port may come from
    // whatever took the port first, another file's Flowsmith server among them.
    const listening = output().includes(runningLine);
    const ready = await Promise.race([
      (listening ? fetch(`${baseUrl}/readyz`) : Promise.reject(new Error('not listening yet'))).then(
        (response) => response.ok,
        () => false,
      ),
      exited,
    ]);
    if (ready) return;
    if (Date.now() > deadline) throw new Error(`The server did not become ready within ${startTimeoutMs} ms. Its output:\n${output()}`);
    await Promise.race([new Promise((resolve) => setTimeout(resolve, 100)), exited]);
  }
}

/** SIGTERM for a clean shutdown (the embedded database flushes), SIGKILL if it hangs. */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
  await exited;
  clearTimeout(timer);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
