import type { Queryable } from '../database/database.ts';
import { findFlowByPixelKey, type FlowRecord } from '../flows/flow-queries.ts';
import type { Clock } from '../platform/clock.ts';

/**
 * The flows pixel keys name, kept for one second per process for the same reason as
 * webhook URLs (webhook-flow-cache.ts): a busy storefront sends every product view, and
 * each would otherwise cost a database round trip. Only an active flow is served from the
 * cache, so switching a flow on counts from the next event, and the worker reads the flow
 * again before processing, so switching it off counts there at once. A pixel key never
 * changes, so no grace period applies.
 */
const TTL_MS = 1_000;
const MAX_ENTRIES = 10_000;

export class PixelFlowCache {
  private readonly entries = new Map<string, { flow: FlowRecord; expiresAt: number }>();
  private readonly db: Queryable;
  private readonly clock: Clock;

  constructor(db: Queryable, clock: Clock) {
    this.db = db;
    this.clock = clock;
  }

  /** The flow whose browsing pixel has this key, whatever its type (the route judges that). */
  async find(pixelKey: string): Promise<FlowRecord | null> {
    const now = this.clock.now().getTime();
    const cached = this.entries.get(pixelKey);
    if (cached && cached.expiresAt > now) return cached.flow;
    const flow = await findFlowByPixelKey(this.db, pixelKey);
    if (flow?.isActive) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(pixelKey, { flow, expiresAt: now + TTL_MS });
    } else {
      this.entries.delete(pixelKey);
    }
    return flow;
  }
}
