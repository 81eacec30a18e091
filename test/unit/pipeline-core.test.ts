import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  admissionLookUps,
  decideAdmission,
  decideAfterServiceFailure,
  decideAfterTexts,
  decideBudget,
  decideCaps,
  decideAnswerText,
  decideCredentials,
  decideDeliveryMode,
  decideFlow,
  decideDeliveryStart,
  decideGenerationStart,
  decideJob,
  decideKnownShopper,
  decideNormalized,
  decidePixelProducts,
  decideRateLimitWait,
  decideServiceTier,
  decideShopProduct,
  decideUnderBacklog,
  failedTextReason,
  fallsBackFromFlex,
  planAssistantText,
  settleGenerations,
  shopperUnderCooldown,
  type AdmissionFacts,
  type EventFacts,
  type GenerationOutcome,
} from '../../src/server/engine/spine/pipeline-core.ts';
import type { RetryPolicy } from '../../src/server/engine/spine/retry-policy.ts';
import { eventOutcomeMessages as m } from '../../src/shared/events/event-messages.ts';
import { dryRunOutcome } from '../../src/shared/webhooks/webhook-messages.ts';
import type { NormalizedEvent } from '../../src/shared/events/event-schemas.ts';
import { finishedStatuses } from '../../src/server/events/event-lifecycle.ts';

// The pipeline's decisions on plain data: no database, no app, no clock.

function eventFacts(overrides: Partial<EventFacts> = {}): EventFacts {
  return { attempt: 1, status: 'received', source: 'generic', topic: null, flowType: 'abandoned_checkout', dryRun: false, ...overrides };
}

const checkoutUpdate = eventFacts({ source: 'shopify', topic: 'checkouts/update', flowType: 'abandoned_checkout' });
const cartUpdate = eventFacts({ source: 'shopify', topic: 'carts/update', flowType: 'abandoned_cart' });
const productView = eventFacts({ source: 'pixel', topic: 'product_viewed', flowType: 'browser_abandonment' });
const shopifyOrder = eventFacts({ source: 'shopify', topic: 'orders/create', flowType: 'post_purchase' });

function admission(overrides: Partial<AdmissionFacts> = {}): AdmissionFacts {
  return {
    event: eventFacts(),
    flow: { assistantCount: 1 },
    timerKind: null,
    arming: false,
    normalized: { completedAt: null, shopper: { email: 'kim@example.com' } },
    timerEndedReason: null,
    earlierOrder: false,
    ...overrides,
  };
}

const noEmail = { completedAt: null, shopper: { email: null } };

describe('whether a job runs its event', () => {
  it('runs the attempt it was sent for', () => {
    expect(decideJob({ attempt: 1, arm: false }, { attempt: 1, status: 'received' })).toEqual({ kind: 'go_on' });
  });

  it('runs an arming job while the event waits for its timer', () => {
    expect(decideJob({ attempt: 1, arm: true }, { attempt: 1, status: 'waiting' })).toEqual({ kind: 'go_on' });
  });

  it.each(['generating', 'delivering'] as const)('resumes an event a crashed job left %s', (status) => {
    expect(decideJob({ attempt: 1, arm: false }, { attempt: 1, status })).toEqual({ kind: 'go_on' });
  });

  it('ignores a job whose event is gone', () => {
    expect(decideJob({ attempt: 1, arm: false }, null)).toEqual({ kind: 'ignore', why: 'stale_job' });
  });

  it('ignores a job for an attempt a replay has replaced', () => {
    expect(decideJob({ attempt: 1, arm: false }, { attempt: 2, status: 'received' })).toEqual({ kind: 'ignore', why: 'stale_job' });
  });

  it.each(finishedStatuses)('ignores a job whose event is %s already', (status) => {
    expect(decideJob({ attempt: 1, arm: false }, { attempt: 1, status })).toEqual({ kind: 'ignore', why: 'finished' });
  });

  it('ignores an arming job that comes after the timer fired', () => {
    expect(decideJob({ attempt: 1, arm: true }, { attempt: 1, status: 'received' })).toEqual({ kind: 'ignore', why: 'late_arming' });
  });

  it('ignores a job that finds its event waiting for a later try', () => {
    expect(decideJob({ attempt: 1, arm: false }, { attempt: 1, status: 'waiting' })).toEqual({ kind: 'ignore', why: 'not_due' });
  });
});

