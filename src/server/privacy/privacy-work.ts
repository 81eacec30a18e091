import type pg from 'pg';
import type { FastifyBaseLogger as Logger } from 'fastify';
import { inTransaction } from '../database/database.ts';
import type { Clock } from '../platform/clock.ts';
import { claimPrivacyRequest, finishPrivacyRequest, savePrivacyExport, type ClaimedPrivacyRequest } from './privacy-queries.ts';
import { eraseScope, exportShopper, shopperDataRegistry, type ShopperDataEntry } from './shopper-data-registry.ts';
import { eraseShopperEvents, findShopifyIdentityEvents, findShopperEvents } from '../events/shopper-event-queries.ts';
import { findAttributionEmailsByOrderKeys } from '../attribution/attribution-queries.ts';
import type { Queryable } from '../database/database.ts';
import { createBackgroundLoop, type BackgroundLoop } from '../background/background-loop.ts';

/**
 * Carries out stored privacy requests. The `privacy_requests` table is the queue: a
 * request is claimed with a lease, done in one transaction together with marking it done,
 * and a request whose worker died midway (its transaction rolled back) is claimed again
 * when the lease runs out. The processes that work on events run this (the background
 * module places it); a claim skips locked rows, so two never take the same request, and a
 * request stored by a web process is found by the workers' next poll. A separate pg-boss queue would give the same guarantees
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
  private readonly loop: BackgroundLoop;
  private stopped = false;

  constructor(options: PrivacyWorkOptions) {
    this.options = { pollIntervalMs: 2_000, leaseMs: 5 * 60_000, registry: shopperDataRegistry, ...options };
    this.loop = createBackgroundLoop({
      name: 'privacy-work',
      intervalMs: this.options.pollIntervalMs,
      run: () => this.drain(),
      logger: this.options.logger,
      failureMessage: 'privacy: could not carry out requests; they are tried again',
    });
  }

  start(): void {
    this.stopped = false;
    this.loop.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
  }

  /** Looks for work now (after a request was stored); one pass at a time. Nothing where the work does not run. */
  kick(): void {
    this.loop.wake();
  }

  /** Carries out every request that can be claimed now. Tests call it directly. */
  async drain(): Promise<number> {
    let done = 0;
    // A stopping worker claims nothing more: a claimed request would wait out its lease.
    const claimNext = () => (this.stopped ? null : claimPrivacyRequest(this.options.pool, this.options.clock.now(), this.options.leaseMs));
    for (let request = await claimNext(); request; request = await claimNext()) {
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
      } else {
        const shopper = await shopperOfRequest(client, request);
        if (request.topic === 'customers/data_request') {
          const content = await exportOf(client, request.userId, shopper, registry);
          count = countRecords(content);
          const primaryEmail = shopper.emails[0] ?? null;
          await savePrivacyExport(
            client,
            {
              requestId: request.id,
              userId: request.userId,
              shopperEmail: primaryEmail,
              shopDomain: request.shopDomain,
              content: { shopper: primaryEmail, shoppers: shopper.emails, customerId: request.customerId, orders: request.orderIds, shopDomain: request.shopDomain, exportedAt: clock.now().toISOString(), ...content },
            },
            clock.now(),
          );
          exportLocation = exportLocationOf(request.id);
        } else {
          for (const email of shopper.emails) count += await eraseScope(client, { kind: 'shopper', userId: request.userId, shopperEmail: email }, registry);
          // Events found by customer id, phone or order that name no email the loop above erased.
          count += await eraseShopperEvents(client, { userId: request.userId, eventIds: shopper.eventIds });
        }
      }
      await finishPrivacyRequest(client, request.id, clock.now(), { recordsAffected: count, exportLocation });
      return count;
    });
    // The request id and counts only: the shopper's address stays out of the logs.
    logger.info({ privacyRequestId: request.id, topic: request.topic, records, attempt: request.attempts }, 'privacy request done');
  }
}

/**
 * Whom a Shopify privacy request is about. Shopify names the shopper by `customer.id`,
 * `email`, `phone` and the orders (`orders_to_redact`, `orders_requested`), and any of
 * them may be empty (a guest has no customer id, a shopper without email has `"email":
 * ""`): each one given finds the events that name it, and the emails those events were
 * stored under (and those of credited orders) become part of the shopper, so a request
 * naming only a customer id or orders still reaches everything kept under the email.
 */
export async function shopperOfRequest(db: Queryable, request: Pick<ClaimedPrivacyRequest, 'userId' | 'shopperEmail' | 'customerId' | 'shopperPhone' | 'orderIds'>): Promise<{ emails: string[]; eventIds: string[] }> {
  const events = await findShopifyIdentityEvents(db, request.userId, { customerId: request.customerId, phone: request.shopperPhone, orderIds: request.orderIds });
  const fromOrders = await findAttributionEmailsByOrderKeys(db, request.userId, request.orderIds);
  const emails = new Set<string>();
  if (request.shopperEmail) emails.add(request.shopperEmail.toLowerCase());
  for (const event of events) if (event.shopperEmail) emails.add(event.shopperEmail.toLowerCase());
  for (const email of fromOrders) emails.add(email.toLowerCase());
  return { emails: [...emails], eventIds: events.map((event) => event.id) };
}

/** One export over every email of the shopper, plus the events found by id that no email holds. */
async function exportOf(db: Queryable, userId: string, shopper: { emails: string[]; eventIds: string[] }, registry: readonly ShopperDataEntry[]): Promise<Record<string, unknown>> {
  const content: Record<string, unknown> = {};
  for (const email of shopper.emails) {
    for (const [key, value] of Object.entries(await exportShopper(db, userId, email, registry))) {
      const earlier = content[key];
      content[key] = Array.isArray(earlier) && Array.isArray(value) ? [...earlier, ...value] : (earlier ?? value);
    }
  }
  const events = (content.events ?? []) as Array<{ id: string }>;
  const known = new Set(events.map((event) => event.id));
  const missing = shopper.eventIds.filter((id) => !known.has(id));
  const found = missing.length > 0 ? await findShopperEvents(db, { userId, eventIds: missing }) : [];
  // The same event found under two emails is listed once.
  if (events.length + found.length > 0) content.events = [...new Map([...events, ...found].map((event) => [event.id, event])).values()];
  return content;
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
