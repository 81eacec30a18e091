import type { Queryable } from '../database/database.ts';
import { findFlowByWebhookKey, type FlowRecord } from '../flows/flow-queries.ts';
import type { Clock } from '../platform/clock.ts';

/**
 * The flows webhook URLs name, kept for one second per process: under a burst every
 * request of a shop names the same flow, and reading it per request costs the database
 * round trip the whole intake is otherwise batched to avoid. Only an active flow is served
 * from the cache, so switching a flow on counts from the next request; switching it off
 * counts within a second here, and at once in the worker, which reads the flow again and
 * skips events of a flow that is no longer active.
 */
const TTL_MS = 1_000;
const MAX_ENTRIES = 10_000;

export class WebhookFlowCache {
  private readonly entries = new Map<string, { flow: FlowRecord; expiresAt: number }>();
  private readonly db: Queryable;
  private readonly clock: Clock;

  constructor(db: Queryable, clock: Clock) {
    this.db = db;
    this.clock = clock;
  }

  /** The flow whose URL key (current, or previous within its grace period) this is. */
  async find(webhookKey: string): Promise<FlowRecord | null> {
    const now = this.clock.now();
    const cached = this.entries.get(webhookKey);
    if (cached && cached.expiresAt > now.getTime()) return cached.flow;
    const flow = await findFlowByWebhookKey(this.db, webhookKey, now);
    if (flow?.isActive) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      // Never past the end of a replaced key's grace period.
      const keyEnds = flow.webhookKey === webhookKey ? Infinity : (flow.previousWebhookKeyExpiresAt?.getTime() ?? 0);
      this.entries.set(webhookKey, { flow, expiresAt: Math.min(now.getTime() + TTL_MS, keyEnds) });
    } else {
      this.entries.delete(webhookKey);
    }
    return flow;
  }
}