describe('the flow', () => {
  it('goes on for an active flow', () => {
    expect(decideFlow({ isActive: true })).toEqual({ kind: 'go_on' });
  });

  it('skips when the flow was switched off before the event was processed', () => {
    expect(decideFlow({ isActive: false })).toEqual({ kind: 'skip', reason: m.flowSwitchedOff });
    expect(m.flowSwitchedOff).toBe('The flow was switched off before the event was processed.');
  });

  it('does nothing when the flow was deleted', () => {
    expect(decideFlow(null)).toEqual({ kind: 'ignore', why: 'flow_gone' });
  });
});

describe('the stored body', () => {
  it('goes on with a body that normalised', () => {
    expect(decideNormalized({ ok: true, event: {} as NormalizedEvent })).toEqual({ kind: 'go_on' });
  });

  it('fails with what is wrong with the body', () => {
    expect(decideNormalized({ ok: false, problem: 'the stored body is not JSON' })).toEqual({
      kind: 'fail',
      reason: 'The event does not have the expected shape: the stored body is not JSON',
    });
  });
});

describe('what admission needs looked up', () => {
  it('asks what ended a timer on the first attempt', () => {
    expect(admissionLookUps(checkoutUpdate, 'checkout', { completedAt: null })).toEqual({ whatEndedTimer: true, earlierOrder: false });
  });

  it('does not ask about a checkout that says it is completed', () => {
    expect(admissionLookUps(checkoutUpdate, 'checkout', { completedAt: '2026-11-20T10:00:00Z' })).toEqual({ whatEndedTimer: false, earlierOrder: false });
  });

  it('asks whether a Shopify order was followed up already', () => {
    expect(admissionLookUps(shopifyOrder, null, { completedAt: null })).toEqual({ whatEndedTimer: false, earlierOrder: true });
  });

  it("does not ask about a generic sender's order", () => {
    expect(admissionLookUps(eventFacts({ flowType: 'post_purchase' }), null, { completedAt: null })).toEqual({ whatEndedTimer: false, earlierOrder: false });
  });

  it('asks nothing for a replay', () => {
    expect(admissionLookUps({ ...checkoutUpdate, attempt: 2 }, 'checkout', { completedAt: null })).toEqual({ whatEndedTimer: false, earlierOrder: false });
    expect(admissionLookUps({ ...shopifyOrder, attempt: 2 }, null, { completedAt: null })).toEqual({ whatEndedTimer: false, earlierOrder: false });
  });

  it('asks nothing for a signal that only ends timers', () => {
    const order = eventFacts({ source: 'shopify', topic: 'orders/create', flowType: 'abandoned_checkout' });
    expect(admissionLookUps(order, null, { completedAt: null })).toEqual({ whatEndedTimer: false, earlierOrder: false });
  });
});

