import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { allStandIns, ownerWithFlows, postEvent, sampleEvent, startEngineScenario, waitForEvents, type EngineScenario } from '../support/engine-scenario.ts';

/**
 * An event's job meets a database that cannot answer for a few seconds: every statement
 * of the app's pool fails as pg-pool fails it when no connection frees up in time (a
 * pool exhausted by overload). The job runs again once the database answers, without
 * using up a try: with no retries left at all (retryLimit 0), the event is still
 * delivered, where it used to end "Processing stopped unexpectedly" or be left generating.
 */
const OUTAGE_MS = 3_000;
let scenario: EngineScenario;

beforeAll(async () => {
  scenario = await startEngineScenario({ standIns: allStandIns, engine: { retryLimit: 0 }, openai: { latencyMs: 1_000 } });
});
afterAll(async () => {
  await scenario?.close();
});

/** Makes every statement and connection of `pool` fail as an exhausted pool's do, until the returned function is called. */
function exhaust(pool: pg.Pool): () => void {
  const { query, connect } = pool;
  const timedOut = () => Promise.reject(new Error('timeout exceeded when trying to connect'));
  Object.assign(pool, { query: timedOut, connect: timedOut });
  return () => Object.assign(pool, { query, connect });
}

it('runs a job again once the database answers, without using up a try, and delivers the event', async () => {
  const owner = await ownerWithFlows(scenario, { post_purchase: { klaviyoEventName: 'AI content ready' } });
  const posted = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: 'outage@shop.example', first_name: 'Ola' }));
  expect(posted.status, posted.text).toBe(202);
  const eventId = posted.json.eventId as string;

  // While OpenAI writes the event's texts (a second), its job's next statements will fail.
  const intakePool = scenario.testApp.database.intakePool;
  await expect
    .poll(async () => (await intakePool.query<{ status: string }>('SELECT status FROM events WHERE id = $1', [eventId])).rows[0]?.status, { timeout: 15_000, interval: 20 })
    .toBe('generating');
  const restore = exhaust(scenario.testApp.database.pool);
  await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
  restore();

  const settled = (await waitForEvents(intakePool, [eventId], { timeoutMs: 20_000 })).get(eventId);
  expect(settled).toMatchObject({ status: 'delivered', error: null });
  // Its texts reached the shopper's profile.
  expect(Object.keys(scenario.klaviyo.profiles.get('outage@shop.example')?.properties ?? {}).length).toBeGreaterThan(0);
});
