import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ownerWithFlows, postEvent, sampleEvent, startEngineScenario, waitForEvents, workerEnvOf, type EngineScenario, allStandIns } from '../support/engine-scenario.ts';
import { startWorkerProcess, type WorkerProcess } from '../fakes/engine-worker-process.ts';
import { uniqueEmail } from '../support/accounts.ts';

/**
 * Separate worker processes (src/server/main.ts with ROLE=worker) on the test app's
 * database. The embedded database is reachable from other processes through its loopback
 * socket, so these run on PGlite as well as on the server.
 */
const credentialsKey = randomBytes(32).toString('base64');
let scenario: EngineScenario;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  scenario = await startEngineScenario({
    standIns: allStandIns,
    env: { ROLE: 'web', CREDENTIALS_KEY: credentialsKey },
    klaviyo: { enforceRateLimits: true },
  });
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.kill('SIGKILL')));
  scenario.openai.clearFailures();
});
afterAll(async () => {
  await scenario?.close();
});


async function startWorker(): Promise<WorkerProcess> {
  const worker = await startWorkerProcess(workerEnvOf(scenario, credentialsKey));
  workers.push(worker);
  return worker;
}

const db = () => scenario.testApp.database.pool;
const profileWrites = (email: string) =>
  scenario.klaviyo.requests.filter((request) => request.path === '/api/profile-import' && (request.body as any).data.attributes.email === email);

