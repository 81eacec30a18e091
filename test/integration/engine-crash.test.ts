import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerWithFlows, postEvent, sampleEvent, startEngineScenario, waitForEvents, workerEnvOf, type EngineScenario, allStandIns } from '../support/engine-scenario.ts';
import { startWorkerProcess, type WorkerProcess } from '../fakes/engine-worker-process.ts';
import { inputText } from '../fakes/fake-openai.ts';
import type { RecordedRequest } from '../fakes/fake-server.ts';

/**
 * Effectively once, even after `kill -9`: a worker process (ROLE=worker, as production
 * runs it) is killed mid-load while OpenAI answers slowly, and a new one takes over. At
 * the fakes, per event, OpenAI is paid at most once more than needed for each text only
 * if that call was in flight at the kill, the profile is written at most once more only
 * if that write was in flight, every event ends delivered, and the Klaviyo event keeps
 * its unique_id. A call was in flight when the fake had received it before the kill and
 * its result was not stored when the worker died (an answer may have been on its way).
 */
const EVENTS = 60;
const credentialsKey = randomBytes(32).toString('base64');
const assistants = [
  { name: 'Subject Line', klaviyo_property: 'subject_line1', prompt_template: 'Write a subject line for {first_name} about {description}' },
  { name: 'Body', klaviyo_property: 'body_copy', prompt_template: 'Write an email for {first_name} about {name}' },
];

let scenario: EngineScenario;
const workers: WorkerProcess[] = [];
beforeAll(async () => {
  scenario = await startEngineScenario({ standIns: allStandIns, env: { ROLE: 'web', CREDENTIALS_KEY: credentialsKey }, openai: { latencyMs: 1_000 }, klaviyo: { latencyMs: 150 } });
});
afterAll(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.kill('SIGKILL')));
  await scenario?.close();
});

async function startWorker(): Promise<WorkerProcess> {
  const worker = await startWorkerProcess(workerEnvOf(scenario, credentialsKey));
  workers.push(worker);
  return worker;
}

const db = () => scenario.testApp.database.pool;
const shopperName = (index: number) => `Crash${index}`;
const emailOf = (index: number) => `crash-${index}-${randomBytes(2).toString('hex')}@shop.example`;

