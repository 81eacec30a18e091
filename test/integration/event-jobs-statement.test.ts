import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/server/database/database.ts';
import { defaultEngineOptions } from '../../src/server/engine/spine/engine.ts';
import { JobQueue } from '../../src/server/background/job-queue.ts';
import { createTestDatabase, genericCartEvent, insertOwnerWithFlow } from '../support/test-database.ts';
import { insertEventsOnce, type NewEvent } from '../../src/server/events/event-queries.ts';

/**
 * pg-boss's own insert of many jobs, as `JobQueue.sendManyStatement` captures it for the
 * intake's one statement (store_events_once runs it with the jobs of the events it stored:
 * docs/decisions/0031-one-statement-intake.md). It is pg-boss's internal SQL, not its API,
 * which is why package.json pins pg-boss to one version
 * (docs/decisions/0034-stored-functions-in-modules.md). An upgrade that changes the
 * statement fails here: check that it still takes its jobs as its one parameter, inserts
 * into pg-boss's table and nothing else, and can run inside store_events_once; then copy
 * the new text here.
 */
const pgBossInsertStatement = `
  INSERT INTO pgboss.job_common (
  id,
  name,
  data,
  priority,
  start_after,
  created_on,
  singleton_key,
  singleton_on,
  group_id,
  group_tier,
  expire_seconds,
  deletion_seconds,
  keep_until,
  retry_limit,
  retry_delay,
  retry_backoff,
  retry_delay_max,
  policy,
  dead_letter,
  heartbeat_seconds,
  blocked,
  blocking,
  pending_dependencies
  )
  SELECT
  COALESCE(id, gen_random_uuid()) as id,
  'process-event' as name,
  data,
  COALESCE(priority, 0) as priority,
  j.start_after,
  pgboss.job_now() as created_on,
  "singletonKey",
  CASE
  WHEN "singletonSeconds" IS NOT NULL THEN 'epoch'::timestamp + '1s'::interval * ("singletonSeconds"::float8 * floor(( date_part('epoch', pgboss.job_now()) + COALESCE("singletonOffset",0)::float8) / "singletonSeconds"::float8 ))
  ELSE NULL
  END as singleton_on,
  "groupId" as group_id,
  "groupTier" as group_tier,
  COALESCE("expireInSeconds", q.expire_seconds) as expire_seconds,
  COALESCE("deleteAfterSeconds", q.deletion_seconds) as deletion_seconds,
  j.start_after + (COALESCE("retentionSeconds", q.retention_seconds) * interval '1s') as keep_until,
  COALESCE("retryLimit", q.retry_limit) as retry_limit,
  COALESCE("retryDelay", q.retry_delay) as retry_delay,
  COALESCE("retryBackoff", q.retry_backoff, false) as retry_backoff,
  COALESCE("retryDelayMax", q.retry_delay_max) as retry_delay_max,
  q.policy,
  COALESCE("deadLetter", q.dead_letter) as dead_letter,
  COALESCE("heartbeatSeconds", q.heartbeat_seconds) as heartbeat_seconds,
  COALESCE(blocked, false) as blocked,
  COALESCE(blocking, false) as blocking,
  COALESCE("pendingDependencies", 0) as pending_dependencies
  FROM (
  SELECT *,
  CASE
  WHEN (right("startAfter", 1) = 'Z' OR "startAfter" ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}') THEN CAST("startAfter" as timestamp with time zone)
  ELSE pgboss.job_now() + CAST(COALESCE("startAfter",'0') as interval)
  END as start_after
  FROM json_to_recordset($1::text::json) as x (
  id uuid,
  priority integer,
  data jsonb,
  "startAfter" text,
  "retryLimit" integer,
  "retryDelay" integer,
  "retryDelayMax" integer,
  "retryBackoff" boolean,
  "singletonKey" text,
  "singletonSeconds" integer,
  "singletonOffset" integer,
  "groupId" text,
  "groupTier" text,
  "expireInSeconds" integer,
  "deleteAfterSeconds" integer,
  "retentionSeconds" integer,
  "deadLetter" text,
  "heartbeatSeconds" integer,
  blocked boolean,
  blocking boolean,
  "pendingDependencies" integer
  )
  ) j
  JOIN pgboss.queue q ON q.name = 'process-event'
  ON CONFLICT DO NOTHING
`;