describe('admission', () => {
  it('goes on for an event with a shopper and a flow with assistants', () => {
    expect(decideAdmission(admission())).toEqual({ kind: 'go_on' });
  });

  it('skips a Shopify event the flow writes no content for', () => {
    const order = eventFacts({ source: 'shopify', topic: 'orders/create', flowType: 'abandoned_checkout' });
    expect(decideAdmission(admission({ event: order }))).toEqual({ kind: 'skip', reason: m.signalOnly('orders/create', 'abandoned_checkout') });
  });

  it('skips a deleted checkout', () => {
    const deleted = eventFacts({ source: 'shopify', topic: 'checkouts/delete', flowType: 'abandoned_checkout' });
    expect(decideAdmission(admission({ event: deleted }))).toEqual({ kind: 'skip', reason: m.checkoutDeleted });
  });

  it('skips a checkout that is completed', () => {
    const facts = admission({ event: checkoutUpdate, timerKind: 'checkout', normalized: { completedAt: '2026-11-20T10:00:00Z', shopper: { email: 'kim@example.com' } } });
    expect(decideAdmission(facts)).toEqual({ kind: 'skip', reason: m.checkoutCompleted });
  });

  it('skips a timer that what the shopper did next ended, with that reason', () => {
    expect(decideAdmission(admission({ event: checkoutUpdate, timerKind: 'checkout', timerEndedReason: m.orderPlaced }))).toEqual({ kind: 'skip', reason: m.orderPlaced });
  });

  it('skips an order this flow followed up already', () => {
    expect(decideAdmission(admission({ event: shopifyOrder, earlierOrder: true }))).toEqual({ kind: 'skip', reason: m.orderFollowedUp });
  });

  it('asks none of the timer rules of a replay', () => {
    const replayedSignal = eventFacts({ source: 'shopify', topic: 'checkouts/delete', flowType: 'abandoned_checkout', attempt: 2 });
    expect(decideAdmission(admission({ event: replayedSignal }))).toEqual({ kind: 'go_on' });
    const replayedTimer = admission({ event: { ...checkoutUpdate, attempt: 2 }, timerKind: 'checkout', timerEndedReason: m.superseded });
    expect(decideAdmission(replayedTimer)).toEqual({ kind: 'go_on' });
    expect(decideAdmission(admission({ event: { ...shopifyOrder, attempt: 2 }, earlierOrder: true }))).toEqual({ kind: 'go_on' });
  });

  it('skips an event without a shopper email', () => {
    expect(decideAdmission(admission({ normalized: noEmail }))).toEqual({ kind: 'skip', reason: m.noEmail });
  });

  it('skips a cart nobody is known to hold when its timer fires', () => {
    expect(decideAdmission(admission({ event: cartUpdate, timerKind: 'cart', normalized: noEmail }))).toEqual({ kind: 'skip', reason: m.cartWithoutIdentity });
  });

  it("skips a guest's product view", () => {
    expect(decideAdmission(admission({ event: productView, timerKind: 'browse', normalized: noEmail }))).toEqual({ kind: 'skip', reason: m.guestView });
  });

  it("keeps a cart without a shopper waiting while its timer runs: the pixel may still name the shopper", () => {
    expect(decideAdmission(admission({ event: cartUpdate, timerKind: 'cart', arming: true, normalized: noEmail }))).toEqual({ kind: 'wait_for_timer' });
  });

  it('skips a guest view even while arming: only carts wait for their shopper', () => {
    expect(decideAdmission(admission({ event: productView, timerKind: 'browse', arming: true, normalized: noEmail }))).toEqual({ kind: 'skip', reason: m.guestView });
  });

  it('leaves an armed timer waiting', () => {
    expect(decideAdmission(admission({ event: checkoutUpdate, timerKind: 'checkout', arming: true }))).toEqual({ kind: 'wait_for_timer' });
  });

  it("leaves the flow's own checks to when the timer fires", () => {
    expect(decideAdmission(admission({ event: checkoutUpdate, timerKind: 'checkout', arming: true, flow: { assistantCount: 0 } }))).toEqual({ kind: 'wait_for_timer' });
  });

  it('fails when the flow has no assistants', () => {
    expect(decideAdmission(admission({ flow: { assistantCount: 0 } }))).toEqual({ kind: 'fail', reason: m.noAssistants });
  });

  it('skips for the timer before it looks at the shopper', () => {
    expect(decideAdmission(admission({ event: checkoutUpdate, timerKind: 'checkout', timerEndedReason: m.superseded, normalized: noEmail }))).toEqual({
      kind: 'skip',
      reason: m.superseded,
    });
  });
});

describe('credentials', () => {
  it('goes on with saved credentials', () => {
    expect(decideCredentials(true)).toEqual({ kind: 'go_on' });
  });

  it('fails without them, telling the owner to save them and replay', () => {
    expect(decideCredentials(false)).toEqual({ kind: 'fail', reason: m.noCredentials });
  });
});

describe("the pixel's products and shopper", () => {
  const shopifyProduct = { id: '123', isShopifyProduct: true };

  it('goes on with products of a connected shop', () => {
    expect(decidePixelProducts({ products: [shopifyProduct], shopConnected: true })).toEqual({ kind: 'go_on' });
  });

  it('skips a view that names no product', () => {
    expect(decidePixelProducts({ products: [], shopConnected: false })).toEqual({ kind: 'skip', reason: m.pixelWithoutProduct });
  });

  it('skips a product id that is not a Shopify product, naming it', () => {
    expect(decidePixelProducts({ products: [shopifyProduct, { id: 'sku-9', isShopifyProduct: false }], shopConnected: true })).toEqual({
      kind: 'skip',
      reason: m.unknownShopifyProduct('sku-9'),
    });
  });

  it('skips when the shop is not connected', () => {
    expect(decidePixelProducts({ products: [shopifyProduct], shopConnected: false })).toEqual({ kind: 'skip', reason: m.shopNotConnected });
  });

  it('skips a product the shop does not know', () => {
    expect(decideShopProduct({ id: '123', foundInShop: false })).toEqual({ kind: 'skip', reason: m.unknownShopifyProduct('123') });
    expect(decideShopProduct({ id: '123', foundInShop: true })).toEqual({ kind: 'go_on' });
  });

  it('skips a shopper Klaviyo does not know', () => {
    expect(decideKnownShopper(false)).toEqual({ kind: 'skip', reason: m.unknownPixelShopper });
    expect(decideKnownShopper(true)).toEqual({ kind: 'go_on' });
  });
});

