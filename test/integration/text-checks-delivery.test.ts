import { describe, expect, it } from 'vitest';
import { textCheckOutcomeMessages } from '../../src/shared/text-checks/text-check-messages.ts';
import type { TextChecksRecord } from '../../src/shared/text-checks/text-check-schemas.ts';
import type { TextRulesInput } from '../../src/shared/flows/text-rules-schemas.ts';
import { ownerWithFlows, postEvent, sampleEvent, settleOnTheAppClock, useEngineScenario, waitForEvent, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * Every text is checked before it reaches a shopper's profile
 * (docs/decisions/0040-texts-checked-before-delivery.md). The stand-in OpenAI answers with
 * a text that breaks one rule, then (asked again, with the failure named) with a clean
 * one: the clean one is delivered, the event log says what failed. Twice wrong, the
 * owner's fallback text goes out, or nothing.
 */
const scenario = useEngineScenario({ standIns: allStandIns }, { clearFailures: true, advanceClockMs: 61_000 });
const db = () => scenario.testApp.database.pool;

const assistant = {
  name: 'Thank you',
  klaviyo_property: 'thank_you',
  prompt_template: 'Thank {first_name} for buying {products}',
  fallback_text: 'Thank you for your order, {first_name}. We hope you enjoy it.',
};
const clean = 'Thank you for your order, Sam. We hope the Trail Shoe and the Wool Socks serve you well on every walk.';

interface Generation {
  text: string | null;
  status: string;
  checks: TextChecksRecord | null;
}

async function ownerWithRules(rules: TextRulesInput = {}, fallback: string | null = assistant.fallback_text): Promise<Owner> {
  const owner = await ownerWithFlows(scenario, { post_purchase: {} });
  scenario.testApp.clock.advance(61_000);
  const saved = await owner.client.call(endpoints.flows.update, { params: { flowType: 'post_purchase' }, body: { isActive: true, klaviyoEventName: null, assistants: [{ ...assistant, fallback_text: fallback }], textRules: rules } });
  expect(saved.status, saved.text).toBe(200);
  scenario.testApp.clock.advance(61_000);
  return owner;
}

/** The stand-in writes `first` when asked the first time, `second` when asked again with the failures named. */
function answerWith(first: string, second: string = clean): void {
  scenario.openai.setResponder((body) => (JSON.stringify(body.input).includes('was refused before it reached the shopper') ? second : first));
}

async function send(owner: Owner, email: string, extra: Record<string, unknown> = {}): Promise<string> {
  const event = sampleEvent('post_purchase', { email });
  const response = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, { ...event, properties: { ...event.properties, ...extra } });
  expect(response.status, response.text).toBe(202);
  return response.json.eventId as string;
}

async function generationOf(owner: Owner, eventId: string): Promise<Generation> {
  const detail = await owner.client.call(endpoints.events.detail, { params: { eventId } });
  expect(detail.status).toBe(200);
  return detail.json.event.generations[0] as Generation;
}

const deliveredText = (email: string) => scenario.klaviyo.profiles.get(email)?.properties.thank_you;

