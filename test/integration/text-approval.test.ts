import { describe, expect, it } from 'vitest';
import { reviewMessages } from '../../src/shared/reviews/review-messages.ts';
import type { TextRulesInput } from '../../src/shared/flows/text-rules-schemas.ts';
import { ownerWithFlows, postEvent, sampleEvent, settleOnTheAppClock, useEngineScenario, waitForEvent, type Owner, allStandIns } from '../support/engine-scenario.ts';
import { uniqueEmail } from '../support/accounts.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';

/**
 * A flow that requires approval (docs/decisions/0040-texts-checked-before-delivery.md):
 * its checked texts wait in the review list; the owner approves, edits or rejects each, or
 * many at once, and after N unchanged approvals in a row new texts go out by themselves.
 * Texts not approved within their moment are not sent.
 */
const scenario = useEngineScenario({ standIns: allStandIns }, { clearFailures: true, advanceClockMs: 61_000 });
const db = () => scenario.testApp.database.pool;
const clean = 'Thank you for your order, Sam. We hope the Trail Shoe and the Wool Socks serve you well on every walk.';
const assistant = { name: 'Thank you', klaviyo_property: 'thank_you', prompt_template: 'Thank {first_name} for buying {products}' };

async function ownerRequiringApproval(rules: TextRulesInput = {}): Promise<Owner> {
  const owner = await ownerWithFlows(scenario, { post_purchase: {} });
  scenario.testApp.clock.advance(61_000);
  const saved = await owner.client.call(endpoints.flows.update, { params: { flowType: 'post_purchase' }, body: { isActive: true, klaviyoEventName: null, assistants: [assistant], textRules: { requireApproval: true, ...rules } } });
  expect(saved.status, saved.text).toBe(200);
  scenario.testApp.clock.advance(61_000);
  scenario.openai.setResponder(() => clean);
  return owner;
}

/** Sends an order and waits until its texts wait for approval. */
async function sendAndWait(owner: Owner, email: string): Promise<string> {
  const response = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email }));
  expect(response.status, response.text).toBe(202);
  const eventId = response.json.eventId as string;
  const waiting = await waitForEvent(db(), eventId, { statuses: ['waiting', 'delivered', 'skipped', 'failed'] });
  expect(waiting.status, JSON.stringify(waiting)).toBe('waiting');
  return eventId;
}

const deliveredText = (email: string) => scenario.klaviyo.profiles.get(email)?.properties.thank_you;