describe('the daily budget', () => {
  const noon = new Date('2026-11-20T12:00:00Z');

  it('goes on for a flow without a budget', () => {
    expect(decideBudget({ dailyBudgetUsd: null, overBudget: 'skip' }, null, noon)).toEqual({ kind: 'go_on' });
  });

  it('goes on while the spend is under the budget', () => {
    expect(decideBudget({ dailyBudgetUsd: 5, overBudget: 'skip' }, 4.99, noon)).toEqual({ kind: 'go_on' });
  });

  it('skips once the spend reaches the budget exactly, when the owner chose to skip', () => {
    expect(decideBudget({ dailyBudgetUsd: 5, overBudget: 'skip' }, 5, noon)).toEqual({ kind: 'skip', reason: m.budgetSkipped(5) });
  });

  it('waits for the next UTC day, when the owner chose to wait', () => {
    const nextDay = new Date('2026-11-21T00:00:00Z');
    expect(decideBudget({ dailyBudgetUsd: 5, overBudget: 'wait' }, 7, noon)).toEqual({ kind: 'wait', for: 'budget', until: nextDay, reason: m.budgetWait(5, nextDay) });
  });

  it("waits a whole day when the budget is spent at midnight exactly, and a millisecond before midnight only that millisecond", () => {
    const wait = (now: string) => decideBudget({ dailyBudgetUsd: 1, overBudget: 'wait' }, 1, new Date(now));
    expect(wait('2026-11-21T00:00:00.000Z')).toMatchObject({ kind: 'wait', until: new Date('2026-11-22T00:00:00Z') });
    expect(wait('2026-11-20T23:59:59.999Z')).toMatchObject({ kind: 'wait', until: new Date('2026-11-21T00:00:00Z') });
  });

  it('waits into the next year on New Year’s Eve', () => {
    expect(decideBudget({ dailyBudgetUsd: 1, overBudget: 'wait' }, 2, new Date('2026-12-31T18:00:00Z'))).toMatchObject({ kind: 'wait', until: new Date('2027-01-01T00:00:00Z') });
  });
});

describe('the caps', () => {
  it("counts a first attempt against the shopper's cooldown", () => {
    expect(shopperUnderCooldown({ attempt: 1, source: 'shopify' }, 'kim@example.com')).toBe('kim@example.com');
  });

  it('does not count a replay or a console test send against it', () => {
    expect(shopperUnderCooldown({ attempt: 2, source: 'shopify' }, 'kim@example.com')).toBeNull();
    expect(shopperUnderCooldown({ attempt: 1, source: 'test' }, 'kim@example.com')).toBeNull();
  });

  it('goes on when both caps had room', () => {
    expect(decideCaps(null)).toEqual({ kind: 'go_on' });
  });

  it("skips a shopper within the flow's cooldown", () => {
    expect(decideCaps({ rule: 'shopper', hours: 24 })).toEqual({ kind: 'skip', reason: m.shopperCooldown(24) });
  });

  it('skips once the daily cap is reached', () => {
    expect(decideCaps({ rule: 'daily', cap: 100 })).toEqual({ kind: 'skip', reason: m.dailyCapReached(100) });
  });
});

describe('starting generation', () => {
  it('generates when the event moved to generating', () => {
    expect(decideGenerationStart(true, 'received')).toEqual({ kind: 'generate' });
  });

  it.each(['generating', 'delivering'] as const)('generates (resuming) when a crashed job left it %s', (status) => {
    expect(decideGenerationStart(false, status)).toEqual({ kind: 'generate' });
  });

  it('does nothing when someone else moved a received event on', () => {
    expect(decideGenerationStart(false, 'received')).toEqual({ kind: 'ignore', why: 'moved_on' });
  });
});

