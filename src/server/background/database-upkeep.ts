import type pg from 'pg';
import type { Logger } from 'pino';
import { createBackgroundLoop } from './background-loop.ts';
import {
  analyzeTable,
  beginUpkeepSession,
  checkpoint,
  endUpkeepSession,
  readAutovacuumEnabled,
  readTableActivity,
  vacuumTable,
  type TableActivity,
} from './database-upkeep-queries.ts';

/**
 * The upkeep a PostgreSQL server does by itself and the embedded one does not
 * (docs/decisions/0033-steady-for-hours.md). PGlite is one session in one thread: no
 * autovacuum launcher and no checkpointer. Without them every update and delete leaves its
 * dead row for good (tables and their indexes grow, and each scan walks the dead), the
 * planner's figures stay those of an empty database, and the write-ahead log is never
 * recycled (it grew by about 40 MB a minute under a steady 40 events a second).
 *
 * On a server PostgreSQL its own autovacuum and checkpointer do this, better placed, and
 * this does nothing, unless the server runs with `autovacuum = off` (some are configured
 * so): then it vacuums and analyzes the app's tables as on the embedded database, and
 * leaves checkpoints to the server's checkpointer, which runs whatever the setting.
 */
export interface DatabaseUpkeepOptions {
  /** How often the tables' statistics are read and the ones that need it vacuumed. */
  intervalMs: number;
  /** How often a checkpoint is taken. */
  checkpointIntervalMs: number;
  /** Tables vacuumed or analyzed in one pass at most, the ones with the most dead rows first. */
  maxTablesPerPass: number;
  /** A table is vacuumed when its dead rows exceed this many plus `vacuumShare` of its live rows. */
  vacuumBaseRows: number;
  vacuumShare: number;
  /** A table is analyzed when the rows changed since its last analyze exceed this many plus `analyzeShare` of its live rows. */
  analyzeBaseRows: number;
  analyzeShare: number;
  /** A table is analyzed at most this often: ANALYZE reads a sample of 30,000 rows however small the change. */
  minAnalyzeIntervalMs: number;
}

/**
 * A server's autovacuum thresholds (50 rows + 20 %, analyze 50 + 10 %), with a larger base:
 * a small, busy table (pgboss.job, the change log, the per-flow counters) is vacuumed
 * within a pass or two, and a large one in proportion to its size. Vacuuming the events
 * every pass (5 %) held the embedded session for longer as the kept history grew (each
 * vacuum reads all of a table's indexes) and took the acknowledgements' p99 from 34 to
 * 290 ms within 12 minutes (docs/decisions/0033-steady-for-hours.md). A checkpoint every
 * 30 seconds bounds the write-ahead log the embedded database keeps to what was written
 * since (it deletes older log, docs/decisions/0053-write-ahead-log.md).
 */
export const defaultDatabaseUpkeepOptions: DatabaseUpkeepOptions = {
  intervalMs: 30_000,
  checkpointIntervalMs: 30_000,
  maxTablesPerPass: 8,
  vacuumBaseRows: 200,
  vacuumShare: 0.2,
  analyzeBaseRows: 500,
  analyzeShare: 0.1,
  minAnalyzeIntervalMs: 10 * 60_000,
};

export type UpkeepTask = 'vacuum' | 'analyze' | 'checkpoint';

/**
 * What the app does itself: everything on the embedded database, vacuum and analyze on a
 * server without autovacuum, nothing on a server that keeps its own tables.
 */
export type UpkeepMode = 'embedded' | 'vacuum-only' | 'none';

export function upkeepMode(database: { embedded: boolean; autovacuumEnabled: boolean }): UpkeepMode {
  if (database.embedded) return 'embedded';
  return database.autovacuumEnabled ? 'none' : 'vacuum-only';
}

export interface UpkeepPass {
  vacuumed: string[];
  analyzed: string[];
  checkpointed: boolean;
}

export interface DatabaseUpkeep {
  /** Starts the passes on their interval, where the database needs them (see upkeepMode). */
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * One pass now, of what this database needs; `checkpoint` forces a checkpoint whether or
   * not one is due (never on a server: its checkpointer does them).
   */
  runOnce(options?: { checkpoint?: boolean }): Promise<UpkeepPass>;
  /** What the app does itself on this database. */
  mode(): Promise<UpkeepMode>;
}

/**
 * Which tables a pass works on, and how, from their statistics: a vacuum where dead rows
 * passed the threshold (analyzing too when due), else an analyze where changes did.
 * `mayAnalyze` says whether a table's last analyze is long enough ago.
 */
