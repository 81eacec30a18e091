import { LRUCache } from 'lru-cache';
import type { Queryable } from '../database/database.ts';
import { findFlowByPixelKey, findFlowByWebhookKey, type FlowRecord } from '../flows/flow-queries.ts';
import { cacheLifetime, type Clock } from '../platform/clock.ts';

/**
 * The flows that public keys name (a webhook URL's key, a pixel's key), kept for one
 * second per process: under a burst every request of a shop names the same flow, and
 * reading it per request costs the database round trip the whole intake is otherwise
 * batched to avoid. Only an active flow is served from the cache, so switching a flow on
 * counts from the next request; switching it off counts within a second here, and at once
 * in the worker, which reads the flow again and skips events of a flow no longer active.
 */
const TTL_MS = 1_000;
const MAX_ENTRIES = 10_000;

export class FlowKeyCache {
  private readonly entries: LRUCache<string, FlowRecord>;
  private readonly clock: Clock;
  private readonly lookUp: (key: string, now: Date) => Promise<FlowRecord | null>;
  private readonly keyEndsAt: (flow: FlowRecord, key: string) => number;

  constructor(clock: Clock, lookUp: (key: string, now: Date) => Promise<FlowRecord | null>, keyEndsAt: (flow: FlowRecord, key: string) => number = () => Infinity) {
    this.clock = clock;
    this.lookUp = lookUp;
    this.keyEndsAt = keyEndsAt;
    this.entries = new LRUCache({ max: MAX_ENTRIES, ...cacheLifetime(clock, TTL_MS) });
  }

  async find(key: string): Promise<FlowRecord | null> {
    const cached = this.entries.get(key);
    if (cached) return cached;
    const now = this.clock.now();
    const flow = await this.lookUp(key, now);
    if (flow?.isActive) {
      // A key a rotation replaced is never served past its grace, however fresh the entry.
      const lifetimeMs = Math.min(TTL_MS, this.keyEndsAt(flow, key) - now.getTime());
      if (lifetimeMs > 1) this.entries.set(key, flow, { ttl: cacheLifetime(this.clock, lifetimeMs).ttl });
    } else {
      this.entries.delete(key);
    }
    return flow;
  }
}

/** Flows by their URL key: the current one, or the one a rotation replaced, never past its grace. */
export function webhookFlowCache(db: Queryable, clock: Clock): FlowKeyCache {
  return new FlowKeyCache(
    clock,
    (key, now) => findFlowByWebhookKey(db, key, now),
    (flow, key) => (flow.webhookKey === key ? Infinity : (flow.previousWebhookKeyExpiresAt?.getTime() ?? 0)),
  );
}

/** Flows by their pixel's key, whatever their type (the pixel route judges that); a pixel key never changes. */
export function pixelFlowCache(db: Queryable, clock: Clock): FlowKeyCache {
  return new FlowKeyCache(clock, (key) => findFlowByPixelKey(db, key));
}