describe('starting delivery', () => {
  it('delivers when this run moved the event to delivering', () => {
    expect(decideDeliveryStart(true, 'received')).toEqual({ kind: 'go_on' });
    expect(decideDeliveryStart(true, 'generating')).toEqual({ kind: 'go_on' });
  });

  it('delivers (taking over) when the run found the event delivering as it started', () => {
    expect(decideDeliveryStart(false, 'delivering')).toEqual({ kind: 'go_on' });
  });

  it.each(['received', 'generating'] as const)('stops when another run moved an event it found %s to delivering first', (status) => {
    expect(decideDeliveryStart(false, status)).toEqual({ kind: 'ignore', why: 'moved_on' });
  });
});

describe("what an assistant's text needs before any call", () => {
  const request = { prompt: 'Write about the Rain Jacket.', model: 'gpt-5-mini', instructions: 'Be brief.' };
  const plan = (overrides: Partial<Parameters<typeof planAssistantText>[0]> = {}) =>
    planAssistantText({ attempt: 1, assistantName: 'Subject', request, missing: [], stored: undefined, reuseWindowHours: 24, promptNamesShopper: false, ...overrides });

  it('keeps a text this attempt stored for the same request', () => {
    expect(plan({ stored: { status: 'succeeded', ...request } })).toEqual({ kind: 'keep' });
  });

  it('writes again when the stored text failed, or was for another prompt, model or instructions', () => {
    const find = { kind: 'find', earlierAttempt: false, cacheable: true };
    expect(plan({ stored: { status: 'failed', ...request } })).toEqual(find);
    expect(plan({ stored: { status: 'succeeded', ...request, prompt: 'Write about the Boots.' } })).toEqual(find);
    expect(plan({ stored: { status: 'succeeded', ...request, model: 'gpt-5' } })).toEqual(find);
    expect(plan({ stored: { status: 'succeeded', ...request, instructions: null } })).toEqual(find);
  });

  it('fails a text whose prompt renders empty, naming what the event lacks', () => {
    expect(plan({ request: { ...request, prompt: '' }, missing: ['{{product_name}}'] })).toEqual({ kind: 'template_empty', reason: m.templateEmpty('Subject', ['{{product_name}}']) });
  });

  it("looks in an earlier attempt's texts for a replay only", () => {
    expect(plan({ attempt: 2 })).toEqual({ kind: 'find', earlierAttempt: true, cacheable: true });
  });

  it('never shares a text whose prompt names the shopper, nor with the reuse window at 0', () => {
    expect(plan({ promptNamesShopper: true })).toMatchObject({ cacheable: false });
    expect(plan({ reuseWindowHours: 0 })).toMatchObject({ cacheable: false });
  });
});

describe("OpenAI's service tier", () => {
  const flexible = { sandbox: false, useFlexTier: true, waitMinutes: 15, modelOffersFlex: true, flexMinWaitMinutes: 15 };

  it('is flex for a flow that waits exactly long enough, allows it, with a model that offers it', () => {
    expect(decideServiceTier(flexible)).toBe('flex');
  });

  it('is standard a minute short of the wait, without a wait, when not allowed, for a model without flex, or in the sandbox', () => {
    expect(decideServiceTier({ ...flexible, waitMinutes: 14 })).toBe('standard');
    expect(decideServiceTier({ ...flexible, waitMinutes: null })).toBe('standard');
    expect(decideServiceTier({ ...flexible, useFlexTier: false })).toBe('standard');
    expect(decideServiceTier({ ...flexible, modelOffersFlex: false })).toBe('standard');
    expect(decideServiceTier({ ...flexible, sandbox: true })).toBe('standard');
  });

  it('falls back to the standard tier when flex is refused or too slow, and for nothing else', () => {
    expect(fallsBackFromFlex('resource_unavailable')).toBe(true);
    expect(fallsBackFromFlex('timeout')).toBe(true);
    expect(fallsBackFromFlex('server_error')).toBe(false);
    expect(fallsBackFromFlex('rate_limited')).toBe(false);
  });
});

