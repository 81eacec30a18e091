import type { Queryable } from '../database/database.ts';
import { findFlowById, type FlowRecord } from '../flows/flow-queries.ts';
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

  async find(flowId: string): Promise<FlowRecord | null> {
    const now = this.clock.now().getTime();
    const cached = this.entries.get(flowId);
    if (cached && cached.expiresAt > now) return cached.flow;
    const flow = await findFlowById(this.db, flowId);
    if (flow?.isActive) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(flowId, { flow, expiresAt: now + TTL_MS });
    } else {
      this.entries.delete(flowId);
    }
    return flow;
  }
}