export function planUpkeep(
  tables: TableActivity[],
  options: Pick<DatabaseUpkeepOptions, 'maxTablesPerPass' | 'vacuumBaseRows' | 'vacuumShare' | 'analyzeBaseRows' | 'analyzeShare'>,
  mayAnalyze: (table: string) => boolean = () => true,
): { vacuum: Array<TableActivity & { analyze: boolean }>; analyze: TableActivity[] } {
  const vacuum: Array<TableActivity & { analyze: boolean }> = [];
  const analyze: TableActivity[] = [];
  const byDeadRows = [...tables].sort((a, b) => b.deadRows - a.deadRows);
  for (const table of byDeadRows) {
    if (vacuum.length + analyze.length >= options.maxTablesPerPass) break;
    const analyzeDue = table.modifiedSinceAnalyze > options.analyzeBaseRows + options.analyzeShare * table.liveRows && mayAnalyze(table.name);
    if (table.deadRows > options.vacuumBaseRows + options.vacuumShare * table.liveRows) vacuum.push({ ...table, analyze: analyzeDue });
    else if (analyzeDue) analyze.push(table);
  }
  return { vacuum, analyze };
}

export function createDatabaseUpkeep(dependencies: {
  pool: pg.Pool;
  embedded: boolean;
  logger: Logger;
  options?: Partial<DatabaseUpkeepOptions>;
  /** Each statement's duration (for /metrics). */
  onStatement?: (task: UpkeepTask, durationMs: number) => void;
}): DatabaseUpkeep {
  const options = { ...defaultDatabaseUpkeepOptions, ...dependencies.options };
  const logger = dependencies.logger.child({ module: 'database-upkeep' });
  const { pool } = dependencies;
  let lastCheckpointAt = Date.now();
  const lastAnalyzedAt = new Map<string, number>();
  const mayAnalyze = (table: string) => Date.now() - (lastAnalyzedAt.get(table) ?? -Infinity) >= options.minAnalyzeIntervalMs;

  const timed = async (task: UpkeepTask, table: string | null, work: () => Promise<void>) => {
    const started = performance.now();
    await work();
    const durationMs = performance.now() - started;
    dependencies.onStatement?.(task, durationMs);
    // The embedded database runs one statement at a time: a long one held everything up.
    if (durationMs > 1_000) logger.warn({ task, table, durationMs: Math.round(durationMs) }, 'database upkeep: a statement took over a second');
  };

  let knownMode: Promise<UpkeepMode> | null = null;
  const mode = () => {
    knownMode ??= (dependencies.embedded ? Promise.resolve(true) : readAutovacuumEnabled(pool)).then(
      (autovacuumEnabled) => upkeepMode({ embedded: dependencies.embedded, autovacuumEnabled }),
      (error: unknown) => {
        knownMode = null; // asked again at the next pass
        throw error;
      },
    );
    return knownMode;
  };

  const runOnce = async (request: { checkpoint?: boolean } = {}): Promise<UpkeepPass> => {
    const pass: UpkeepPass = { vacuumed: [], analyzed: [], checkpointed: false };
    const current = await mode();
    if (current === 'none') return pass;
    const session = await beginUpkeepSession(pool);
    if (!session) return pass; // another process of the app is at it
    try {
      const plan = planUpkeep(await readTableActivity(session), options, mayAnalyze);
      // One table per statement, so the intake's statements get their turns in between.
      for (const table of plan.vacuum) {
        await timed('vacuum', table.name, () => vacuumTable(session, table.qualifiedName, { analyze: table.analyze }));
        pass.vacuumed.push(table.name);
        if (table.analyze) {
          pass.analyzed.push(table.name);
          lastAnalyzedAt.set(table.name, Date.now());
        }
      }
      for (const table of plan.analyze) {
        await timed('analyze', table.name, () => analyzeTable(session, table.qualifiedName));
        pass.analyzed.push(table.name);
        lastAnalyzedAt.set(table.name, Date.now());
      }
      if (current === 'embedded' && (request.checkpoint || Date.now() - lastCheckpointAt >= options.checkpointIntervalMs)) {
        await timed('checkpoint', null, () => checkpoint(session));
        lastCheckpointAt = Date.now();
        pass.checkpointed = true;
      }
    } finally {
      await endUpkeepSession(session);
    }
    return pass;
  };

  // Never two passes at once; the first comes one interval after start.
  const loop = createBackgroundLoop({
    name: 'database-upkeep',
    intervalMs: options.intervalMs,
    run: () => runOnce(),
    logger,
    runAtStart: false,
    failureMessage: 'database upkeep pass failed; trying again at the next',
  });

  return {
    async start() {
      if (loop.isRunning()) return;
      let current: UpkeepMode;
      try {
        current = await mode();
      } catch (error) {
        // The database cannot be asked now: passes start, and each asks again until it answers.
        logger.warn({ err: error }, 'database upkeep: could not read the server settings; asking again at the next pass');
        current = 'vacuum-only';
      }
      if (current === 'none') return;
      if (current === 'vacuum-only') logger.info("database upkeep: the server's autovacuum is off, so the app vacuums and analyzes its own tables");
      loop.start();
    },
    stop: () => loop.stop(),
    runOnce,
    mode,
  };
}