describe("an answer's text", () => {
  it('is written when the answer has it', () => {
    expect(decideAnswerText({ assistantName: 'Subject', text: 'Still thinking?', incomplete: null, noTextReason: '' })).toEqual({ status: 'succeeded', error: null });
  });

  it('fails when the answer was cut off, saying why', () => {
    expect(decideAnswerText({ assistantName: 'Subject', text: null, incomplete: 'max_output_tokens', noTextReason: '' })).toEqual({
      status: 'failed',
      error: m.answerCutOff('Subject', 'max_output_tokens'),
    });
  });

  it('fails when the answer has no text, with its reason', () => {
    expect(decideAnswerText({ assistantName: 'Subject', text: null, incomplete: null, noTextReason: 'its field was empty' })).toEqual({
      status: 'failed',
      error: m.noText('Subject', 'its field was empty'),
    });
  });
});

describe('a failed OpenAI call in its texts', () => {
  const reason = (code: string, status: number | null, retryable = false) =>
    failedTextReason({ assistantName: 'Subject', model: 'gpt-x', failure: { retryable, message: 'OpenAI: refused', code, status } });

  it('says only what went wrong when it is tried again', () => {
    expect(reason('server_error', 503, true)).toBe(m.generationFailed('Subject', 'OpenAI: refused'));
  });

  it.each([
    ['unauthorized', 401, m.openAiRefused.unauthorized],
    ['forbidden', 403, m.openAiRefused.forbidden],
    ['not_found', 404, m.openAiRefused.notFound('gpt-x')],
    ['insufficient_quota', 429, m.openAiRefused.quota],
    ['invalid_response', 200, m.openAiRefused.notUnderstood],
    ['bad_request', 413, m.openAiRefused.tooLarge],
    ['bad_request', 400, m.openAiRefused.badRequest],
    ['unprocessable', 422, m.openAiRefused.badRequest],
  ] as const)('adds what the owner can change for a permanent %s (%i)', (code, status, words) => {
    expect(reason(code, status)).toBe(m.generationFailed('Subject', `OpenAI: refused ${words}`));
  });
});

describe("the assistants' texts", () => {
  type Text = { status: 'succeeded' | 'failed'; error: string | null; name: string };
  const written = (name: string): Text => ({ status: 'succeeded', error: null, name });
  const failed = (error: string): Text => ({ status: 'failed', error, name: 'failed' });
  const ok = (...generations: Text[]): GenerationOutcome<Text> => ({ ok: true, generations });
  const forNow = new Error('OpenAI: busy');
  const forGood = new Error('the database went away');

  it('are written when every text succeeded', () => {
    expect(settleGenerations([ok(written('a')), ok(written('b'), written('c'))])).toEqual({ kind: 'written', generations: [written('a'), written('b'), written('c')] });
  });

  it('fail the event with every failed text’s reason', () => {
    expect(settleGenerations([ok(written('a'), failed('"A": empty.')), ok(failed('"B": cut off.'))])).toEqual({ kind: 'fail', reason: '"A": empty. "B": cut off.' });
  });

  it('are tried again when a call failed for now, with its error', () => {
    const second = new Error('OpenAI: busy again');
    expect(settleGenerations([ok(written('a')), { ok: false, error: forNow, retryable: true }, { ok: false, error: second, retryable: true }])).toEqual({
      kind: 'try_again',
      error: forNow,
    });
  });

  it('fail rather than try again when a text failed for good', () => {
    expect(settleGenerations([{ ok: false, error: forNow, retryable: true }, ok(failed('"A": refused.'))])).toEqual({ kind: 'fail', reason: '"A": refused.' });
  });

  it('let an unexpected error go up as it is', () => {
    expect(settleGenerations([ok(failed('"A": refused.')), { ok: false, error: forGood, retryable: false }])).toEqual({ kind: 'unexpected', error: forGood });
  });

  it('end the event with the first end a group returned, before anything after it', () => {
    const refusedKey = { status: 'failed', reason: 'OpenAI refused the key.' };
    const outcomes: GenerationOutcome<Text, typeof refusedKey>[] = [
      ok(written('a')),
      { ok: false, ended: refusedKey },
      { ok: false, error: forGood, retryable: false },
    ];
    expect(settleGenerations(outcomes)).toEqual({ kind: 'ended', ended: refusedKey });
    // An unexpected error before the end still goes up first, as it would have been thrown first.
    expect(settleGenerations([{ ok: false, error: forGood, retryable: false }, { ok: false, ended: refusedKey }])).toEqual({ kind: 'unexpected', error: forGood });
  });
});

