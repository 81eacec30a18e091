import pg from 'pg';
import type { Logger } from 'pino';
import { startEmbeddedPostgres } from './embedded-postgres.ts';
import { PRIORITY_APPLICATION_NAME } from './embedded-wire-server.ts';
import { runMigrations } from './migrate.ts';
import type { StoredFunction } from './stored-function.ts';
import { isDatabaseUnavailable } from './database-errors.ts';

export interface Database {
  pool: pg.Pool;
  /**
   * The intake's own few connections (its batched commits and duplicate look-ups), so a
   * webhook's answer never queues for a connection behind the worker's jobs, and on the
   * embedded database its statements go first (embedded-wire-server.ts).
   */
  intakePool: pg.Pool;
  connectionString: string;
  /** Settings for a connection of its own outside the pool (the change feed's LISTEN). */
  clientConfig: pg.ClientConfig;
  availability: DatabaseAvailability;
  /**
   * True for the embedded database (PGlite): one session with no background processes, so
   * no autovacuum and no checkpointer; the app does that upkeep itself (database-upkeep.ts).
   */
  embedded: boolean;
  close(): Promise<void>;
}

export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

/**
 * How long the app waits for the database (docs/decisions/0017-staying-up.md). A stopped
 * or frozen database must cost a request a few seconds and a 503, never a hang: Shopify
 * gives a webhook 5 seconds, and a sender that gets a 503 retries.
 */
export const databaseTimeouts = {
  /** Opening a connection, and waiting for a free one when the pool is full. */
  connectMs: 1_500,
  /** The server cancels a statement after this (a slow or locked database). */
  statementMs: 2_500,
  /** The client gives up on an answer after this (a frozen server or network). */
  queryMs: 3_000,
  /** The server ends a transaction left idle this long (a client that stopped mid-way). */
  idleInTransactionMs: 10_000,
  /**
   * The embedded database lives in this process: it cannot be partitioned away, only be
   * busy, and a cold PGlite on a slow machine takes seconds for pg-boss's schema.
   */
  embeddedQueryMs: 30_000,
} as const;

/**
 * Remembers when the database last failed for want of a connection, and checks whether it
 * answers, so that an error that reached the error handler through a library that hid the
 * database's error (better-auth answers its own 500) still becomes a 503 during an outage.
 */
export class DatabaseAvailability {
  private readonly pool: pg.Pool;
  private lastFailureAt = 0;
  private probe: Promise<boolean> | null = null;

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  /** Records a failure when it is one of availability (a refused, dropped or timed-out connection). */
  noteFailure(error: unknown): void {
    if (isDatabaseUnavailable(error)) this.lastFailureAt = Date.now();
  }

  /**
   * False when the database failed within the last two seconds or does not answer
   * `SELECT 1` within `timeoutMs`. Concurrent callers share one probe.
   */
  async isReachable(timeoutMs = 1_000): Promise<boolean> {
    if (Date.now() - this.lastFailureAt < 2_000) return false;
    this.probe ??= (async () => {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      try {
        const answered = this.pool.query('SELECT 1').then(
          () => true,
          (error: unknown) => {
            this.noteFailure(error);
            return false;
          },
        );
        return await Promise.race([answered, timedOut]);
      } finally {
        clearTimeout(timer);
        this.probe = null;
      }
    })();
    return this.probe;
  }
}

/** Connection settings shared by the pool and the app's own connections. */
function connectionSettings(connectionString: string, embedded: boolean): pg.ClientConfig {
  return {
    connectionString,
    connectionTimeoutMillis: databaseTimeouts.connectMs,
    query_timeout: embedded ? databaseTimeouts.embeddedQueryMs : databaseTimeouts.queryMs,
    // PGlite ignores these two; a server applies them to each connection.
    statement_timeout: databaseTimeouts.statementMs,
    idle_in_transaction_session_timeout: databaseTimeouts.idleInTransactionMs,
    // A peer that vanished without closing the socket is noticed by the operating system.
    keepAlive: true,
  };
}

/**
 * Opens the app's database: the server at `databaseUrl` when given, otherwise embedded
 * PostgreSQL under `dataDir` (or in memory when `dataDir` is null). Migrations run before
 * this returns, so callers always see the current schema.
 */
export async function openDatabase(options: {
  databaseUrl: string | undefined;
  dataDir: string | null;
  poolSize?: number;
  /** Where failures of idle connections are reported (they are otherwise silent). */
  logger?: Pick<Logger, 'warn'>;
  /**
   * An in-memory embedded database starts from this `dumpDataDir` file rather than an
   * empty cluster; the migrations then apply only what it lacks. Tests start every
   * database from one migrated snapshot (test/support/test-database-snapshot.ts).
   */
  embeddedSnapshotFile?: string;
  /**
   * The stored functions the migration runner applies after the numbered files: the app's
   * list, src/server/stored-functions.ts, handed down so the database imports no feature.
   */
  storedFunctions: readonly StoredFunction[];
}): Promise<Database> {
  const embedded = options.databaseUrl
    ? undefined
    : await startEmbeddedPostgres(options.dataDir ?? undefined, options.embeddedSnapshotFile ? { snapshotFile: options.embeddedSnapshotFile } : {});
  const connectionString = options.databaseUrl ?? embedded!.connectionString;
  const clientConfig = connectionSettings(connectionString, embedded !== undefined);
  const pool = new pg.Pool({ ...clientConfig, max: options.poolSize ?? 10 });
  // One batch commits at a time (intake-batcher.ts); the other connections serve duplicate and flow look-ups.
  const intakePool = new pg.Pool({ ...clientConfig, application_name: PRIORITY_APPLICATION_NAME, max: 4 });
  const availability = new DatabaseAvailability(pool);
  for (const each of [pool, intakePool]) {
    // A connection that fails while idle is reported here, and the pool replaces it.
    each.on('error', (error) => {
      availability.noteFailure(error);
      options.logger?.warn({ err: { message: error.message, code: (error as { code?: unknown }).code } }, 'database: an idle connection failed');
    });
    // A connection that fails while checked out (between two statements of a transaction,
    // say) emits `error` with no listener of the pool's own, which would end the process;
    // its next statement fails instead, and inTransaction throws the connection away.
    each.on('connect', (client) => {
      client.on('error', (error) => availability.noteFailure(error));
    });
  }
  try {
    await runMigrations(clientConfig, options.storedFunctions);
  } catch (error) {
    await Promise.all([pool.end(), intakePool.end()]);
    await embedded?.stop();
    throw error;
  }
  return {
    pool,
    intakePool,
    connectionString,
    clientConfig,
    availability,
    embedded: embedded !== undefined,
    async close() {
      await Promise.all([pool.end(), intakePool.end()]);
      await embedded?.stop();
    },
  };
}

const ROLLBACK_TIMEOUT_MS = 1_000;

/**
 * Runs `work` in one transaction, committing on success and rolling back on any error. A
 * connection that failed or timed out is not given back to the pool: it may still be
 * waiting for an answer, so it is closed (the server rolls its transaction back).
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    if (isDatabaseUnavailable(error)) {
      broken = error instanceof Error ? error : new Error(String(error));
    } else {
      // Briefly: a healthy server rolls back at once, and an error a library wrapped beyond
      // recognition may still hide a connection that no longer answers.
      await client.query({ text: 'ROLLBACK', query_timeout: ROLLBACK_TIMEOUT_MS } as pg.QueryConfig).catch((rollbackError: unknown) => {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
    }
    throw error;
  } finally {
    client.release(broken);
  }
}
