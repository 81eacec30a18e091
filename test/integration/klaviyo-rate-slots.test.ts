import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Queryable } from '../../src/server/database/database.ts';
import { klaviyoAccountLimits, takeKlaviyoSlot, type KlaviyoRateLimits } from '../../src/server/engine/delivery/klaviyo-rate-limiter.ts';
import { RateLimitWait } from '../../src/server/engine/spine/rate-limit-wait.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { createTestDatabase } from '../support/test-database.ts';

/**
 * The shared log of Klaviyo requests, below the engine: every process takes each request's
 * slot from it, so it must never hand out more than a window allows however many ask at
 * once, and (since every delivery of an account asks the same row) must hold that row's
 * lock only while the database works.
 */
let database: Database;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

const limits = (limit: number): KlaviyoRateLimits => ({ ...klaviyoAccountLimits, 'profile-import': [{ limit, windowMs: 60_000 }] });

/** Takes one slot without waiting: true when taken, false when the limiter said to wait. */
async function tryOnce(db: Queryable, apiKey: string, clock: ManualClock, limit: number): Promise<boolean> {
  try {
    await takeKlaviyoSlot(db, apiKey, 'profile-import', { limits: limits(limit), clock, maxInPlaceWaitMs: 0 });
    return true;
  } catch (error) {
    if (error instanceof RateLimitWait) return false;
    throw error;
  }
}

describe("the Klaviyo limiter's shared log", () => {
  it('hands out exactly a window of slots to thirty callers at once, and none more until the window moves on', async () => {
    const apiKey = `pk_${randomUUID()}`;
    const clock = new ManualClock(new Date('2031-03-01T10:00:00Z'));
    const outcomes = await Promise.all(Array.from({ length: 30 }, () => tryOnce(database.pool, apiKey, clock, 10)));
    expect(outcomes.filter(Boolean)).toHaveLength(10);
    expect(await tryOnce(database.pool, apiKey, clock, 10)).toBe(false);

    // The window as the limiter counts it: Klaviyo's minute, padded by 5 % and 250 ms.
    clock.advance(63_000);
    expect(await tryOnce(database.pool, apiKey, clock, 10)).toBe(false);
    clock.advance(1_000);
    expect(await tryOnce(database.pool, apiKey, clock, 10)).toBe(true);
  });

  it('counts each of Klaviyo’s seconds a quarter second longer, so a write arriving that late is not refused', async () => {
    const apiKey = `pk_${randomUUID()}`;
    const clock = new ManualClock(new Date('2031-03-01T10:00:00Z'));
    const take = async () => {
      try {
        await takeKlaviyoSlot(database.pool, apiKey, 'profile-import', { limits: klaviyoAccountLimits, clock, maxInPlaceWaitMs: 0 });
        return true;
      } catch (error) {
        if (error instanceof RateLimitWait) return false;
        throw error;
      }
    };
    for (let index = 0; index < 75; index += 1) expect(await take()).toBe(true);
    expect(await take()).toBe(false);
    // 1.05 s plus the trip's 250 ms: a write whose slot came 1.2 s after the first could
    // still reach Klaviyo within the first's second.
    clock.advance(1_200);
    expect(await take()).toBe(false);
    clock.advance(101);
    expect(await take()).toBe(true);
  });

  it("takes a slot in one statement, so the account's row is never locked across a round trip to a busy worker", async () => {
    const apiKey = `pk_${randomUUID()}`;
    const clock = new ManualClock(new Date('2031-03-01T10:00:00Z'));
    const statements: string[] = [];
    // Only `query`: a caller that opened a transaction of its own would fail here.
    const recording = { query: (text: string, values?: unknown[]) => (statements.push(text), database.pool.query(text, values)) };
    expect(await tryOnce(recording as Queryable, apiKey, clock, 1)).toBe(true);
    expect(statements).toHaveLength(1);
    expect(await tryOnce(recording as Queryable, apiKey, clock, 1)).toBe(false);
    expect(statements).toHaveLength(2);
  });
});

describe('the time a waiting request is told to come back', () => {
  it('is never before its slot frees: a request back at exactly that time takes it, however the stamps fall within their millisecond', async () => {
    // A use was stamped with the microseconds the database spent taking its lock, while the
    // time to come back reached the app in whole milliseconds: it could fall up to a
    // millisecond before the slot freed. On a clock that does not move by itself (a test's),
    // the request then waited for that millisecond for ever; a CI run failed so.
    const oneAWindow = { ...klaviyoAccountLimits, 'profile-import': [{ limit: 1, windowMs: 10_000 }] };
    const missed: string[] = [];
    for (let round = 0; round < 40; round += 1) {
      const apiKey = `pk_${randomUUID()}`;
      const clock = new ManualClock(new Date('2031-03-01T10:00:00Z'));
      await takeKlaviyoSlot(database.pool, apiKey, 'profile-import', { limits: oneAWindow, clock, maxInPlaceWaitMs: 0 });
      clock.advance(1_000);
      const comeBackAt = await takeKlaviyoSlot(database.pool, apiKey, 'profile-import', { limits: oneAWindow, clock, maxInPlaceWaitMs: 0 }).then(
        () => null,
        (error: unknown) => (error as RateLimitWait).until,
      );
      expect(comeBackAt).toBeInstanceOf(Date);
      clock.advance(comeBackAt!.getTime() - clock.now().getTime());
      const taken = await takeKlaviyoSlot(database.pool, apiKey, 'profile-import', { limits: oneAWindow, clock, maxInPlaceWaitMs: 0 }).then(
        () => true,
        () => false,
      );
      if (!taken) missed.push(comeBackAt!.toISOString());
    }
    expect(missed).toEqual([]);
  });
});