describe('after the texts', () => {
  const texts = [
    { klaviyoProperty: 'subject', text: 'Still thinking?' },
    { klaviyoProperty: 'body', text: 'Your cart misses you.' },
  ];
  const shopper = { firstName: 'Kim', lastName: 'Lee' };

  it("ends a console dry run before Klaviyo", () => {
    expect(decideAfterTexts({ event: { source: 'test', dryRun: true }, fromPixel: false, shopper, texts })).toEqual({ kind: 'skip', reason: dryRunOutcome });
  });

  it("delivers every text with the event's names", () => {
    expect(decideAfterTexts({ event: { source: 'test', dryRun: false }, fromPixel: false, shopper, texts })).toEqual({
      kind: 'deliver',
      properties: { subject: 'Still thinking?', body: 'Your cart misses you.' },
      names: shopper,
    });
  });

  it('writes no names back to a profile they came from', () => {
    expect(decideAfterTexts({ event: { source: 'pixel', dryRun: false }, fromPixel: true, shopper, texts })).toMatchObject({
      kind: 'deliver',
      names: { firstName: null, lastName: null },
    });
  });
});

describe('how a delivery goes', () => {
  const fresh = { delivered: false, batched: false, profileWritten: false, holdout: false };
  const underLimits = { accountLimited: true, bulkDelivery: true, sandbox: false };

  it('is left alone once delivered', () => {
    expect(decideDeliveryMode({ ...fresh, delivered: true, batched: true }, underLimits)).toBe('already_delivered');
  });

  it('is left to its batch once batched', () => {
    expect(decideDeliveryMode({ ...fresh, batched: true }, underLimits)).toBe('already_batched');
  });

  it('goes single unless there is a backlog, under the account’s limits with bulk delivery on', () => {
    expect(decideDeliveryMode(fresh, underLimits)).toBe('single_unless_backlog');
  });

  it('goes single when its profile is written already (only its Klaviyo event is left)', () => {
    expect(decideDeliveryMode({ ...fresh, profileWritten: true }, underLimits)).toBe('single');
  });

  it('goes single in the sandbox, without limits, or with bulk delivery off', () => {
    expect(decideDeliveryMode(fresh, { ...underLimits, sandbox: true })).toBe('single');
    expect(decideDeliveryMode(fresh, { ...underLimits, accountLimited: false })).toBe('single');
    expect(decideDeliveryMode(fresh, { ...underLimits, bulkDelivery: false })).toBe('single');
  });

  it('goes single for a holdout shopper, under a backlog too: a bulk import cannot clear properties', () => {
    expect(decideDeliveryMode({ ...fresh, holdout: true }, underLimits)).toBe('single');
  });

  it('joins a bulk import when deliveries of the account already wait for one', () => {
    expect(decideUnderBacklog({ deliveriesQueued: true })).toBe('bulk');
  });

  it("joins a bulk import when the account's single-write slot is not free now", () => {
    expect(decideUnderBacklog({ deliveriesQueued: false, slotFree: false })).toBe('bulk');
  });

  it('writes at once when nothing waits and the slot is free', () => {
    expect(decideUnderBacklog({ deliveriesQueued: false, slotFree: true })).toBe('single');
  });
});

