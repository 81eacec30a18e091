import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type pg from 'pg';
import type { EventSource } from '../../shared/events/event-sources.ts';
import type { EventStatus } from '../../shared/events/event-statuses.ts';
import type { TableSize } from '../database/database-size-queries.ts';

/**
 * What can be watched from outside, in Prometheus' text format (GET /metrics). One
 * registry per app, not prom-client's global one, so several apps in one process (tests)
 * count apart. Labels come from small fixed sets only: never an owner, an email, a URL or
 * a message, so the series stay few and say nothing about any one shop.
 */
export type ServiceName = 'openai' | 'klaviyo' | 'shopify';

export interface MetricsSources {
  pool: pg.Pool;
  /** Due jobs not yet taken, and the age of the oldest; null when the database cannot say. */
  backlog(): Promise<{ queued: number; oldestDueSeconds: number } | null>;
  /** Events due and not finished, and how long the oldest has been due; null when the database cannot say. */
  eventsBehind(): Promise<{ count: number; oldestSeconds: number | null } | null>;
  /** The database's size on disk; null when it cannot be read. */
  databaseBytes(): Promise<number | null>;
  /** The largest tables (a small fixed set of names); null when they cannot be read. */
  largestTables(): Promise<TableSize[] | null>;
}

/** Counts the scrapes, so that the gauges of one scrape can tell it from the next. */
interface ScrapeCount {
  current: number;
}

/**
 * One read of the database per scrape, however many gauges show parts of it: the first
 * gauge collected starts it, the others of the same scrape share it, and the next scrape
 * reads again. A scrape is told by its number, not by time: a read kept until the next
 * turn of the event loop answered a scrape that followed at once with the last one's figures.
 */
function oncePerScrape<T>(scrapes: ScrapeCount, read: () => Promise<T>): () => Promise<T> {
  let kept: { scrape: number; value: Promise<T> } | null = null;
  return () => {
    if (kept?.scrape !== scrapes.current) kept = { scrape: scrapes.current, value: read() };
    return kept.value;
  };
}