describe('the review list', () => {
  it('holds checked texts until the owner approves them, then delivers them', async () => {
    const owner = await ownerRequiringApproval();
    const email = uniqueEmail('review-approve');
    const eventId = await sendAndWait(owner, email);
    const row = await waitForEvent(db(), eventId, { statuses: ['waiting'] });
    expect(row.error).toContain('Waiting for your approval');
    expect(scenario.klaviyo.profiles.get(email)).toBeUndefined();

    const listed = await owner.client.call(endpoints.reviews.list);
    expect(listed.status).toBe(200);
    const review = listed.json.reviews.find((candidate: { eventId: string }) => candidate.eventId === eventId);
    expect(review).toMatchObject({ flowType: 'post_purchase', shopperEmail: email.toLowerCase(), texts: [{ klaviyoProperty: 'thank_you', text: clean, checks: { delivered: 'written' } }] });
    expect(review.texts[0].prompt).toContain('Thank {first_name} for buying {products}');
    expect((await owner.client.call(endpoints.reviews.count)).json.pending).toBeGreaterThanOrEqual(1);

    const decided = await owner.client.call(endpoints.reviews.decide, { body: { eventIds: [eventId], decision: 'approve' } });
    expect(decided.json).toEqual({ decided: 1, notDecided: 0 });
    expect(await waitForEvent(db(), eventId)).toMatchObject({ status: 'delivered' });
    expect(deliveredText(email)).toBe(clean);
    // Decided once: a second decision finds nothing to decide.
    expect((await owner.client.call(endpoints.reviews.decide, { body: { eventIds: [eventId], decision: 'reject' } })).json).toEqual({ decided: 0, notDecided: 1 });
  });

  it('skips the event, saying so, when the owner rejects its texts', async () => {
    const owner = await ownerRequiringApproval();
    const email = uniqueEmail('review-reject');
    const eventId = await sendAndWait(owner, email);
    await owner.client.call(endpoints.reviews.decide, { body: { eventIds: [eventId], decision: 'reject' } });
    expect(await waitForEvent(db(), eventId)).toMatchObject({ status: 'skipped', error: reviewMessages.rejected });
    expect(scenario.klaviyo.profiles.get(email)).toBeUndefined();
  });

  it("delivers the owner's edit as written, and the event log says it was edited", async () => {
    const owner = await ownerRequiringApproval();
    const email = uniqueEmail('review-edit');
    const eventId = await sendAndWait(owner, email);
    const edited = 'Thanks, Sam! Enjoy your new Trail Shoe.';
    // A text the event does not have is refused with its name, and nothing is decided.
    const unknown = await owner.client.call(endpoints.reviews.edit, { params: { eventId }, body: { texts: { thank_you: edited, subject_line1: 'Hello' } } });
    expect(unknown.status).toBe(400);
    expect(unknown.json.message).toBe(reviewMessages.noSuchText(['subject_line1']));
    expect((await owner.client.call(endpoints.reviews.edit, { params: { eventId }, body: { texts: {} } })).status).toBe(400);
    expect(await waitForEvent(db(), eventId, { statuses: ['waiting'] })).toMatchObject({ status: 'waiting' });
    const saved = await owner.client.call(endpoints.reviews.edit, { params: { eventId }, body: { texts: { thank_you: `  ${edited}  ` } } });
    expect(saved.status, saved.text).toBe(200);
    expect(await waitForEvent(db(), eventId)).toMatchObject({ status: 'delivered' });
    expect(deliveredText(email)).toBe(edited);
    const detail = await owner.client.call(endpoints.events.detail, { params: { eventId } });
    expect(detail.json.event.generations[0]).toMatchObject({ text: edited, checks: { delivered: 'edited' } });
    // An empty text is refused, like any bad input.
    expect((await owner.client.call(endpoints.reviews.edit, { params: { eventId }, body: { texts: { thank_you: '   ' } } })).status).toBe(400);
  });

  it('approves many at once', async () => {
    const owner = await ownerRequiringApproval();
    const emails = [uniqueEmail('review-many'), uniqueEmail('review-many'), uniqueEmail('review-many')];
    const eventIds = [];
    for (const email of emails) eventIds.push(await sendAndWait(owner, email));
    const decided = await owner.client.call(endpoints.reviews.decide, { body: { eventIds, decision: 'approve' } });
    expect(decided.json).toEqual({ decided: 3, notDecided: 0 });
    for (const eventId of eventIds) expect(await waitForEvent(db(), eventId)).toMatchObject({ status: 'delivered' });
    for (const email of emails) expect(deliveredText(email)).toBe(clean);
  });

  it('approves automatically after N unchanged approvals in a row, and an edit starts the count again', async () => {
    const owner = await ownerRequiringApproval({ autoApproveAfter: 2 });
    for (const label of ['first', 'second']) {
      const eventId = await sendAndWait(owner, uniqueEmail(`review-run-${label}`));
      await owner.client.call(endpoints.reviews.decide, { body: { eventIds: [eventId], decision: 'approve' } });
      expect(await waitForEvent(db(), eventId)).toMatchObject({ status: 'delivered' });
    }
    const trusted = uniqueEmail('review-run-trusted');
    const response = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: trusted }));
    expect(await waitForEvent(db(), response.json.eventId)).toMatchObject({ status: 'delivered' });
    expect(deliveredText(trusted)).toBe(clean);

    // An edit says the texts were not right as written: review again.
    const next = await postEvent(scenario.testApp.baseUrl, owner.flows.post_purchase.webhookPath, sampleEvent('post_purchase', { email: uniqueEmail('review-run-next') }));
    expect(await waitForEvent(db(), next.json.eventId)).toMatchObject({ status: 'delivered' });
    const reviewed = await ownerRequiringApproval({ autoApproveAfter: 1 });
    const firstEvent = await sendAndWait(reviewed, uniqueEmail('review-run-edit'));
    await reviewed.client.call(endpoints.reviews.edit, { params: { eventId: firstEvent }, body: { texts: { thank_you: 'Thanks, Sam!' } } });
    expect(await waitForEvent(db(), firstEvent)).toMatchObject({ status: 'delivered' });
    await sendAndWait(reviewed, uniqueEmail('review-run-after-edit'));
  });

  it('does not send texts left unapproved past their moment', async () => {
    const owner = await ownerRequiringApproval();
    const email = uniqueEmail('review-expire');
    const eventId = await sendAndWait(owner, email);
    scenario.testApp.clock.advance(24 * 60 * 60_000 + 1_000);
    expect((await settleOnTheAppClock(scenario, [eventId])).get(eventId)).toMatchObject({ status: 'skipped', error: reviewMessages.expired });
    expect(scenario.klaviyo.profiles.get(email)).toBeUndefined();
    expect((await owner.client.call(endpoints.reviews.decide, { body: { eventIds: [eventId], decision: 'approve' } })).json).toEqual({ decided: 0, notDecided: 1 });
  });

  it("shows and decides an owner's own reviews only", async () => {
    const owner = await ownerRequiringApproval();
    const stranger = await ownerWithFlows(scenario, {});
    const eventId = await sendAndWait(owner, uniqueEmail('review-isolation'));
    const theirs = await stranger.client.call(endpoints.reviews.list);
    expect(theirs.json.reviews.map((review: { eventId: string }) => review.eventId)).not.toContain(eventId);
    expect((await stranger.client.call(endpoints.reviews.decide, { body: { eventIds: [eventId], decision: 'approve' } })).json).toEqual({ decided: 0, notDecided: 1 });
    expect((await stranger.client.call(endpoints.reviews.edit, { params: { eventId }, body: { texts: { thank_you: 'Hijacked' } } })).status).toBe(404);
    expect(await waitForEvent(db(), eventId, { statuses: ['waiting'] })).toMatchObject({ status: 'waiting' });
    // Bad input is refused before anything is looked up.
    expect((await owner.client.call(endpoints.reviews.decide, { body: { eventIds: [], decision: 'approve' } })).status).toBe(400);
    expect((await owner.client.call(endpoints.reviews.decide, { body: { eventIds: [eventId], decision: 'maybe' } })).status).toBe(400);
  });
});
