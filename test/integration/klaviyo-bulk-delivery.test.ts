import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { klaviyoAccountLimits } from '../../src/server/engine/delivery/klaviyo-rate-limiter.ts';
import { ownerWithFlows, postEvent, settleWithClockRunning, sampleEvent, useEngineScenario, validKlaviyoKey, waitForEvents, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * Under a backlog, deliveries go to Klaviyo in bulk import jobs (docs/decisions/0020-klaviyo-batches.md).
 * Here the account may make 2 single profile writes a minute, so from the third event in
 * a row deliveries queue for a batch.
 */
let owner: Owner;
const scenario = useEngineScenario({
  standIns: allStandIns,
  engine: { klaviyoLimits: { ...klaviyoAccountLimits, 'profile-import': [{ limit: 2, windowMs: 60_000 }] } },
});
beforeAll(async () => {
  const oneAssistant = [{ name: 'Subject Line', klaviyo_property: 'subject_line1', prompt_template: 'Write a subject line for {first_name} about {name}' }];
  owner = await ownerWithFlows(scenario, { abandoned_cart: { assistants: oneAssistant, waitMinutes: 0 }, post_purchase: { assistants: oneAssistant, klaviyoEventName: 'AI content ready' } });
});
beforeEach(() => {
  scenario.klaviyo.clearFailures();
  // Past the single-write window of the test before.
  scenario.testApp.clock.advance(120_000);
});

const db = () => scenario.testApp.database.pool;
const requestsTo = (path: string) => scenario.klaviyo.requests.filter((request) => request.method === 'POST' && request.path === path);

/** Every write Klaviyo accepted for `email`, single or in a bulk job. */
function writesOf(email: string): number {
  let writes = 0;
  for (const request of scenario.klaviyo.requests) {
    if (request.method !== 'POST' || request.status === null || request.status >= 300) continue;
    const body = request.body as any;
    if (request.path === '/api/profile-import' && body.data.attributes.email === email) writes += 1;
    if (request.path === '/api/profile-bulk-import-jobs') writes += body.data.attributes.profiles.data.filter((row: any) => row.attributes.email === email).length;
  }
  return writes;
}

async function sendOrders(count: number, prefix: string, beforeSending: (emails: string[]) => void = () => undefined): Promise<{ emails: string[]; ids: string[] }> {
  const emails = Array.from({ length: count }, (_, index) => uniqueEmail(`${prefix}-${index}`));
  beforeSending(emails);
  const ids: string[] = [];
  for (const email of emails) {
    const posted = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email }));
    expect(posted.status, posted.text).toBe(202);
    ids.push(posted.json.eventId as string);
  }
  return { emails, ids };
}

