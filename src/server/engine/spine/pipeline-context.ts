import type pg from 'pg';
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.ts';
import type { ServiceError } from '../../integrations/service-error.ts';
import type { KlaviyoRateLimits } from '../delivery/klaviyo-rate-limiter.ts';
import type { RetryPolicy } from './retry-policy.ts';
import type { CredentialsLoader } from './engine-credentials.ts';
import type { ShopifyAccessTokenProvider } from '../../credentials/shopify-token-provider.ts';
import type { EventRecord } from '../../events/event-queries.ts';
import type { FlowAlerts } from '../../alerts/flow-alerts.ts';
import type { ServiceConditions } from '../../service-conditions/service-conditions.ts';
import type { WritingSlots } from '../writing/writing-slots.ts';

/**
 * What every step of the event pipeline is given (event-pipeline.ts runs the steps;
 * text-generation.ts, known-shoppers.ts and klaviyo-delivery.ts are steps). A step ends
 * an event early by returning its end (step-result.ts).
 */
export interface PipelineOptions {
  retry: RetryPolicy;
  openaiTimeoutMs: number;
  /** How long a flex-tier call may take before the standard tier is asked instead. */
  flexTimeoutMs: number;
  klaviyoTimeoutMs: number;
  /** The output limit of every generation (reasoning tokens count against it). */
  maxOutputTokens: number;
  /**
   * Deliveries under a backlog go in bulk import jobs (klaviyo-batches.ts). Off, each
   * waits for its single-write slot instead: the tests of that waiting turn it off.
   */
  bulkDelivery: boolean;
  /** Klaviyo's per-account limits; null to not limit (an unlimited fake in benchmarks). */
  klaviyoLimits: KlaviyoRateLimits | null;
}

export interface PipelineContext {
  pool: pg.Pool;
  logger: Logger;
  openaiBaseUrl: string;
  klaviyoBaseUrl: string;
  loadCredentials: CredentialsLoader;
  /** Product details from the owner's shop; without it, events go as they came, and pixel events (which need them) are skipped. */
  shopifyTokens?: ShopifyAccessTokenProvider;
  options: PipelineOptions;
  /** The app's clock: timers and retries are due by it (tests move it by hand), and short waits sleep on it. */
  clock: Clock;
  /** Told how events end and what generations cost (the app's metrics). */
  observer?: PipelineObserver;
  /** Told when an event waits for a time (its next try, a rate limit's slot), so this worker can come back for it then. */
  onWaiting?: (until: Date) => void;
  /** Told when a flow stops writing texts for a reason its owner controls (docs/decisions/0041-flow-alerts.md). */
  alerts?: FlowAlerts;
  /** Told of, and asked about, conditions of the owner's services that every later event meets (docs/decisions/0047-service-conditions.md). */
  conditions?: ServiceConditions;
  /** Told when a delivery joined a bulk batch, so this worker's batch dispatcher runs soon. */
  onBatched?: () => void;
  /** The worker's OpenAI calls at once (writing-slots.ts); without it (Preview, tests), calls go at once. */
  writingSlots?: WritingSlots;
}

export interface PipelineObserver {
  eventFinished(status: 'delivered' | 'skipped' | 'failed'): void;
  generation(result: { succeeded: boolean; durationMs: number; inputTokens: number; cachedInputTokens: number; outputTokens: number }): void;
}

export function quickRetries(context: PipelineContext, event: Pick<EventRecord, 'id'>, service: string, signal: AbortSignal) {
  return {
    signal,
    sleep: (milliseconds: number, abort?: AbortSignal) => context.clock.sleep(milliseconds, abort),
    onRetry: (error: ServiceError, delayMs: number) => context.logger.info({ eventId: event.id, code: error.code, delayMs }, `retrying ${service}`),
  };
}
