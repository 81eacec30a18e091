import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../src/server/database/database.ts';
import { defaultEngineOptions } from '../../src/server/engine/spine/engine.ts';
import { INTAKE_BUSY_MS, JobQueue } from '../../src/server/background/job-queue.ts';
import { createLogger } from '../../src/server/logger.ts';
import { createTestDatabase } from '../support/test-database.ts';

/**
 * A worker beside a busy intake (docs/decisions/0055-intake-first.md): while the intake
 * says webhooks queue for the database, the worker takes new jobs only up to
 * `concurrencyWhileIntakeBusy`, and once the intake is quiet again it takes the rest at
 * once, without waiting for a poll.
 */
let database: Database;

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await database?.close();
});

it('takes few new jobs while the intake is busy, and the rest once it is quiet', async () => {
  // A poll far longer than the test: whatever the worker takes, it takes on a wake-up.
  const jobs = new JobQueue(database.pool, { ...defaultEngineOptions, concurrency: 50, concurrencyWhileIntakeBusy: 3, pollIntervalMs: 60_000 }, createLogger('silent'));
  await jobs.start();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const taken: string[] = [];
  try {
    for (let index = 0; index < 20; index++) await jobs.send(database.pool, { eventId: `event-${randomUUID()}`, attempt: 1 });
    jobs.work(async (job) => {
      taken.push(job.data.eventId);
      await released;
    });
    // Before the worker's first look, which comes on the next turn of the event loop.
    jobs.intakeBusy();
    const busySince = Date.now();
    await expect.poll(() => taken.length).toBe(3);
    // The hold ends by itself: no send, no finished job and no poll wakes the worker.
    await expect.poll(() => taken.length, { timeout: 5_000 }).toBe(20);
    expect(Date.now() - busySince).toBeGreaterThanOrEqual(INTAKE_BUSY_MS - 5);
  } finally {
    release();
    await jobs.stop();
  }
});