export class AppMetrics {
  readonly registry = new Registry();
  private readonly accepted = new Counter({
    name: 'flowsmith_events_accepted_total',
    help: 'Events accepted and stored, by source (duplicates included: they are answered as accepted).',
    labelNames: ['source'] as const,
    registers: [this.registry],
  });
  private readonly rejected = new Counter({
    name: 'flowsmith_events_rejected_total',
    help: 'Requests to an intake address that were refused, by source and reason code.',
    labelNames: ['source', 'reason'] as const,
    registers: [this.registry],
  });
  private readonly finished = new Counter({
    name: 'flowsmith_events_finished_total',
    help: 'Events that reached a final status in a worker: delivered, skipped or failed.',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });
  private readonly generationSeconds = new Histogram({
    name: 'flowsmith_generation_duration_seconds',
    help: 'Time of one OpenAI generation, by outcome.',
    labelNames: ['outcome'] as const,
    buckets: [0.25, 0.5, 1, 2, 4, 8, 15, 30, 60],
    registers: [this.registry],
  });
  private readonly generationTokens = new Counter({
    name: 'flowsmith_generation_tokens_total',
    help: 'Tokens used by generations, by kind (input, output).',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  private readonly serviceCalls = new Counter({
    name: 'flowsmith_service_calls_total',
    help: 'Calls to OpenAI, Klaviyo and Shopify by outcome (ok, rate_limited for 429, or the failure kind).',
    labelNames: ['service', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly serviceSeconds = new Histogram({
    name: 'flowsmith_service_call_duration_seconds',
    help: 'Time of one call to a service.',
    labelNames: ['service'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers: [this.registry],
  });
  private readonly upkeepSeconds = new Histogram({
    name: 'flowsmith_db_upkeep_duration_seconds',
    help: 'Time of one statement of the embedded database upkeep (vacuum, analyze, checkpoint): the embedded database runs nothing else meanwhile.',
    labelNames: ['task'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10],
    registers: [this.registry],
  });

  private readonly scrapes: ScrapeCount = { current: 0 };

  /** The text of GET /metrics: every gauge collected anew, the database read once. */
  scrape(): Promise<string> {
    this.scrapes.current += 1;
    return this.registry.metrics();
  }

  constructor(sources: MetricsSources) {
    // Event-loop lag (nodejs_eventloop_lag_seconds), heap, GC and handles.
    collectDefaultMetrics({ register: this.registry });
    const { pool } = sources;
    new Gauge({
      name: 'flowsmith_db_pool_waiting',
      help: 'Queries waiting for a free database connection.',
      registers: [this.registry],
      collect() {
        this.set(pool.waitingCount);
      },
    });
    new Gauge({
      name: 'flowsmith_db_pool_connections',
      help: 'Database connections open, by state.',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'busy' }, pool.totalCount - pool.idleCount);
      },
    });
    // A read that fails sets nothing (no figure is made up): a gauge keeps its last
    // value, and the tables' series are left out.
    const readBacklog = oncePerScrape(this.scrapes, () => sources.backlog());
    new Gauge({
      name: 'flowsmith_queue_jobs_due',
      help: 'Event jobs due and not yet taken by a worker.',
      registers: [this.registry],
      async collect() {
        const read = await readBacklog();
        if (read) this.set(read.queued);
      },
    });
    new Gauge({
      name: 'flowsmith_queue_oldest_due_seconds',
      help: 'How long the oldest event job not yet taken has been due.',
      registers: [this.registry],
      async collect() {
        const read = await readBacklog();
        if (read) this.set(read.oldestDueSeconds);
      },
    });
    // The events behind, from the events themselves: what owners wait for, where the
    // queue's figures say only what the workers have not yet taken.
    const readBehind = oncePerScrape(this.scrapes, () => sources.eventsBehind());
    new Gauge({
      name: 'flowsmith_events_behind',
      help: 'Events due and not finished: received, generating or delivering, or waiting past their time.',
      registers: [this.registry],
      async collect() {
        const read = await readBehind();
        if (read) this.set(read.count);
      },
    });
    new Gauge({
      name: 'flowsmith_events_behind_oldest_seconds',
      help: 'How long the oldest event behind has been due (0 when none is).',
      registers: [this.registry],
      async collect() {
        const read = await readBehind();
        if (read) this.set(read.oldestSeconds ?? 0);
      },
    });
    const readDatabaseBytes = oncePerScrape(this.scrapes, () => sources.databaseBytes());
    new Gauge({
      name: 'flowsmith_db_size_bytes',
      help: 'The database on disk (pg_database_size).',
      registers: [this.registry],
      async collect() {
        const read = await readDatabaseBytes();
        if (read !== null) this.set(read);
      },
    });
    const readTables = oncePerScrape(this.scrapes, () => sources.largestTables());
    // The ten largest change as tables grow: each scrape shows only this scrape's ten.
    const tableGauge = (name: string, help: string, value: (table: TableSize) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['table'] as const,
        registers: [this.registry],
        async collect() {
          const read = await readTables();
          this.reset();
          for (const table of read ?? []) this.set({ table: table.table }, value(table));
        },
      });
    tableGauge(
      'flowsmith_db_table_bytes',
      'The 10 largest tables of the app and pg-boss on disk, indexes and TOAST included, partitions under their table.',
      (table) => table.bytes,
    );
    tableGauge('flowsmith_db_table_live_rows', "Live rows of those tables, as PostgreSQL's statistics estimate them.", (table) => table.liveRows);
    tableGauge('flowsmith_db_table_dead_rows', "Dead rows of those tables that vacuum has not yet removed (PostgreSQL's statistics).", (table) => table.deadRows);
  }

  eventAccepted(source: EventSource): void {
    this.accepted.inc({ source });
  }

  eventRejected(source: EventSource | 'unknown', reason: string): void {
    this.rejected.inc({ source, reason });
  }

  eventFinished(status: Extract<EventStatus, 'delivered' | 'skipped' | 'failed'>): void {
    this.finished.inc({ status });
  }

  generation(result: { succeeded: boolean; durationMs: number; inputTokens: number; cachedInputTokens: number; outputTokens: number }): void {
    this.generationSeconds.observe({ outcome: result.succeeded ? 'succeeded' : 'failed' }, result.durationMs / 1000);
    if (result.inputTokens > 0) this.generationTokens.inc({ kind: 'input' }, result.inputTokens);
    // Of the input, what OpenAI's prompt cache served (billed at the cached price).
    if (result.cachedInputTokens > 0) this.generationTokens.inc({ kind: 'cached_input' }, result.cachedInputTokens);
    if (result.outputTokens > 0) this.generationTokens.inc({ kind: 'output' }, result.outputTokens);
  }

  upkeepStatement(task: 'vacuum' | 'analyze' | 'checkpoint', durationMs: number): void {
    this.upkeepSeconds.observe({ task }, durationMs / 1000);
  }

  serviceCall(call: { service: ServiceName; outcome: string; durationMs: number }): void {
    this.serviceCalls.inc({ service: call.service, outcome: call.outcome });
    this.serviceSeconds.observe({ service: call.service }, call.durationMs / 1000);
  }
}