describe('a text that fails a check', () => {
  const cases: Array<{ check: string; bad: string; extra?: Record<string, unknown>; setUp?: () => void }> = [
    { check: 'discount_codes', bad: 'Thank you, Sam! Take 20% off your next order with code THANKS20 at checkout.' },
    { check: 'amounts', bad: 'Thank you, Sam. Your Trail Shoe was a steal at $79.00, and it is yours.' },
    { check: 'links', bad: 'Thank you, Sam. See what else walkers love at https://rival-outdoors.example.com/sale today.' },
    { check: 'products', bad: 'Thank you, Sam. Your Trail Shoe pairs well with our Summit Down Parka for cold mornings.' },
    {
      check: 'language',
      bad: 'Vielen Dank für Ihre Bestellung, Sam. Wir hoffen, dass Ihnen die neuen Schuhe auf jedem Weg gute Dienste leisten und Sie viel Freude daran haben.',
      extra: { locale: 'en-US' },
    },
    { check: 'cut_off', bad: 'We are so glad you chose the Trail Shoe, and we hope that the' },
    { check: 'moderation', bad: 'Thank you for nothing, you idiot, now go away.', setUp: () => scenario.openai.flagTextsContaining('you idiot') },
  ];

  for (const testCase of cases) {
    it(`(${testCase.check}) is written again with the failure named, and only the clean text reaches Klaviyo`, async () => {
      const owner = await ownerWithRules();
      testCase.setUp?.();
      answerWith(testCase.bad);
      const email = uniqueEmail(`check-${testCase.check.replace('_', '-')}`);
      const eventId = await send(owner, email, testCase.extra);
      expect(await waitForEvent(db(), eventId)).toMatchObject({ status: 'delivered', error: null });
      expect(deliveredText(email)).toBe(clean);

      const generation = await generationOf(owner, eventId);
      expect(generation.text).toBe(clean);
      expect(generation.checks).toMatchObject({ stage: 'done', delivered: 'rewritten' });
      expect(generation.checks!.rejected).toHaveLength(1);
      expect(generation.checks!.rejected[0]!.text).toBe(testCase.bad);
      expect(generation.checks!.rejected[0]!.failures.map((failure) => failure.check)).toContain(testCase.check);
      // The second request named what was wrong, in the check's own words.
      const rewrite = scenario.openai.responsesRequests().find((request) => JSON.stringify(request.body).includes(JSON.stringify(testCase.bad).slice(1, 40)));
      expect(rewrite, 'the rewrite request quotes the refused text').toBeDefined();
      const reason = generation.checks!.rejected[0]!.failures.find((failure) => failure.check === testCase.check)!.reason;
      expect(JSON.stringify(rewrite!.body)).toContain(JSON.stringify(reason).slice(1, -1));
      // No profile write ever carried the refused text.
      const writes = scenario.klaviyo.requests.filter((request) => JSON.stringify(request.body ?? null).includes(email));
      expect(writes.length).toBeGreaterThan(0);
      for (const write of writes) expect(JSON.stringify(write.body)).not.toContain(JSON.stringify(testCase.bad).slice(1, 30));
    });
  }
});

describe('what goes out', () => {
  it('delivers a clean text unchanged, with every check passed, in one OpenAI call', async () => {
    const owner = await ownerWithRules();
    answerWith(clean, 'never asked');
    const email = uniqueEmail('check-clean');
    const before = scenario.openai.responsesRequests().length;
    const eventId = await send(owner, email, { locale: 'en' });
    expect(await waitForEvent(db(), eventId)).toMatchObject({ status: 'delivered' });
    expect(deliveredText(email)).toBe(clean);
    expect(scenario.openai.responsesRequests().length - before).toBe(1);
    const generation = await generationOf(owner, eventId);
    expect(generation.checks).toEqual({
      stage: 'done',
      rejected: [],
      delivered: 'written',
      verdicts: {
        amounts: 'passed',
        discount_codes: 'passed',
        links: 'passed',
        length: 'passed',
        cut_off: 'passed',
        banned_phrases: 'passed',
        products: 'passed',
        language: 'passed',
        moderation: 'passed',
      },
    });
  });

  it("sends the assistant's fallback text, filled in, when the second text fails too", async () => {
    const owner = await ownerWithRules({ bannedPhrases: ['cheap'] });
    answerWith('Thank you, Sam. Cheap shoes, cheap socks, great walks.', 'Thank you, Sam. Nothing cheap about these shoes.');
    const email = uniqueEmail('check-fallback');
    const eventId = await send(owner, email);
    expect(await waitForEvent(db(), eventId)).toMatchObject({ status: 'delivered' });
    expect(deliveredText(email)).toBe('Thank you for your order, Sam. We hope you enjoy it.');
    const generation = await generationOf(owner, eventId);
    expect(generation.checks).toMatchObject({ stage: 'done', delivered: 'fallback' });
    expect(generation.checks!.rejected.map((refused) => refused.failures[0]!.check)).toEqual(['banned_phrases', 'banned_phrases']);
  });

  it('sends nothing, and skips the event saying why, when the flow says so', async () => {
    const owner = await ownerWithRules({ discountCodes: ['WELCOME10'], onFailedChecks: 'nothing' });
    answerWith('Thank you, Sam. Use THANKS20 next time.', 'Thank you, Sam. Use SAVE30 next time.');
    const email = uniqueEmail('check-nothing');
    const eventId = await send(owner, email);
    expect(await waitForEvent(db(), eventId)).toMatchObject({ status: 'skipped', error: textCheckOutcomeMessages.nothingSent(['Thank you']) });
    expect(scenario.klaviyo.profiles.get(email)).toBeUndefined();
    const generation = await generationOf(owner, eventId);
    expect(generation.checks).toMatchObject({ stage: 'done', delivered: 'nothing' });
  });

  it('lets the codes the owner gave through, and no other', async () => {
    const owner = await ownerWithRules({ discountCodes: ['WELCOME10'], offersCoupon: true });
    const allowed = "Thank you, Sam. Use WELCOME10 or {% coupon_code 'THANKS' %} on your next order.";
    answerWith(allowed, 'never asked');
    const email = uniqueEmail('check-codes');
    expect(await waitForEvent(db(), await send(owner, email))).toMatchObject({ status: 'delivered' });
    expect(deliveredText(email)).toBe(allowed);
  });

  it('waits and tries again when moderation cannot be reached: no text goes out unchecked', async () => {
    const owner = await ownerWithRules();
    // A text moderation has not judged before: a verdict is kept by its text.
    const unjudged = 'Thank you for your order, Sam. Enjoy every step in your new Trail Shoe.';
    answerWith(unjudged, 'never asked');
    // Two failures: the test's retry policy gives a step three tries before the event fails for the owner to replay.
    scenario.openai.failNext({ kind: 'status', status: 503, on: 'moderations' }, { kind: 'status', status: 503, on: 'moderations' });
    const email = uniqueEmail('check-moderation-down');
    const eventId = await send(owner, email);
    const waiting = await waitForEvent(db(), eventId, { statuses: ['waiting', 'delivered', 'failed', 'skipped'] });
    if (waiting.status === 'waiting') expect(scenario.klaviyo.profiles.get(email)).toBeUndefined();
    const settled = (await settleOnTheAppClock(scenario, [eventId])).get(eventId);
    expect(settled, JSON.stringify(settled)).toMatchObject({ status: 'delivered' });
    expect(deliveredText(email)).toBe(unjudged);
    const generation = await generationOf(owner, eventId);
    expect(generation.checks).toMatchObject({ delivered: 'written' });
  });
});

