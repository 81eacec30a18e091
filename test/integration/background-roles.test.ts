import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * Which background work a process runs follows its ROLE (docs/decisions/0036-background-work.md):
 * a web process sends jobs and serves the live streams, and nothing of the worker's runs
 * there. Both apps hold the embedded database, so both keep its upkeep.
 */
const workerParts = ['klaviyo-batches', 'event-jobs', 'timer-sweep', 'retention', 'privacy-work', 'change-log-pruning', 'experiment-promotions', 'store-rechecks'];

describe('a web process (ROLE=web)', () => {
  let web: TestApp;
  beforeAll(async () => {
    web = await startTestApp({ env: { ROLE: 'web' } });
  }, 60_000);
  afterAll(async () => {
    await web?.close();
  });

  it('runs none of the worker parts: only the queue it sends into, the change feed of its streams, the upkeep of its database', () => {
    expect(web.app.background.running()).toEqual(['job-queue', 'change-feed', 'database-upkeep']);
    expect(web.app.background.running().filter((part) => workerParts.includes(part))).toEqual([]);
    expect(web.logLines.some((line) => line.includes('event worker started'))).toBe(false);
  });
});

describe('a worker process (ROLE=worker)', () => {
  let worker: TestApp;
  beforeAll(async () => {
    worker = await startTestApp({ env: { ROLE: 'worker' } });
  }, 60_000);
  afterAll(async () => {
    await worker?.close();
  });

  it('runs every worker part, and no change feed, which only streams need; all stop with the app', async () => {
    expect(worker.app.background.running()).toEqual(['job-queue', ...workerParts, 'database-upkeep']);
    expect(worker.logLines.some((line) => line.includes('event worker started'))).toBe(true);
    await worker.app.close();
    expect(worker.app.background.running()).toEqual([]);
  });
});
