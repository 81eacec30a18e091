import type pg from 'pg';
import type { FastifyBaseLogger as Logger } from 'fastify';
import { inTransaction } from '../database/database.ts';
import type { Clock } from '../platform/clock.ts';
import { claimPrivacyRequest, finishPrivacyRequest, savePrivacyExport, type ClaimedPrivacyRequest } from './privacy-queries.ts';
import { eraseScope, exportShopper, shopperDataRegistry, type ShopperDataEntry } from './shopper-data-registry.ts';

/**
 * Carries out stored privacy requests. The `privacy_requests` table is the queue: a
 * request is claimed with a lease, done in one transaction together with marking it done,
 * and a request whose worker died midway (its transaction rolled back) is claimed again
 * when the lease runs out. Every process runs this; a claim skips locked rows, so two
 * never take the same request. A separate pg-boss queue would give the same guarantees
 * with more moving parts; requests are few and each is one transaction.
 */
export interface PrivacyWorkOptions {
  pool: pg.Pool;
  clock: Clock;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** How often to look for requests stored by other processes, or whose lease ran out. */
  pollIntervalMs?: number;
  leaseMs?: number;
  registry?: readonly ShopperDataEntry[];
}

export const exportLocationOf = (requestId: string) => `/api/privacy/requests/${requestId}/export`;

export class PrivacyWork {
  private readonly options: Required<PrivacyWorkOptions>;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(options: PrivacyWorkOptions) {
    this.options = { pollIntervalMs: 2_000, leaseMs: 5 * 60_000, registry: shopperDataRegistry, ...options };
  }

  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => this.kick(), this.options.pollIntervalMs);
    this.timer.unref();
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Looks for work now (after a request was stored); one pass at a time. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .then(() => undefined)
      .catch((error: unknown) => this.options.logger.warn({ err: error }, 'privacy: could not carry out requests; they are tried again'))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Carries out every request that can be claimed now. Tests call it directly. */
  async drain(): Promise<number> {
    let done = 0;
    while (!this.stopped) {
      const request = await claimPrivacyRequest(this.options.pool, this.options.clock.now(), this.options.leaseMs);
      if (!request) break;
      await this.carryOut(request);
      done += 1;
    }
    return done;
  }

  private async carryOut(request: ClaimedPrivacyRequest): Promise<void> {
    const { pool, clock, logger, registry } = this.options;
    const records = await inTransaction(pool, async (client) => {
      let count = 0;
      let exportLocation: string | null = null;
      if (request.topic === 'shop/redact') {
        if (request.shopDomain) count = await eraseScope(client, { kind: 'shop', userId: request.userId, shopDomain: request.shopDomain }, registry);
      } else if (request.shopperEmail) {
        if (request.topic === 'customers/data_request') {
          const content = await exportShopper(client, request.userId, request.shopperEmail, registry);
          count = countRecords(content);
          await savePrivacyExport(client, request.id, request.userId, request.shopperEmail, request.shopDomain, { shopper: request.shopperEmail, shopDomain: request.shopDomain, exportedAt: clock.now().toISOString(), ...content }, clock.now());
          exportLocation = exportLocationOf(request.id);
        } else {
          count = await eraseScope(client, { kind: 'shopper', userId: request.userId, shopperEmail: request.shopperEmail }, registry);
        }
      }
      await finishPrivacyRequest(client, request.id, clock.now(), count, exportLocation);
      return count;
    });
    // The request id and counts only: the shopper's address stays out of the logs.
    logger.info({ privacyRequestId: request.id, topic: request.topic, records, attempt: request.attempts }, 'privacy request done');
  }
}

/** Records in an export: the rows of every list in it. */
export function countRecords(content: Record<string, unknown>): number {
  let count = 0;
  for (const value of Object.values(content)) {
    if (Array.isArray(value)) count += value.length;
    else if (value && typeof value === 'object') count += countRecords(value as Record<string, unknown>);
  }
  return count;
}
