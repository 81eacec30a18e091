import { beforeAll, describe, expect, it } from 'vitest';
import { klaviyoAccountLimits } from '../../src/server/engine/delivery/klaviyo-rate-limiter.ts';
import { defaultRetryPolicy } from '../../src/server/engine/spine/retry-policy.ts';
import { ownerWithFlows, postEvent, sampleEvent, useEngineScenario, waitForEvents, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { uniqueEmail } from '../support/accounts.ts';

/**
 * A bulk delivery batch that keeps failing for want of an answer (Klaviyo's 5xx) is tried
 * again on the retry policy's waits and, after its last try, its events fail with the
 * error: before, it was taken up again every lease, for ever. Two tries here, so the test
 * is short; the account may make 2 single profile writes a minute, so from the third event
 * in a row deliveries queue for a batch.
 */
let owner: Owner;
const scenario = useEngineScenario({
  standIns: allStandIns,
  engine: {
    klaviyoLimits: { ...klaviyoAccountLimits, 'profile-import': [{ limit: 2, windowMs: 60_000 }] },
    retry: { ...defaultRetryPolicy, tries: 2, delaysMs: [60_000], jitter: 0 },
  },
});
beforeAll(async () => {
  const oneAssistant = [{ name: 'Subject Line', klaviyo_property: 'subject_line1', prompt_template: 'Write a subject line for {first_name} about {name}' }];
  owner = await ownerWithFlows(scenario, { post_purchase: { assistants: oneAssistant } });
});

describe('a bulk delivery batch that keeps failing', () => {
  it('is tried again after the policy’s wait, then its events fail with the error instead of being taken up for ever', async () => {
    const db = scenario.testApp.database.pool;
    scenario.klaviyo.failWhen((request) => (request.method === 'POST' && request.path === '/api/profile-bulk-import-jobs' ? { kind: 'status', status: 503, detail: 'Service unavailable.' } : undefined));
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const posted = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: uniqueEmail(`failing-${index}`) }));
      expect(posted.status, posted.text).toBe(202);
      ids.push(posted.json.eventId as string);
    }
    const triesOf = async () => (await db.query<{ failed_tries: number; status: string }>(`SELECT failed_tries, status FROM klaviyo_batches ORDER BY created_at`)).rows;
    // Every event is delivered singly or sits in a batch whose first try failed (five quick
    // attempts), waiting for the policy's minute.
    const deliveredOrFailedOnce = async () =>
      Number(
        (
          await db.query(
            `SELECT count(*) FROM events e LEFT JOIN event_deliveries d ON d.event_id = e.id LEFT JOIN klaviyo_batches b ON b.id = d.batch_id
              WHERE e.id = ANY($1) AND (e.status = 'delivered' OR b.failed_tries = 1)`,
            [ids],
          )
        ).rows[0].count,
      );
    await expect.poll(deliveredOrFailedOnce, { timeout: 25_000 }).toBe(ids.length);
    const postsAfterFirstTry = scenario.klaviyo.counts['profile-bulk-import-jobs'];
    await scenario.testApp.app.engine.runBatches();
    expect(scenario.klaviyo.counts['profile-bulk-import-jobs'], 'not taken up before its wait').toBe(postsAfterFirstTry);
    scenario.testApp.clock.advance(61_000);
    // A failed try ends a dispatcher's round, so each batch takes a round of its own (the
    // engine's own dispatcher may be trying one meanwhile).
    const allDone = async () => {
      await scenario.testApp.app.engine.runBatches();
      return (await triesOf()).every((batch) => batch.status === 'done');
    };
    await expect.poll(allDone, { timeout: 25_000, interval: 200 }).toBe(true);
    const batches = await triesOf();
    expect(batches.map((batch) => `${batch.failed_tries} ${batch.status}`)).toEqual(batches.map(() => '2 done'));
    const settled = await waitForEvents(db, ids, { timeoutMs: 10_000 });
    const failed = [...settled.values()].filter((row) => row.status === 'failed');
    expect(failed.length).toBeGreaterThanOrEqual(3);
    for (const row of failed) expect(row.error).toMatch(/^Klaviyo: Service unavailable\. \(gave up after 2 tries; replay the event to try again\)$/);
    expect([...settled.values()].filter((row) => row.status !== 'failed').map((row) => row.status)).toEqual(ids.slice(0, ids.length - failed.length).map(() => 'delivered'));
  });
});