describe('bulk delivery under a backlog', () => {
  it('writes single profiles while light, then one import job for the backlog; every event delivered once, its Klaviyo event sent once', async () => {
    const singleBefore = requestsTo('/api/profile-import').length;
    const jobsBefore = requestsTo('/api/profile-bulk-import-jobs').length;
    const { emails, ids } = await sendOrders(8, 'backlog');
    const settled = await waitForEvents(db(), ids, { timeoutMs: 30_000 });
    expect([...settled.values()].map((row) => row.status)).toEqual(ids.map(() => 'delivered'));
    expect(requestsTo('/api/profile-import').length - singleBefore).toBe(2);
    const jobs = requestsTo('/api/profile-bulk-import-jobs').length - jobsBefore;
    expect(jobs).toBeGreaterThanOrEqual(1);
    expect(jobs).toBeLessThanOrEqual(3);
    for (const email of emails) {
      expect(writesOf(email), email).toBe(1);
      expect(scenario.klaviyo.profiles.get(email)?.properties.subject_line1, email).toContain('Write a subject line');
      expect(scenario.klaviyo.events.filter((event) => event.email === email), email).toHaveLength(1);
    }
    // Each job's outcome was read from Klaviyo before the events were called delivered.
    expect(scenario.klaviyo.requests.some((request) => request.method === 'GET' && /^\/api\/profile-bulk-import-jobs\/[^/]+$/.test(request.path))).toBe(true);
    const { rows } = await db().query<{ delivered: string }>(`SELECT count(*) AS delivered FROM event_deliveries WHERE event_id = ANY($1) AND status = 'delivered'`, [ids]);
    expect(Number(rows[0]!.delivered)).toBe(ids.length);
  });

  it('fails only the rows Klaviyo refused, with Klaviyo’s reason, and delivers the rest', async () => {
    // The first two go singly and are waited for, so the refused one is surely among the
    // batched: sent together, the jobs may run in any order on a busy machine, and a
    // refused address written singly would be delivered. Said before the events are sent:
    // a job may be posted while the last ones are still arriving.
    const single = await sendOrders(2, 'partly-single');
    const singles = await waitForEvents(db(), single.ids, { timeoutMs: 30_000 });
    for (const id of single.ids) expect(singles.get(id)!.status).toBe('delivered');
    const { emails, ids } = await sendOrders(4, 'partly', (emails) => scenario.klaviyo.refuseInBulk(emails[2]!, 'The email address is not valid.'));
    const settled = await waitForEvents(db(), ids, { timeoutMs: 30_000 });
    expect(settled.get(ids[2]!)).toMatchObject({ status: 'failed', error: 'Klaviyo: The email address is not valid.' });
    for (const [index, id] of ids.entries()) if (index !== 2) expect(settled.get(id)!.status, emails[index]).toBe('delivered');
    expect(scenario.klaviyo.profiles.get(emails[2]!)).toBeUndefined();
    const detail = await owner.client.call(endpoints.events.detail, { params: { eventId: ids[2] } });
    expect(detail.json.event.deliveries[0]).toMatchObject({ status: 'failed', error: 'Klaviyo: The email address is not valid.' });
  });

  it('waits out a 429 on job creation and posts the job again, delivering each event once', async () => {
    const throttledBefore = scenario.klaviyo.throttledCount;
    scenario.klaviyo.failNext({ kind: 'status', status: 429, retryAfterSeconds: 1, on: 'profile-bulk-import-jobs' });
    const { emails, ids } = await sendOrders(5, 'throttled');
    const settled = await waitForEvents(db(), ids, { timeoutMs: 30_000 });
    expect([...settled.values()].every((row) => row.status === 'delivered')).toBe(true);
    expect(scenario.klaviyo.throttledCount).toBe(throttledBefore + 1);
    for (const email of emails) expect(writesOf(email), email).toBe(1);
  });

  it('sends the deliveries its jobs queued before a stopping worker goes, instead of leaving them to the next worker', async () => {
    const background = scenario.testApp.app.background;
    const { emails, ids } = await sendOrders(5, 'stopping');
    await expect
      .poll(async () => Number((await db().query(`SELECT count(*) FROM event_deliveries WHERE event_id = ANY($1) AND batched_at IS NOT NULL`, [ids])).rows[0].count), {
        timeout: 15_000,
        interval: 10,
      })
      .toBeGreaterThanOrEqual(3);
    try {
      await background.stop();
      const { rows } = await db().query<{ status: string }>('SELECT status FROM events WHERE id = ANY($1)', [ids]);
      expect(rows.map((row) => row.status)).toEqual(ids.map(() => 'delivered'));
      for (const email of emails) expect(writesOf(email), email).toBe(1);
    } finally {
      await background.start();
    }
  });

  it('takes up a batch whose worker stopped mid-job, from where it got to, without delivering anything twice', async () => {
    const engine = scenario.testApp.app.engine;
    // The job's status never comes: the worker is stopped while it waits for it.
    scenario.klaviyo.failNext({ kind: 'hang', on: 'profile-bulk-import-job' });
    const { emails, ids } = await sendOrders(5, 'resumed');
    await expect
      .poll(async () => Number((await db().query(`SELECT count(*) FROM klaviyo_batches WHERE status = 'importing' AND job_id IS NOT NULL`)).rows[0].count), { timeout: 15_000 })
      .toBeGreaterThan(0);
    const stalled = (await db().query<{ id: string; job_id: string }>(`SELECT id, job_id FROM klaviyo_batches WHERE status = 'importing' AND job_id IS NOT NULL`)).rows[0]!;
    await scenario.testApp.app.background.stop();
    await scenario.testApp.app.background.start();
    // The stopped worker's lease runs out; the batch is taken up and the same job followed.
    scenario.testApp.clock.advance(61_000);
    await engine.runBatches();
    const settled = await waitForEvents(db(), ids, { timeoutMs: 30_000 });
    expect([...settled.values()].every((row) => row.status === 'delivered')).toBe(true);
    // The stalled batch was finished with the job it had posted, not a second one.
    const finished = (await db().query<{ status: string; job_id: string }>('SELECT status, job_id FROM klaviyo_batches WHERE id = $1', [stalled.id])).rows[0]!;
    expect(finished).toEqual({ status: 'done', job_id: stalled.job_id });
    for (const email of emails) {
      expect(writesOf(email), email).toBe(1);
      expect(scenario.klaviyo.events.filter((event) => event.email === email), email).toHaveLength(1);
    }
  });
  it('finishes the events of a batch whose deliveries were marked delivered when the next write failed, instead of leaving them delivering for good', async () => {
    // The database refuses to move the batch's events on (as a lost connection or a crash
    // between the two writes would), once their deliveries are marked delivered.
    await db().query(`CREATE FUNCTION refuse_batched_delivered() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM event_deliveries WHERE event_id = NEW.id AND batched_at IS NOT NULL AND status = 'delivered') THEN
          RAISE EXCEPTION 'the database went away';
        END IF;
        RETURN NEW;
      END $$`);
    await db().query(`CREATE TRIGGER refuse_batched_delivered BEFORE UPDATE OF status ON events FOR EACH ROW WHEN (NEW.status = 'delivered') EXECUTE FUNCTION refuse_batched_delivered()`);
    let refusing = true;
    try {
      const { ids } = await sendOrders(5, 'half-finished');
      await expect
        .poll(async () => Number((await db().query(`SELECT count(*) FROM klaviyo_batches WHERE failed_tries > 0 AND id IN (SELECT batch_id FROM event_deliveries WHERE event_id = ANY($1))`, [ids])).rows[0].count), {
          timeout: 15_000,
        })
        .toBeGreaterThan(0);
      await db().query('DROP TRIGGER refuse_batched_delivered ON events');
      refusing = false;
      const settled = await settleWithClockRunning(scenario, ids);
      expect([...settled.values()].map((row) => row.status)).toEqual(ids.map(() => 'delivered'));
    } finally {
      if (refusing) await db().query('DROP TRIGGER refuse_batched_delivered ON events');
      await db().query('DROP FUNCTION refuse_batched_delivered()');
    }
  });
  it('moves on the events of a batch left half-finished before its last writes were one transaction', async () => {
    const { ids } = await sendOrders(5, 'left-behind');
    await waitForEvents(db(), ids, { timeoutMs: 30_000 });
    // As such a batch was left: its deliveries delivered, their events still delivering, the batch taken up again after its lease.
    const { rows } = await db().query<{ batch_id: string; event_id: string }>(`SELECT batch_id, event_id FROM event_deliveries WHERE event_id = ANY($1) AND batch_id IS NOT NULL`, [ids]);
    expect(rows.length).toBeGreaterThan(0);
    const leftBehind = rows.map((row) => row.event_id);
    await db().query(`UPDATE events SET status = 'delivering', finished_at = NULL WHERE id = ANY($1)`, [leftBehind]);
    // Their deliveries may have gone in more than one batch: each is taken up again.
    const batches = [...new Set(rows.map((row) => row.batch_id))];
    await db().query(`UPDATE klaviyo_batches SET status = 'sending_events', lease_until = now() - interval '1 minute' WHERE id = ANY($1)`, [batches]);
    scenario.testApp.clock.advance(61_000);
    await scenario.testApp.app.engine.runBatches();
    const settled = await waitForEvents(db(), leftBehind);
    expect([...settled.values()].map((row) => row.status)).toEqual(leftBehind.map(() => 'delivered'));
  });
});

