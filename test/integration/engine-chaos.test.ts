import { describe, expect, it } from 'vitest';
import { ownerWithFlows, postEvent, sampleEvent, settleOnTheAppClock, useEngineScenario, allStandIns } from '../support/engine-scenario.ts';
import { inputText } from '../fakes/fake-openai.ts';
import { seededFaults, type RecordedRequest } from '../fakes/fake-server.ts';

/**
 * OpenAI and Klaviyo fail 30 % of calls, chosen by a seeded hash of what each call is
 * about and how often it was made, so the same calls fail in every run whatever the
 * order. With the production number of tries (8 per step) every event still ends
 * delivered, each profile write applied exactly once and each text paid for once. Time is
 * the app's manual clock, moved on while the sweep sends the due tries: nothing waits.
 */
const EVENTS = 100;
const FAILURE_RATE = 0.3;
const SEED = 'flowsmith-faults-1';

const scenario = useEngineScenario({
  standIns: allStandIns,
  engine: { retry: { tries: 8, delaysMs: [1_000, 2_000, 4_000], jitter: 0.2, maxInPlaceWaitMs: 1_000, maxRetryAfterMs: 60 * 60_000 } },
});

const emailOf = (request: RecordedRequest): string | null => {
  const body = request.body as any;
  return body?.data?.attributes?.email ?? body?.data?.attributes?.profile?.data?.attributes?.email ?? null;
};

describe('services failing 30 % of calls', () => {
  it(`delivers all ${EVENTS} events, each profile write applied once and each text generated once`, async () => {
    const owner = await ownerWithFlows(scenario, { abandoned_cart: { klaviyoEventName: 'AI content ready' } });
    const openaiFaults = seededFaults({
      seed: SEED,
      rate: FAILURE_RATE,
      keyOf: (request) => (request.path === '/v1/responses' ? inputText((request.body as { input: unknown }).input) : null),
      failure: { kind: 'status' as const, status: 500 },
    });
    const klaviyoFaults = seededFaults({
      seed: SEED,
      rate: FAILURE_RATE,
      keyOf: (request) => (request.path === '/api/profile-import' || request.path === '/api/events' ? `${request.path} ${emailOf(request)}` : null),
      failure: { kind: 'status' as const, status: 503 },
    });
    scenario.openai.failWhen(openaiFaults.rule);
    scenario.klaviyo.failWhen(klaviyoFaults.rule);

    const emails = Array.from({ length: EVENTS }, (_, index) => `chaos-${index}@shop.example`);
    const ids: string[] = [];
    for (const [index, email] of emails.entries()) {
      // Every prompt of every event differs, so each text is a key of its own.
      const event = sampleEvent('abandoned_cart', { email, first_name: `Shopper${index}` }) as { properties: { products: Array<{ description: string }> } };
      event.properties.products[0]!.description = `A light trail running shoe, pair ${index}`;
      const response = await postEvent(scenario.testApp.baseUrl, owner.flows.abandoned_cart.webhookPath, event);
      expect(response.status, response.text).toBe(202);
      ids.push(response.json.eventId as string);
    }
    const settled = await settleOnTheAppClock(scenario, ids, { stepMs: 5_000, timeoutMs: 120_000 });
    expect([...settled.values()].filter((row) => row.status !== 'delivered')).toEqual([]);

    // The faults did strike, often enough to matter.
    const injected = (faults: typeof openaiFaults) => [...faults.injected.values()].reduce((sum, count) => sum + count, 0);
    expect(injected(openaiFaults)).toBeGreaterThan(EVENTS * 0.3);
    expect(injected(klaviyoFaults)).toBeGreaterThan(EVENTS * 0.3);

    for (const email of emails) {
      const key = `/api/profile-import ${email}`;
      expect((klaviyoFaults.calls.get(key) ?? 0) - (klaviyoFaults.injected.get(key) ?? 0), email).toBe(1);
      expect(Object.keys(scenario.klaviyo.profiles.get(email)?.properties ?? {}).sort(), email).toEqual(['body_copy', 'subject_line1']);
      expect(scenario.klaviyo.events.filter((event) => event.email === email), email).toHaveLength(1);
    }
    for (const [prompt, calls] of openaiFaults.calls) expect(calls - (openaiFaults.injected.get(prompt) ?? 0), prompt.slice(0, 60)).toBe(1);
    // One call per event writes both assistants' texts (one model): one distinct prompt per event.
    expect(openaiFaults.calls.size).toBe(EVENTS);
  }, 180_000);
});
