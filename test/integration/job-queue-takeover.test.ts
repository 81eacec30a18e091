import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../src/server/database/database.ts';
import { defaultEngineOptions } from '../../src/server/engine/spine/engine.ts';
import { JobQueue } from '../../src/server/background/job-queue.ts';
import { createLogger } from '../../src/server/logger.ts';
import { createTestDatabase } from '../support/test-database.ts';

/**
 * A job whose worker stopped sending heartbeats is handed to another worker while the first
 * may still run it (docs/decisions/0061-one-delivery-when-a-job-runs-twice.md). The first
 * worker's next heartbeat finds the job no longer its own, and stops that run: it waits for,
 * and pays for, nothing more.
 */
let database: Database;

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await database?.close();
});

/** The shortest heartbeat pg-boss accepts; the worker refreshes every third of it. */
const heartbeatSeconds = 10;

interface Run {
  eventId: string;
  retryCount: number;
  signal: AbortSignal;
}

async function workingQueue(): Promise<{ jobs: JobQueue; logLines: string[]; runs: Run[] }> {
  const logLines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  // A poll far longer than the test: the job is taken on the send's wake-up.
  const jobs = new JobQueue(database.pool, { ...defaultEngineOptions, heartbeatSeconds, pollIntervalMs: 60_000, stopTimeoutMs: 100 }, createLogger('info', destination));
  await jobs.start();
  const runs: Run[] = [];
  jobs.work(async (job, signal) => {
    runs.push({ eventId: job.data.eventId, retryCount: job.retryCount, signal });
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    throw signal.reason;
  });
  return { jobs, logLines, runs };
}

it('stops a run at its next heartbeat once another worker has taken its job up, and leaves the other claim alone', async () => {
  const { jobs, logLines, runs } = await workingQueue();
  const takenOver = `event-${randomUUID()}`;
  const keptOn = `event-${randomUUID()}`;
  try {
    await jobs.send(database.pool, { eventId: takenOver, attempt: 1 });
    await jobs.send(database.pool, { eventId: keptOn, attempt: 1 });
    await expect.poll(() => runs.length).toBe(2);
    const runOf = (eventId: string) => runs.find((run) => run.eventId === eventId)!;
    // Another worker's claim of the first job, as pg-boss makes it: each claim counts one more try.
    const claimed = await database.pool.query(`UPDATE pgboss.job SET retry_count = retry_count + 1 WHERE data->>'eventId' = $1 AND state = 'active'`, [takenOver]);
    expect(claimed.rowCount).toBe(1);

    await expect.poll(() => runOf(takenOver).signal.aborted, { timeout: heartbeatSeconds * 1_000 }).toBe(true);
    const stopped = logLines.filter((line) => line.includes('event job taken up by another run; this run stops'));
    expect(stopped).toHaveLength(1);
    expect(stopped[0]).toContain(takenOver);
    // The other worker's claim stands: the stopped run neither failed nor deleted it.
    const { rows } = await database.pool.query<{ state: string; retry_count: number }>(`SELECT state, retry_count FROM pgboss.job WHERE data->>'eventId' = $1`, [takenOver]);
    expect(rows).toEqual([{ state: 'active', retry_count: 1 }]);
    // The job still this worker's runs on through the same heartbeats.
    expect(runOf(keptOn).signal.aborted).toBe(false);
    expect(logLines.some((line) => line.includes('event job failed'))).toBe(false);
  } finally {
    await jobs.stop();
  }
});

it('stops the older of two runs of one job in the same worker, which took the job up again after its heartbeat lapsed', async () => {
  const { jobs, logLines, runs } = await workingQueue();
  const eventId = `event-${randomUUID()}`;
  try {
    await jobs.send(database.pool, { eventId, attempt: 1 });
    await expect.poll(() => runs.length).toBe(1);
    // The heartbeat monitor's verdict (a database outage kept this worker from refreshing it):
    // the job waits to be taken up again, and this same worker takes it on its next look.
    await database.pool.query(`UPDATE pgboss.job SET state = 'retry' WHERE data->>'eventId' = $1`, [eventId]);
    await jobs.send(database.pool, { eventId: `event-${randomUUID()}`, attempt: 1 });
    await expect.poll(() => runs.filter((run) => run.eventId === eventId).map((run) => run.retryCount)).toEqual([0, 1]);

    const [older, newer] = runs.filter((run) => run.eventId === eventId);
    await expect.poll(() => older!.signal.aborted, { timeout: heartbeatSeconds * 1_000 }).toBe(true);
    expect(newer!.signal.aborted).toBe(false);
    const stopped = logLines.filter((line) => line.includes('event job taken up by another run; this run stops'));
    expect(stopped).toHaveLength(1);
    expect(JSON.parse(stopped[0]!)).toMatchObject({ eventId, retryCount: 0 });
    // The newer run keeps its claim through the heartbeats that follow.
    const { rows } = await database.pool.query<{ state: string; retry_count: number }>(`SELECT state, retry_count FROM pgboss.job WHERE data->>'eventId' = $1`, [eventId]);
    expect(rows).toEqual([{ state: 'active', retry_count: 1 }]);
  } finally {
    await jobs.stop();
  }
});