describe('a worker killed with SIGKILL mid-load', () => {
  it('is followed by one that delivers every event, without paying for a stored text again or writing more than the jobs in flight', async () => {
    const owner = await ownerWithFlows(scenario, { post_purchase: { assistants, klaviyoEventName: 'AI content ready' } });
    const emails = Array.from({ length: EVENTS }, (_, index) => emailOf(index));
    const first = await startWorker();

    // A steady stream of events, so that the kill finds some delivered, some generating, some not started.
    const ids: string[] = [];
    const posting = (async () => {
      for (const [index, email] of emails.entries()) {
        const response = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email, first_name: shopperName(index) }));
        expect(response.status, response.text).toBe(202);
        ids.push(response.json.eventId as string);
        await new Promise((resolve) => setTimeout(resolve, 80));
      }
    })();
    // The kill comes once some events are delivered while others' texts are being written
    // (a call at the fake unanswered): on a busy machine the first deliveries can lag the
    // calls, so waiting for a count of deliveries alone could find none in flight.
    await expect
      .poll(
        async () => {
          const delivered = (await db().query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE flow_id = $1 AND status = 'delivered'`, [owner.flows.post_purchase.id])).rows[0]!.n;
          const writing = scenario.openai.responsesRequests().filter((request) => request.answeredAt === null).length;
          return delivered >= 3 && writing > 0;
        },
        { timeout: 30_000, interval: 25 },
      )
      .toBe(true);
    // Counted at the kill: the fake answers a dead worker's calls too, a second later, and
    // this test goes on posting for a few seconds more before it looks.
    const generatingAtKill = scenario.openai.responsesRequests().filter((request) => request.answeredAt === null).length;
    expect(await first.kill('SIGKILL')).toBe('SIGKILL');
    // What the dead worker had stored: the texts and the profile writes it recorded.
    const storedTexts = new Set(
      (await db().query<{ key: string }>(`SELECT event_id || ' ' || klaviyo_property AS key FROM event_generations WHERE status = 'succeeded'`)).rows.map((row) => row.key),
    );
    const recordedWrites = new Set((await db().query<{ event_id: string }>('SELECT event_id FROM event_deliveries WHERE profile_written_at IS NOT NULL')).rows.map((row) => row.event_id));
    await posting;

    // Everything the fakes received until the second worker starts came from the first.
    const restartedAt = Date.now();
    const sentBeforeKill = (request: RecordedRequest) => request.receivedAt <= restartedAt;
    const openaiBeforeKill = scenario.openai.responsesRequests().filter(sentBeforeKill);
    const writesBeforeKill = scenario.klaviyo.requests.filter((request) => request.path === '/api/profile-import' && sentBeforeKill(request));
    expect(generatingAtKill, 'the kill should find texts being generated').toBeGreaterThan(0);
    await startWorker();
    const settled = await waitForEvents(db(), ids, { timeoutMs: 120_000 });
    expect([...settled.values()].filter((row) => row.status !== 'delivered')).toEqual([]);

    const promptsOf = (requests: RecordedRequest[], index: number, assistant: number) =>
      requests.filter((request) => {
        const input = inputText((request.body as { input: unknown }).input);
        // One call may carry both assistants' tasks (one model, Structured Outputs).
        return input.includes(assistants[assistant]!.prompt_template) && input.includes(`"first_name": "${shopperName(index)}"`);
      }).length;
    const writesOf = (requests: RecordedRequest[], email: string) => requests.filter((request) => (request.body as any).data.attributes.email === email).length;
    const allWrites = scenario.klaviyo.requests.filter((request) => request.path === '/api/profile-import');
    let repeatedTexts = 0;
    let repeatedWrites = 0;
    let inFlightTexts = 0;
    let inFlightWrites = 0;
    for (const [index, email] of emails.entries()) {
      const eventId = ids[index]!;
      for (const assistant of [0, 1]) {
        const calls = promptsOf(scenario.openai.responsesRequests(), index, assistant);
        const inFlight = promptsOf(openaiBeforeKill, index, assistant) > 0 && !storedTexts.has(`${eventId} ${assistants[assistant]!.klaviyo_property}`) ? 1 : 0;
        expect(calls, `${email} ${assistants[assistant]!.name}`).toBeGreaterThanOrEqual(1);
        expect(calls, `${email} ${assistants[assistant]!.name}`).toBeLessThanOrEqual(1 + inFlight);
        repeatedTexts += calls - 1;
        inFlightTexts += inFlight;
      }
      const writes = writesOf(allWrites, email);
      const writeInFlight = writesOf(writesBeforeKill, email) > 0 && !recordedWrites.has(eventId) ? 1 : 0;
      expect(writes, email).toBeGreaterThanOrEqual(1);
      expect(writes, email).toBeLessThanOrEqual(1 + writeInFlight);
      repeatedWrites += writes - 1;
      inFlightWrites += writeInFlight;
      expect(Object.keys(scenario.klaviyo.profiles.get(email)?.properties ?? {}).sort(), email).toEqual(['body_copy', 'subject_line1']);

      // Klaviyo keeps one event per delivery: every send of it carried the same unique_id.
      const sends = scenario.klaviyo.requests.filter((request) => request.path === '/api/events' && (request.body as any).data.attributes.profile.data.attributes.email === email);
      expect(new Set(sends.map((request) => (request.body as any).data.attributes.unique_id)), email).toEqual(new Set([eventId]));
      expect(scenario.klaviyo.events.filter((event) => event.email === email), email).toHaveLength(1);
    }
    expect(repeatedTexts).toBeLessThanOrEqual(inFlightTexts);
    expect(repeatedWrites).toBeLessThanOrEqual(inFlightWrites);
  }, 240_000);
});