describe('after a failed service call', () => {
  const policy: RetryPolicy = { tries: 4, delaysMs: [100, 400, 1_000], jitter: 0.5, maxInPlaceWaitMs: 1_000, maxRetryAfterMs: 5_000 };
  const now = new Date('2026-11-20T12:00:00Z');
  const busy = (retryAfterMs: number | null = null) => ({ retryable: true, retryAfterMs, message: 'OpenAI: busy' });
  const firstFailure = { retryCount: 0, retryProgress: 0 };
  const later = (ms: number) => new Date(now.getTime() + ms);

  it("schedules the next try after the policy's first step", () => {
    expect(decideAfterServiceFailure({ policy, failure: busy(), progress: 0, event: firstFailure, now, random: 0.5 })).toEqual({
      kind: 'retry',
      at: later(100),
      failedTries: 1,
      progress: 0,
      reason: m.retrying('OpenAI: busy', later(100), 2, 4),
    });
  });

  it('counts the failed tries of a step that gets no further, each wait longer', () => {
    expect(decideAfterServiceFailure({ policy, failure: busy(), progress: 2, event: { retryCount: 2, retryProgress: 2 }, now, random: 0.5 })).toMatchObject({
      kind: 'retry',
      at: later(1_000),
      failedTries: 3,
    });
  });

  it('starts the count again when the event got further than at its last failure', () => {
    expect(decideAfterServiceFailure({ policy, failure: busy(), progress: 3, event: { retryCount: 3, retryProgress: 2 }, now, random: 0.5 })).toMatchObject({
      kind: 'retry',
      at: later(100),
      failedTries: 1,
      progress: 3,
    });
  });

  it('spreads the wait by the jitter either way', () => {
    const at = (random: number) => decideAfterServiceFailure({ policy, failure: busy(), progress: 0, event: firstFailure, now, random });
    expect(at(0)).toMatchObject({ at: later(50) });
    expect(at(1)).toMatchObject({ at: later(150) });
  });

  it('waits at least as long as the service asked', () => {
    expect(decideAfterServiceFailure({ policy, failure: busy(3_000), progress: 0, event: firstFailure, now, random: 1 })).toMatchObject({ kind: 'retry', at: later(3_000) });
  });

  it('still tries when the service asks for exactly the longest wait allowed', () => {
    expect(decideAfterServiceFailure({ policy, failure: busy(5_000), progress: 0, event: firstFailure, now, random: 0.5 })).toMatchObject({ kind: 'retry', at: later(5_000) });
  });

  it('gives up when the service asks to wait longer than allowed', () => {
    expect(decideAfterServiceFailure({ policy, failure: busy(5_001), progress: 0, event: firstFailure, now, random: 0.5 })).toEqual({
      kind: 'give_up',
      why: 'wait_too_long',
      failedTries: 1,
      reason: m.retryTooLate('OpenAI: busy'),
    });
  });

  it('schedules the last try, naming it', () => {
    expect(decideAfterServiceFailure({ policy, failure: busy(), progress: 0, event: { retryCount: 2, retryProgress: 0 }, now, random: 0.5 })).toMatchObject({
      kind: 'retry',
      failedTries: 3,
      reason: m.retrying('OpenAI: busy', later(1_000), 4, 4),
    });
  });

  it('gives up after the last try', () => {
    expect(decideAfterServiceFailure({ policy, failure: busy(), progress: 0, event: { retryCount: 3, retryProgress: 0 }, now, random: 0.5 })).toEqual({
      kind: 'give_up',
      why: 'tries_used_up',
      failedTries: 4,
      reason: m.triesUsedUp('OpenAI: busy', 4),
    });
  });

  it("gives up at once on a permanent refusal, with the service's message", () => {
    const refused = { retryable: false, retryAfterMs: null, message: 'OpenAI: no quota left' };
    expect(decideAfterServiceFailure({ policy, failure: refused, progress: 0, event: firstFailure, now, random: 0.5 })).toEqual({
      kind: 'give_up',
      why: 'permanent',
      failedTries: 1,
      reason: 'OpenAI: no quota left',
    });
  });
});

describe('a rate limit further off than a worker waits', () => {
  const until = new Date('2026-11-20T12:00:30Z');

  it("waits for Klaviyo's next slot, saying so", () => {
    expect(decideRateLimitWait('klaviyo', until)).toEqual({ kind: 'wait', for: 'rate_limit', until, reason: m.rateLimitWait('Klaviyo', until) });
    expect(m.rateLimitWait('Klaviyo', until)).toBe("Waiting for Klaviyo's rate limit until 2026-11-20 12:00:30 UTC.");
  });

  it("waits for Shopify's next slot", () => {
    expect(decideRateLimitWait('shopify', until)).toEqual({ kind: 'wait', for: 'rate_limit', until, reason: m.rateLimitWait('Shopify', until) });
  });
});

describe('the core itself', () => {
  // Pure by construction: a module that queries, calls a service or reads the clock is
  // not imported by the decisions (type-only imports included, since they invite it).
  const doesInputOutput = /(-queries\.ts|\/database\/|\/integrations\/(openai|klaviyo|shopify)\/|\/platform\/clock\.ts|^node:|^pg$|pg-boss)/;
  const importsOf = (file: string) => [...readFileSync(new URL(file, import.meta.url), 'utf8').matchAll(/from '([^']+)'/g)].map((match) => match[1]!);

  it.each(['../../src/server/engine/spine/pipeline-core.ts', '../../src/server/intake/intake-decisions.ts'])('%s imports nothing that does I/O', (file) => {
    const imports = importsOf(file);
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((specifier) => doesInputOutput.test(specifier))).toEqual([]);
  });
});