describe('bulk delivery when Klaviyo refuses, cancels or loses a job', () => {
  /** Successful single profile writes of `email` (a bulk job's rows are not counted). */
  const singleWritesOf = (email: string) =>
    scenario.klaviyo.requests.filter(
      (request) => request.method === 'POST' && request.path === '/api/profile-import' && request.status !== null && request.status < 300 && (request.body as any).data.attributes.email === email,
    ).length;

  async function expectDeliveredOnce(emails: string[], ids: string[]) {
    const settled = await settleWithClockRunning(scenario, ids);
    expect([...settled.values()].map((row) => `${row.status} ${row.error ?? ''}`.trim())).toEqual(ids.map(() => 'delivered'));
    for (const email of emails) {
      expect(scenario.klaviyo.profiles.get(email)?.properties.subject_line1, email).toContain('Write a subject line');
      expect(scenario.klaviyo.events.filter((event) => event.email === email), email).toHaveLength(1);
    }
  }

  it('writes the profiles singly when the key may not create import jobs (403: no Lists permission), instead of taking the batch up again forever', async () => {
    scenario.klaviyo.setScopes(validKlaviyoKey, ['accounts:read', 'profiles:read', 'profiles:write', 'events:write']);
    try {
      const jobsBefore = requestsTo('/api/profile-bulk-import-jobs').length;
      const { emails, ids } = await sendOrders(5, 'no-lists');
      // The app's clock stands still until the batch has been tried: two deliveries take the
      // minute's two single writes, the rest queue for a batch. With the clock running, the
      // window opened again every 100 ms, and on a busy run each delivery found a free slot,
      // no batch was formed and nothing was refused.
      await expect.poll(() => requestsTo('/api/profile-bulk-import-jobs').length - jobsBefore, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
      await expectDeliveredOnce(emails, ids);
      for (const email of emails) expect(singleWritesOf(email), email).toBe(1);
      const refusedJobs = requestsTo('/api/profile-bulk-import-jobs').slice(jobsBefore);
      expect(refusedJobs.length).toBeGreaterThanOrEqual(1);
      expect(refusedJobs.every((request) => request.status === 403)).toBe(true);
    } finally {
      scenario.klaviyo.setScopes(validKlaviyoKey, null);
    }
  });

  it.each([
    ['cancelled the job', 'cancelled'],
    ['no longer has the job (404, expired)', 'expired'],
  ] as const)('writes the profiles singly when Klaviyo %s', async (_case, ending) => {
    scenario.klaviyo.endImportJobsAs(ending);
    try {
      const { emails, ids } = await sendOrders(5, ending);
      await expectDeliveredOnce(emails, ids);
      for (const email of emails) expect(singleWritesOf(email), email).toBe(1);
    } finally {
      scenario.klaviyo.endImportJobsAs('complete');
    }
  });

  it('stops following a job that has not ended by its deadline, and writes its profiles singly', async () => {
    const release = scenario.klaviyo.holdImportJobs();
    try {
      const { emails, ids } = await sendOrders(5, 'overdue');
      await expect
        .poll(async () => Number((await db().query(`SELECT count(*) FROM klaviyo_batches WHERE status = 'importing' AND job_id IS NOT NULL`)).rows[0].count), { timeout: 15_000 })
        .toBeGreaterThan(0);
      scenario.testApp.clock.advance(31 * 60_000);
      await expectDeliveredOnce(emails, ids);
    } finally {
      release();
    }
  });

  it('writes singly the rows of a job whose import errors do not say which rows they refused, instead of counting them delivered', async () => {
    scenario.klaviyo.nameRefusedRows(false);
    try {
      const { emails, ids } = await sendOrders(5, 'unnamed', (emails) => {
        // Refused in the job (the last ones are batched), written when sent on their own.
        scenario.klaviyo.refuseInBulk(emails[3]!, 'Invalid email address.');
        scenario.klaviyo.refuseInBulk(emails[4]!, 'Invalid email address.');
      });
      // Every event called delivered has its texts on its Klaviyo profile.
      await expectDeliveredOnce(emails, ids);
    } finally {
      scenario.klaviyo.nameRefusedRows(true);
    }
  });

  it('fails the batch’s events with the cause in words when Klaviyo refuses the key (401)', async () => {
    scenario.klaviyo.failWhen((request) => (request.path.startsWith('/api/profile-bulk-import-jobs') ? { kind: 'status', status: 401, detail: 'Incorrect authentication credentials.' } : undefined));
    const { ids } = await sendOrders(5, 'refused-key');
    const settled = await waitForEvents(db(), ids, { timeoutMs: 25_000 });
    const batched = [...settled.values()].filter((row) => row.status === 'failed');
    expect(batched.length).toBeGreaterThanOrEqual(3);
    for (const row of batched) expect(row.error).toMatch(/^Klaviyo: the API key was refused/);
    // Their batch is done, not waiting to be taken up again.
    const openBatches = async () =>
      Number((await db().query(`SELECT count(*) FROM klaviyo_batches b JOIN event_deliveries d ON d.batch_id = b.id WHERE d.event_id = ANY($1) AND b.status <> 'done'`, [ids])).rows[0].count);
    await expect.poll(openBatches, { timeout: 5_000 }).toBe(0);
  });
});