/** Whitespace aside: pg-boss's indentation is not part of what the intake relies on. */
const normalized = (statement: string) => statement.replace(/\s+/g, ' ').trim();

let database: Database;
let jobs: JobQueue;

beforeAll(async () => {
  database = await createTestDatabase();
  jobs = new JobQueue(database.pool, defaultEngineOptions, pino({ level: 'silent' }));
  await jobs.start();
});

afterAll(async () => {
  await jobs?.stop();
  await database?.close();
});

describe("pg-boss's insert, as the intake runs it", () => {
  it('is the statement this version of pg-boss was checked with', async () => {
    const captured = await jobs.sendManyStatement([{ id: '11111111-1111-4111-8111-111111111111', job: { eventId: 'evt_1', attempt: 0 } }]);
    expect(
      normalized(captured!.statement),
      "pg-boss's insert statement changed (an upgrade?): store_events_once runs it inside the intake's statement; see docs/decisions/0034 before updating this test",
    ).toBe(normalized(pgBossInsertStatement));
  });

  it('takes the jobs as its one parameter, each with the id given and its event in its data', async () => {
    const captured = await jobs.sendManyStatement([
      { id: '11111111-1111-4111-8111-111111111111', job: { eventId: 'evt_1', attempt: 0 } },
      { id: '22222222-2222-4222-8222-222222222222', job: { eventId: 'evt_2', attempt: 1, arm: true } },
    ]);
    expect(JSON.parse(captured!.jobs)).toEqual([
      { id: '11111111-1111-4111-8111-111111111111', data: { eventId: 'evt_1', attempt: 0 }, heartbeatSeconds: defaultEngineOptions.heartbeatSeconds },
      { id: '22222222-2222-4222-8222-222222222222', data: { eventId: 'evt_2', attempt: 1, arm: true }, heartbeatSeconds: defaultEngineOptions.heartbeatSeconds },
    ]);
  });

  it('is not built for no jobs', async () => {
    expect(await jobs.sendManyStatement([])).toBeNull();
  });
});

describe('the intake\'s statement with its jobs', () => {
  const owner = { userId: `user-${randomUUID()}`, flowId: `flow-${randomUUID()}` };
  beforeAll(async () => {
    await insertOwnerWithFlow(database, { ...owner, name: 'Jobs Owner' });
  });

  /** Stores `events` as the intake does, each with a job, and returns the events that now have a job. */
  async function storeWithJobs(events: NewEvent[]): Promise<{ stored: Set<string>; withJob: string[] }> {
    const statement = await jobs.sendManyStatement(events.map((event) => ({ id: randomUUID(), job: { eventId: event.id, attempt: 1 } })));
    const stored = await insertEventsOnce(database.pool, events, statement);
    const { rows } = await database.pool.query<{ event_id: string }>("SELECT data ->> 'eventId' AS event_id FROM pgboss.job WHERE name = 'process-event' AND data ->> 'eventId' = ANY($1)", [
      events.map((event) => event.id),
    ]);
    return { stored, withJob: rows.map((row) => row.event_id).sort() };
  }

  it('gives every event of a batch stored whole its one job', async () => {
    const events = Array.from({ length: 5 }, () => genericCartEvent(owner, { externalEventId: `evt_${randomUUID()}` }));
    const { stored, withJob } = await storeWithJobs(events);
    expect(stored).toEqual(new Set(events.map((event) => event.id)));
    expect(withJob).toEqual(events.map((event) => event.id).sort());
  });

  it('gives no job to an event not stored: a repeat of a stored one, or of one earlier in the batch', async () => {
    const earlier = genericCartEvent(owner, { externalEventId: `evt_${randomUUID()}` });
    await insertEventsOnce(database.pool, [earlier]);
    const fresh = genericCartEvent(owner, { externalEventId: `evt_${randomUUID()}` });
    const repeatOfStored = genericCartEvent(owner, { externalEventId: earlier.externalEventId });
    const repeatInBatch = genericCartEvent(owner, { externalEventId: fresh.externalEventId });
    const { stored, withJob } = await storeWithJobs([fresh, repeatOfStored, repeatInBatch]);
    // One of the two that share an id is stored (which one, the batch's order decides), the repeat of the stored event not.
    expect(stored.size).toBe(1);
    expect([fresh.id, repeatInBatch.id]).toContain([...stored][0]);
    expect(withJob).toEqual([...stored]);
  });
});
