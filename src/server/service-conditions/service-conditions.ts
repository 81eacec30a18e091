import type pg from 'pg';
import type { Logger } from 'pino';
import { LRUCache } from 'lru-cache';
import { cacheLifetime, type Clock } from '../platform/clock.ts';
import type { ServiceConditionKind } from '../../shared/service-conditions/service-condition-schemas.ts';
import { clearServiceCondition, listStandingServiceConditions, raiseServiceCondition, type ServiceConditionRow } from './service-condition-queries.ts';

/**
 * What the pipeline tells of, and asks about, the conditions of an owner's services
 * (docs/decisions/0047-service-conditions.md). Telling never fails an event: a database
 * error is logged. Each process keeps what it last read of an owner's conditions for a few
 * seconds, so an event that finds none costs no statement, and a good answer clears a
 * condition only where one was seen.
 */
export interface ServiceConditions {
  /** An event met the condition (the service's words in `detail`). */
  raise(condition: { userId: string; kind: ServiceConditionKind; subject?: string; detail: string }): Promise<void>;
  /** The service answered as it should: the condition of this kind (and subject) is over. */
  answered(userId: string, kind: ServiceConditionKind, subject?: string): Promise<void>;
  /** The condition is over, whatever this process last read (a re-check that passed). */
  end(userId: string, kind: ServiceConditionKind, subject?: string): Promise<void>;
  /** The owner's condition of this kind that stands now, or null. */
  standing(userId: string, kind: ServiceConditionKind, subject?: string): Promise<ServiceConditionRow | null>;
  /** Every condition of the owner that stands now, read afresh. */
  list(userId: string): Promise<ServiceConditionRow[]>;
}

/** How long a process keeps what it read of an owner's conditions. */
const KEPT_MS = 5_000;

export function createServiceConditions(deps: { pool: pg.Pool; clock: Clock; logger: Logger }): ServiceConditions {
  const kept = new LRUCache<string, ServiceConditionRow[]>({ max: 10_000, ...cacheLifetime(deps.clock, KEPT_MS) });
  /** Conditions this process cleared without having seen them, lately: cleared again only after KEPT_MS. */
  const lastCleared = new LRUCache<string, true>({ max: 100_000, ...cacheLifetime(deps.clock, KEPT_MS) });
  const logger = deps.logger.child({ module: 'service-conditions' });

  const read = async (userId: string): Promise<ServiceConditionRow[]> => {
    const cached = kept.get(userId);
    if (cached) return cached;
    const rows = await listStandingServiceConditions(deps.pool, userId);
    kept.set(userId, rows);
    return rows;
  };
  const find = (rows: ServiceConditionRow[], kind: ServiceConditionKind, subject: string) => rows.find((row) => row.kind === kind && row.subject === subject) ?? null;

  return {
    async raise({ userId, kind, subject = '', detail }) {
      try {
        await raiseServiceCondition(deps.pool, { userId, kind, subject, detail, at: deps.clock.now() });
        kept.delete(userId);
        lastCleared.delete(`${userId}\u0000${kind}\u0000${subject}`);
        logger.warn({ userId, kind, subject, detail }, 'a service condition stands for the owner');
      } catch (error) {
        logger.warn({ userId, kind, error: (error as Error).message }, 'the service condition was not recorded');
      }
    },
    async answered(userId, kind, subject = '') {
      try {
        // Seen here: cleared at once. Not seen: another process may have raised it since this
        // one read, so it is cleared anyway, at most once per KEPT_MS, so that a fixed
        // condition never outlives the next good answer by more than that.
        const key = `${userId}\u0000${kind}\u0000${subject}`;
        const seen = find(await read(userId), kind, subject) !== null;
        if (!seen && lastCleared.has(key)) return;
        lastCleared.set(key, true);
        if (await clearServiceCondition(deps.pool, userId, kind, subject)) logger.info({ userId, kind, subject }, 'a service condition is over');
        if (seen) kept.delete(userId);
      } catch (error) {
        logger.warn({ userId, kind, error: (error as Error).message }, 'the service condition was not cleared');
      }
    },
    async end(userId, kind, subject = '') {
      await clearServiceCondition(deps.pool, userId, kind, subject);
      kept.delete(userId);
    },
    async standing(userId, kind, subject = '') {
      return find(await read(userId), kind, subject);
    },
    async list(userId) {
      const rows = await listStandingServiceConditions(deps.pool, userId);
      kept.set(userId, rows);
      return rows;
    },
  };
}