describe('worker processes', () => {
  it('hands the jobs of a killed worker to a restarted one, which delivers everything once without generating again', async () => {
    const owner = await ownerWithFlows(scenario, { abandoned_cart: { klaviyoEventName: 'AI content ready' } });
    // Half the events' "Body" answers hang, so the worker is killed in the middle of them;
    // their subject lines are generated and stored before the kill.
    const slow = Array.from({ length: 5 }, () => ({ email: uniqueEmail('slow'), first_name: `Slowpoke${randomBytes(3).toString('hex')}` }));
    const fast = Array.from({ length: 5 }, () => ({ email: uniqueEmail('fast'), first_name: 'Quick' }));
    const slowNames = new Set(slow.map((shopper) => shopper.first_name));
    let hanging = true;
    scenario.openai.failWhen((request) => {
      const input = String((request.body as any)?.input ?? '');
      return hanging && [...slowNames].some((name) => input.includes(name)) ? { kind: 'hang' } : undefined;
    });

    const first = await startWorker();
    const ids: string[] = [];
    for (const shopper of [...slow, ...fast]) {
      const response = await postEvent(scenario.testApp.baseUrl, owner.flows.abandoned_cart.webhookPath, sampleEvent('abandoned_cart', shopper));
      expect(response.status).toBe(202);
      ids.push(response.json.eventId);
    }
    const slowIds = ids.slice(0, slow.length);
    const fastIds = ids.slice(slow.length);
    await waitForEvents(db(), fastIds, { statuses: ['delivered'], timeoutMs: 20_000 });
    await waitForEvents(db(), slowIds, { statuses: ['generating'] });
    const hungCalls = () => scenario.openai.requests.filter((request) => [...slowNames].some((name) => String((request.body as any)?.input).includes(name)));
    await expect.poll(() => hungCalls().length, { timeout: 10_000 }).toBe(slow.length);
    const subjectCalls = () => scenario.openai.requests.filter((request) => String((request.body as any)?.input).startsWith('Write a subject line')).length;
    const subjectsBeforeKill = subjectCalls();

    expect(await first.kill('SIGKILL')).toBe('SIGKILL');
    hanging = false;
    const restarted = await startWorker();
    const settled = await waitForEvents(db(), ids, { timeoutMs: 40_000 });
    expect([...settled.values()].map((row) => row.status)).toEqual(Array(ids.length).fill('delivered'));
    // The restarted worker says which jobs it took over: the killed one could not.
    for (const id of slowIds) expect(restarted.output.some((line) => line.includes(id) && line.includes('event job taken up again')), id).toBe(true);

    for (const shopper of [...slow, ...fast]) {
      expect(profileWrites(shopper.email), shopper.email).toHaveLength(1);
      expect(scenario.klaviyo.events.filter((event) => event.email === shopper.email)).toHaveLength(1);
    }
    // The subject lines of the interrupted events were kept, not generated again.
    expect(subjectCalls()).toBe(subjectsBeforeKill);
  }, 90_000);

  it('stops gracefully on SIGTERM: jobs in flight finish, nothing is lost', async () => {
    const owner = await ownerWithFlows(scenario, { post_purchase: {} });
    scenario.openai.setLatency(1_500);
    try {
      const worker = await startWorker();
      const ids: string[] = [];
      for (let index = 0; index < 6; index += 1) {
        const response = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: uniqueEmail('graceful') }));
        ids.push(response.json.eventId);
      }
      await waitForEvents(db(), ids, { statuses: ['generating'] });
      expect(await worker.kill('SIGTERM')).toBe(0);
      const settled = await waitForEvents(db(), ids, { timeoutMs: 5_000 });
      expect([...settled.values()].every((row) => row.status === 'delivered')).toBe(true);
    } finally {
      scenario.openai.setLatency(0);
    }
  }, 60_000);

  it('keeps two workers together within Klaviyo’s per-account limits', async () => {
    const owner = await ownerWithFlows(scenario, { browser_abandonment: {} });
    const writesBefore = scenario.klaviyo.requests.length;
    // Every slot the two workers take, kept: the limiter prunes its own log as it goes.
    await db().query(`
      CREATE TABLE IF NOT EXISTS slots_taken (bucket_key text NOT NULL, used_at timestamptz NOT NULL);
      TRUNCATE slots_taken;
      CREATE OR REPLACE FUNCTION keep_slot_taken() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO slots_taken VALUES (NEW.bucket_key, NEW.used_at); RETURN NEW; END $$;
      CREATE OR REPLACE TRIGGER keep_slot_taken AFTER INSERT ON klaviyo_rate_uses FOR EACH ROW EXECUTE FUNCTION keep_slot_taken();
    `);
    await Promise.all([startWorker(), startWorker()]);
    const ids: string[] = [];
    const total = 200;
    for (let batch = 0; batch < total / 20; batch += 1) {
      const responses = await Promise.all(
        Array.from({ length: 20 }, () =>
          postEvent(scenario.testApp.baseUrl, owner.flows.browser_abandonment.webhookPath, sampleEvent('browser_abandonment', { email: uniqueEmail('burst') })),
        ),
      );
      for (const response of responses) {
        expect(response.status).toBe(202);
        ids.push(response.json.eventId);
      }
    }
    const settled = await waitForEvents(db(), ids, { timeoutMs: 60_000 });
    expect([...settled.values()].filter((row) => row.status !== 'delivered')).toEqual([]);

    // Single writes while the account's 75/s allowed, bulk import jobs for the rest: every
    // profile written once, and no second over either endpoint's limit.
    const requests = scenario.klaviyo.requests.slice(writesBefore).filter((request) => request.status !== null && request.status < 300);
    const singles = requests.filter((request) => request.path === '/api/profile-import');
    const jobs = requests.filter((request) => request.method === 'POST' && request.path === '/api/profile-bulk-import-jobs');
    const written = [
      ...singles.map((request) => (request.body as any).data.attributes.email as string),
      ...jobs.flatMap((request) => (request.body as any).data.attributes.profiles.data.map((row: any) => row.attributes.email as string)),
    ];
    expect(new Set(written).size).toBe(total);
    // A profile is written again only when the write before it went out but its result was
    // not stored, and the worker said so for that event: its job failed after the write, or
    // ran again because the database did not answer in time (decision 0059), or the write
    // itself got no answer in time and was tried again in place, or its worker's heartbeat
    // lapsed during its Klaviyo call and another worker took the job up while the first
    // still ran it (both then write; a takeover before that call writes once, decision 0061).
    // On a busy machine each happens; CI runs failed here on the last, which no worker said
    // until the one taking a job up again did.
    const triedAgainLine = /event job failed|service call failed|event job could not reach the database|retrying Klaviyo|event job taken up again/;
    const writesByEmail = new Map<string, number>();
    for (const email of written) writesByEmail.set(email, (writesByEmail.get(email) ?? 0) + 1);
    for (const [email, writes] of writesByEmail) {
      if (writes === 1) continue;
      const { rows } = await db().query<{ id: string }>('SELECT id FROM events WHERE shopper_email = $1', [email]);
      const linesOfEvent = workers.flatMap((worker) => worker.output.filter((line) => rows.some((row) => line.includes(row.id))));
      const triedAgain = linesOfEvent.some((line) => triedAgainLine.test(line));
      expect(triedAgain, `${email} written ${writes} times without a failed try in between; the workers said:\n${linesOfEvent.join('\n')}`).toBe(true);
    }
    const busiestSecond = (times: number[]) => {
      const sorted = [...times].sort((a, b) => a - b);
      let busiest = 0;
      for (let start = 0, end = 0; end < sorted.length; end += 1) {
        while (sorted[end]! - sorted[start]! >= 1_000) start += 1;
        busiest = Math.max(busiest, end - start + 1);
      }
      return busiest;
    };
    // The limit as the two workers kept it together: a slot for every request, and no more
    // slots in any second than Klaviyo allows. That is what the shared log guarantees. As
    // Klaviyo sees it, a request arrives a moment after its slot; on a machine running other
    // test files beside this one that moment was once longer than the windows' 250 ms margin
    // and the stand-in refused a write with a 429, which was then waited out (every profile
    // above was written). The stand-in's own windows are held in fakes.test.ts.
    const slotTimes = async (endpoint: string) =>
      (await db().query<{ at: Date }>('SELECT used_at AS at FROM slots_taken WHERE bucket_key LIKE $1 ORDER BY used_at', [`%:${endpoint}`])).rows.map((row) => row.at.getTime());
    const singleSlots = await slotTimes('profile-import');
    const jobSlots = await slotTimes('profile-bulk-import-jobs');
    expect(singleSlots.length).toBeGreaterThanOrEqual(singles.length);
    expect(jobSlots.length).toBeGreaterThanOrEqual(jobs.length);
    expect(busiestSecond(singleSlots)).toBeLessThanOrEqual(75);
    expect(busiestSecond(jobSlots)).toBeLessThanOrEqual(10);
  }, 120_000);
});
