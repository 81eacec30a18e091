import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type pg from 'pg';
import type { EventSource, EventStatus } from '../../shared/events/event-schemas.ts';

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
    // Read once per scrape by whichever gauge is collected first.
    let backlog: Promise<{ queued: number; oldestDueSeconds: number } | null> | null = null;
    const readBacklog = () => {
      backlog ??= sources.backlog().finally(() => setTimeout(() => (backlog = null), 0).unref());
      return backlog;
    };
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

  serviceCall(call: { service: ServiceName; outcome: string; durationMs: number }): void {
    this.serviceCalls.inc({ service: call.service, outcome: call.outcome });
    this.serviceSeconds.observe({ service: call.service }, call.durationMs / 1000);
  }
}