describe('Preview', () => {
  it('writes again a text that fails, as the pipeline would, shows why, and delivers nothing', async () => {
    const owner = await ownerWithRules();
    // Written for the flow's sample event: John's order of Premium Wireless Headphones.
    const sampleClean = 'Thank you for your order, John. We hope you enjoy your new Premium Wireless Headphones.';
    answerWith('Thank you, John! Use code THANKS20 at checkout.', sampleClean);
    const profiles = scenario.klaviyo.profiles.size;
    const preview = await owner.client.call(endpoints.flows.preview, { params: { flowType: 'post_purchase' }, body: { eventId: null, assistants: [assistant], textRules: { onFailedChecks: 'nothing' } } });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.json.texts).toEqual([
      expect.objectContaining({ klaviyoProperty: 'thank_you', text: sampleClean, error: null, checks: expect.objectContaining({ stage: 'done', delivered: 'rewritten' }) }),
    ]);
    expect(preview.json.texts[0].checks.rejected.map((refused: { failures: Array<{ check: string }> }) => refused.failures[0]!.check)).toEqual(['discount_codes']);
    // Both calls (the text and its rewrite) count in the flow's spend, which its budget holds to.
    const spent = await db().query<{ calls: number; output_tokens: string }>(
      `SELECT s.calls, s.output_tokens::text FROM flow_daily_spend s JOIN flows f ON f.id = s.flow_id WHERE f.user_id = $1 AND f.flow_type = 'post_purchase'`,
      [owner.userId],
    );
    expect(spent.rows).toHaveLength(1);
    expect(spent.rows[0]!.calls).toBe(2);
    expect(Number(spent.rows[0]!.output_tokens)).toBeGreaterThan(0);

    // Twice wrong: the flow's "nothing", shown as no text.
    answerWith('Use code THANKS20.', 'Use code SAVE30.');
    const twice = await owner.client.call(endpoints.flows.preview, { params: { flowType: 'post_purchase' }, body: { eventId: null, assistants: [assistant], textRules: { onFailedChecks: 'nothing' } } });
    expect(twice.json.texts[0]).toMatchObject({ text: null, checks: { delivered: 'nothing' } });
    expect(scenario.klaviyo.profiles.size).toBe(profiles);

    // Bad input is refused with the form's message.
    const unknown = await owner.client.call(endpoints.flows.preview, { params: { flowType: 'post_purchase' }, body: { eventId: null, assistants: [{ ...assistant, fallback_text: 'Hi {coupon}' }], textRules: {} } });
    expect(unknown.status).toBe(400);
  });
});
