import type { EventSource } from '../../../shared/events/event-sources.ts';
import type { EventStatus } from '../../../shared/events/event-statuses.ts';
import type { NormalizedEvent } from '../../../shared/events/event-schemas.ts';
import type { FlowType } from '../../../shared/flows/flow-types.ts';
import { eventOutcomeMessages as m } from '../../../shared/events/event-messages.ts';
import { dryRunOutcome } from '../../../shared/webhooks/webhook-messages.ts';
import { textCheckOutcomeMessages } from '../../../shared/text-checks/text-check-messages.ts';
import { reviewMessages } from '../../../shared/reviews/review-messages.ts';
import { serviceTitles } from '../../integrations/service-error.ts';
import { isFinished } from '../../events/event-lifecycle.ts';
import { signalOnlyReason, type TimerKind } from '../timers/timer-rules.ts';
import { nextTryDelay, retryRefusal, type RetryPolicy } from './retry-policy.ts';

/**
 * The pipeline's decisions, apart from what carries them out
 * (docs/decisions/0035-pure-pipeline-core.md). Each function here takes the event, the
 * flow and the facts the pipeline looked up, as plain data, and answers with a member of
 * `Decision`; none reads the database, calls a service or looks at a clock (the time is
 * passed in). event-pipeline.ts and its steps look the facts up, ask here, and do what the
 * answer says, so every rule can be tested without the app.
 *
 * The decisions come in the order the pipeline meets them, because the facts a later one
 * needs are worth looking up only once the earlier ones let the event go on.
 */
export type Decision =
  /** This job has nothing to do (`why` says which rule), and the event is left as it is. */
  | { kind: 'ignore'; why: IgnoreReason }
  /** Nothing stops the event here: the pipeline goes on to its next step. */
  | { kind: 'go_on' }
  /** An arming job found the abandonment timer still running: the event waits for it. */
  | { kind: 'wait_for_timer' }
  /** The event waits until `until` without it counting as a failed try. */
  | { kind: 'wait'; for: 'rate_limit' | 'budget'; until: Date; reason: string }
  /** The event ends as skipped, with the reason the owner reads in the event log. */
  | { kind: 'skip'; reason: string }
  /** The event ends as failed, with the reason the owner reads in the event log. */
  | { kind: 'fail'; reason: string }
  /** The texts are written now: the caps are reserved and the event is generating. */
  | { kind: 'generate' }
  /** Texts written: they go to the shopper's profile, with the names to write next to them. */
  | { kind: 'deliver'; properties: Record<string, string>; names: ProfileNames }
  /** A service call failed for now: the next try is at `at`, and the event log says so. */
  | { kind: 'retry'; at: Date; failedTries: number; progress: number; reason: string }
  /** A service call failed and is not tried again: the event fails with `reason`. */
  | { kind: 'give_up'; why: 'permanent' | 'tries_used_up' | 'wait_too_long'; failedTries: number; reason: string };

export type DecisionKind = Decision['kind'];
type Of<K extends DecisionKind> = Extract<Decision, { kind: K }>;

export type IgnoreReason =
  /** The event is gone, or a replay started a newer attempt than the job's. */
  | 'stale_job'
  /** Delivered, skipped, failed or rejected already. */
  | 'finished'
  /** An arming job after the timer already fired. */
  | 'late_arming'
  /** A waiting event's job sent before its time (its worker died after scheduling the next try). */
  | 'not_due'
  /** The flow was deleted. */
  | 'flow_gone'
  /** Someone else (a replay, another worker) moved the event on. */
  | 'moved_on';

export interface ProfileNames {
  firstName: string | null;
  lastName: string | null;
}

/** The event as the decisions see it. */
export interface EventFacts {
  attempt: number;
  status: EventStatus;
  source: EventSource;
  topic: string | null;
  flowType: FlowType;
  dryRun: boolean;
}

/** Whether a job runs its event: only the attempt it was sent for, unfinished, and in its turn. */
export function decideJob(job: { attempt: number; arm: boolean }, event: Pick<EventFacts, 'attempt' | 'status'> | null): Of<'ignore' | 'go_on'> {
  if (!event || event.attempt !== job.attempt) return { kind: 'ignore', why: 'stale_job' };
  if (isFinished(event.status)) return { kind: 'ignore', why: 'finished' };
  // An arming job that comes late (the timer already fired) has nothing left to do.
  if (job.arm && event.status !== 'waiting') return { kind: 'ignore', why: 'late_arming' };
  // A waiting event's job is sent by the timer sweep when it is due. A job that finds it
  // waiting is one whose worker died after scheduling the next try: running it now would
  // try early, and twice.
  if (!job.arm && event.status === 'waiting') return { kind: 'ignore', why: 'not_due' };
  return { kind: 'go_on' };
}

/** The flow as it is now, not as it was when the event arrived. */
export function decideFlow(flow: { isActive: boolean } | null): Of<'ignore' | 'skip' | 'go_on'> {
  if (!flow) return { kind: 'ignore', why: 'flow_gone' };
  // Switched off since the event arrived (or before a replay): an inactive flow processes nothing.
  if (!flow.isActive) return { kind: 'skip', reason: m.flowSwitchedOff };
  return { kind: 'go_on' };
}

/** What the stored body normalised to, or why it could not be (normalizeEvent's answer). */
export type NormalizedBody = { ok: true; event: NormalizedEvent } | { ok: false; problem: string };

export function decideNormalized(body: NormalizedBody): Of<'fail' | 'go_on'> {
  return body.ok ? { kind: 'go_on' } : { kind: 'fail', reason: m.invalidPayload(body.problem) };
}

/**
 * Which facts `decideAdmission` needs looked up for this event, so that the pipeline asks
 * the database only what can change the answer: the timer rules and the one-follow-up
 * rule apply to an event's first attempt (a replay is the owner's explicit wish).
 */
export function admissionLookUps(event: EventFacts, timerKind: TimerKind | null, normalized: Pick<NormalizedEvent, 'completedAt'>): { whatEndedTimer: boolean; earlierOrder: boolean } {
  const rulesApply = event.attempt === 1 && signalOnlyReason(event) === null;
  return {
    whatEndedTimer: rulesApply && timerKind !== null && !(timerKind === 'checkout' && normalized.completedAt),
    earlierOrder: rulesApply && timerKind === null && event.source === 'shopify' && event.flowType === 'post_purchase',
  };
}

export interface AdmissionFacts {
  event: EventFacts;
  flow: { assistantCount: number };
  timerKind: TimerKind | null;
  /** This job runs when the event arrives, to arm its abandonment timer. */
  arming: boolean;
  normalized: Pick<NormalizedEvent, 'completedAt'> & { shopper: { email: string | null } };
  /** Why the timer must not fire (reasonTimerEnded), when `admissionLookUps` asked for it. */
  timerEndedReason: string | null;
  /** This order was followed up by this flow already, when `admissionLookUps` asked for it. */
  earlierOrder: boolean;
}

/**
 * Whether the event is one to write for at all: not a signal that only ends timers, its
 * timer not ended by what the shopper did next, its order not followed up already, its
 * shopper reachable, its flow with something to write. An arming job stops before the
 * flow's own checks: they are asked again when the timer fires.
 */
export function decideAdmission(facts: AdmissionFacts): Of<'skip' | 'fail' | 'wait_for_timer' | 'go_on'> {
  const { event, timerKind: kind } = facts;
  if (event.attempt === 1) {
    const signalOnly = signalOnlyReason(event);
    if (signalOnly) return { kind: 'skip', reason: signalOnly };
    if (kind === 'checkout' && facts.normalized.completedAt) return { kind: 'skip', reason: m.checkoutCompleted };
    if (kind && facts.timerEndedReason) return { kind: 'skip', reason: facts.timerEndedReason };
    if (event.source === 'shopify' && event.flowType === 'post_purchase' && facts.earlierOrder) return { kind: 'skip', reason: m.orderFollowedUp };
  }
  // The cart's shopper may still show up through the pixel; the other kinds are known by now.
  const waitingForShopper = kind === 'cart' && facts.arming;
  if (!facts.normalized.shopper.email && !waitingForShopper) {
    return { kind: 'skip', reason: kind === 'cart' ? m.cartWithoutIdentity : kind === 'browse' ? m.guestView : m.noEmail };
  }
  if (facts.arming) return { kind: 'wait_for_timer' };
  if (facts.flow.assistantCount === 0) return { kind: 'fail', reason: m.noAssistants };
  return { kind: 'go_on' };
}

/** Nothing can be written or delivered without the owner's API credentials. */
export function decideCredentials(found: boolean): Of<'fail' | 'go_on'> {
  return found ? { kind: 'go_on' } : { kind: 'fail', reason: m.noCredentials };
}

/**
 * The pixel's products as the owner's shop describes them, and nothing else: a pixel
 * event needs products the shop knows, and a connected shop to know them.
 */
export function decidePixelProducts(facts: { products: Array<{ id: string | null; isShopifyProduct: boolean }>; shopConnected: boolean }): Of<'skip' | 'go_on'> {
  if (facts.products.length === 0) return { kind: 'skip', reason: m.pixelWithoutProduct };
  const notShopify = facts.products.find((product) => !product.isShopifyProduct);
  if (notShopify) return { kind: 'skip', reason: m.unknownShopifyProduct(notShopify.id ?? '') };
  if (!facts.shopConnected) return { kind: 'skip', reason: m.shopNotConnected };
  return { kind: 'go_on' };
}

/** A product the shop was asked about and does not know ends the pixel event. */
export function decideShopProduct(product: { id: string | null; foundInShop: boolean }): Of<'skip' | 'go_on'> {
  return product.foundInShop ? { kind: 'go_on' } : { kind: 'skip', reason: m.unknownShopifyProduct(product.id ?? '') };
}

/** A pixel event only updates shoppers the owner's Klaviyo account already has (known-shoppers.ts). */
export function decideKnownShopper(profileFound: boolean): Of<'skip' | 'go_on'> {
  return profileFound ? { kind: 'go_on' } : { kind: 'skip', reason: m.unknownPixelShopper };
}

/**
 * The flow's daily budget (docs/decisions/0022-budgets.md): once what the flow spent
 * today (UTC) reaches it, the event waits for the next UTC day, or is skipped, as the
 * owner chose. `spentTodayUsd` is null when the flow has no budget (nothing was looked up).
 */
export function decideBudget(flow: { dailyBudgetUsd: number | null; overBudget: 'wait' | 'skip' }, spentTodayUsd: number | null, now: Date): Of<'skip' | 'wait' | 'go_on'> {
  if (flow.dailyBudgetUsd === null || spentTodayUsd === null || spentTodayUsd < flow.dailyBudgetUsd) return { kind: 'go_on' };
  if (flow.overBudget === 'skip') return { kind: 'skip', reason: m.budgetSkipped(flow.dailyBudgetUsd) };
  const nextDay = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  return { kind: 'wait', for: 'budget', until: nextDay, reason: m.budgetWait(flow.dailyBudgetUsd, nextDay) };
}

/**
 * The per-shopper cooldown counts an event's first attempt only: not a replay (the
 * owner's explicit wish) nor a console test send. The daily cap counts every generating
 * event, replays included.
 */
export function shopperUnderCooldown(event: Pick<EventFacts, 'attempt' | 'source'>, email: string): string | null {
  return event.attempt === 1 && event.source !== 'test' ? email : null;
}

/** The caps were reserved in one statement (generation-cap-queries.ts); a refusal says which rule. */
export function decideCaps(refusal: { rule: 'shopper'; hours: number } | { rule: 'daily'; cap: number } | null): Of<'skip' | 'go_on'> {
  if (!refusal) return { kind: 'go_on' };
  return { kind: 'skip', reason: refusal.rule === 'shopper' ? m.shopperCooldown(refusal.hours) : m.dailyCapReached(refusal.cap) };
}

/**
 * Whether this job writes the texts: a job that resumes after a crash finds the event
 * generating or delivering already and goes on; one that finds it moved on by someone
 * else (a replay, another worker) has nothing to do.
 */
export function decideGenerationStart(movedToGenerating: boolean, statusFound: EventStatus): Of<'ignore' | 'generate'> {
  if (!movedToGenerating && statusFound === 'received') return { kind: 'ignore', why: 'moved_on' };
  return { kind: 'generate' };
}

/**
 * Whether this job writes the texts to the profile. A job whose worker stopped sending
 * heartbeats (killed, or too busy to reach the database in time) is handed to another
 * worker while the first may still be running it: both then reach this point. Only one
 * moves the event from generating to delivering; the other finds it moved and stops,
 * so the profile is written once. A job that found the event delivering when it started
 * takes over from a run that got that far and stopped (a crash, a database outage), and
 * delivers. Left open: a run that stops sending heartbeats during its Klaviyo call itself;
 * the one that takes over writes the same properties again
 * (docs/decisions/0061-one-delivery-when-a-job-runs-twice.md).
 */
export function decideDeliveryStart(movedToDelivering: boolean, statusFound: EventStatus): Of<'ignore' | 'go_on'> {
  if (!movedToDelivering && statusFound !== 'delivering') return { kind: 'ignore', why: 'moved_on' };
  return { kind: 'go_on' };
}

/**
 * One call's (or one settled text's) outcome, as text-generation.ts got it: its texts, the
 * error it threw, or the end it gave the event (`ended`, as the step said it: a key OpenAI refuses).
 */
export type GenerationOutcome<G, E = never> = { ok: true; generations: G[] } | { ok: false; error: unknown; retryable: boolean } | { ok: false; ended: E };

/**
 * What the texts of all assistants come to: an error nobody expected, or an end a call
 * gave the event, goes up as it is (the first of them); any text that failed for good
 * fails the event with every such reason; a call that failed for now is tried again later
 * (the texts that arrived are kept); else all are written.
 */
export function settleGenerations<G extends { status: 'succeeded' | 'failed'; error: string | null }, E = never>(
  outcomes: GenerationOutcome<G, E>[],
): Of<'fail'> | { kind: 'ended'; ended: E } | { kind: 'try_again'; error: unknown } | { kind: 'unexpected'; error: unknown } | { kind: 'written'; generations: G[] } {
  const failures: string[] = [];
  const generations: G[] = [];
  let tryAgain: { error: unknown } | null = null;
  for (const outcome of outcomes) {
    if (!outcome.ok) {
      if ('ended' in outcome) return { kind: 'ended', ended: outcome.ended };
      if (!outcome.retryable) return { kind: 'unexpected', error: outcome.error };
      tryAgain ??= { error: outcome.error };
      continue;
    }
    for (const generation of outcome.generations) {
      if (generation.status === 'succeeded') generations.push(generation);
      else failures.push(generation.error ?? '');
    }
  }
  if (failures.length > 0) return { kind: 'fail', reason: failures.join(' ') };
  if (tryAgain) return { kind: 'try_again', error: tryAgain.error };
  return { kind: 'written', generations };
}

/**
 * After the texts: a console dry run ends here; anything else delivers them. Names the
 * profile already has (pixel shoppers' come from it) are not written back.
 */
export function decideAfterTexts(facts: {
  event: Pick<EventFacts, 'source' | 'dryRun'>;
  fromPixel: boolean;
  shopper: ProfileNames;
  texts: Array<{ klaviyoProperty: string; text: string | null }>;
}): Of<'skip' | 'deliver'> {
  if (facts.event.source === 'test' && facts.event.dryRun) return { kind: 'skip', reason: dryRunOutcome };
  const properties = Object.fromEntries(facts.texts.map((generation) => [generation.klaviyoProperty, generation.text!]));
  const names = facts.fromPixel ? { firstName: null, lastName: null } : { firstName: facts.shopper.firstName, lastName: facts.shopper.lastName };
  return { kind: 'deliver', properties, names };
}

/**
 * How a delivery goes (docs/decisions/0020-klaviyo-batches.md): one finished or batched
 * already is left as it is; with the account's limits known and bulk delivery on, a
 * delivery that has not written its profile yet goes as a single write only when there
 * is no backlog (`single_unless_backlog`: ask `decideUnderBacklog`); else a single write.
 */
export type DeliveryMode = 'already_delivered' | 'already_batched' | 'single' | 'single_unless_backlog';

export function decideDeliveryMode(
  delivery: { delivered: boolean; batched: boolean; profileWritten: boolean; holdout: boolean },
  setup: { accountLimited: boolean; bulkDelivery: boolean; sandbox: boolean },
): DeliveryMode {
  if (delivery.delivered) return 'already_delivered';
  if (delivery.batched) return 'already_batched';
  // A holdout's delivery clears properties, which only a single profile write can do.
  if (delivery.holdout) return 'single';
  // The sandbox's deliveries never join a batch: a batch is sent with the credentials of
  // when it goes, which may be the real ones by then.
  if (!delivery.profileWritten && setup.accountLimited && setup.bulkDelivery && !setup.sandbox) return 'single_unless_backlog';
  return 'single';
}

/**
 * Under a backlog the delivery joins the account's next bulk import: deliveries of the
 * account already wait for one, or its single-write slot is not free at this moment.
 * `slotFree` is asked only when nothing is queued (taking the slot is what asks).
 */
export function decideUnderBacklog(facts: { deliveriesQueued: true } | { deliveriesQueued: false; slotFree: boolean }): 'single' | 'bulk' {
  if (facts.deliveriesQueued) return 'bulk';
  return facts.slotFree ? 'single' : 'bulk';
}

/** A failed service call, as the retry rules see it (ServiceError's classification). */
export interface ServiceFailure {
  retryable: boolean;
  retryAfterMs: number | null;
  message: string;
}

/**
 * A service call failed (docs/decisions/0014-patient-retries-and-caps.md): the event
 * waits for its next try, unless the failure is permanent, the service asks for a longer
 * wait than allowed, or the step has used its tries; then it fails with the service's
 * message and the owner can replay it. Tries count per step: one that got further than
 * the last failure (`progress` beyond the event's `retryProgress`) starts the count again.
 * `random` (0 to 1) spreads the wait by the policy's jitter.
 */
export function decideAfterServiceFailure(facts: {
  policy: RetryPolicy;
  failure: ServiceFailure;
  progress: number;
  event: { retryCount: number; retryProgress: number };
  now: Date;
  random: number;
}): Of<'retry' | 'give_up'> {
  const { policy, failure, progress, event } = facts;
  const failedTries = progress > event.retryProgress ? 1 : event.retryCount + 1;
  const refusal = retryRefusal(policy, failure, failedTries);
  if (refusal) {
    const reason = refusal === 'tries_used_up' ? m.triesUsedUp(failure.message, failedTries) : refusal === 'wait_too_long' ? m.retryTooLate(failure.message) : failure.message;
    return { kind: 'give_up', why: refusal, failedTries, reason };
  }
  const at = new Date(facts.now.getTime() + nextTryDelay(policy, failedTries, failure.retryAfterMs, () => facts.random));
  return { kind: 'retry', at, failedTries, progress, reason: m.retrying(failure.message, at, failedTries + 1, policy.tries) };
}

/**
 * A rate limit of ours frees its next slot later than a worker waits: the event waits for
 * it like for a scheduled try, but it is no failure, so the step's tries are not counted.
 */
export function decideRateLimitWait(service: 'klaviyo' | 'shopify', until: Date): Of<'wait'> {
  return { kind: 'wait', for: 'rate_limit', until, reason: m.rateLimitWait(serviceTitles[service], until) };
}

/**
 * What one assistant's text needs before any call (docs/decisions/0021-one-call-per-model.md):
 * a text stored for this attempt from the same request is kept; a prompt that renders
 * empty fails that text (and with it the event); anything else is looked for, in an
 * earlier attempt's texts (replays only) and, when the prompt names nothing of the
 * shopper and the flow has a reuse window, in the generation cache, and else written.
 */
export type AssistantTextPlan = { kind: 'keep' } | { kind: 'template_empty'; reason: string } | { kind: 'find'; earlierAttempt: boolean; cacheable: boolean };

export function planAssistantText(facts: {
  attempt: number;
  assistantName: string;
  request: { prompt: string; model: string; instructions: string | null };
  /** The placeholders the event lacks, when the prompt rendered empty. */
  missing: string[];
  stored: { status: 'succeeded' | 'failed'; prompt: string; model: string; instructions: string | null } | undefined;
  reuseWindowHours: number;
  promptNamesShopper: boolean;
}): AssistantTextPlan {
  const { stored, request } = facts;
  if (stored?.status === 'succeeded' && stored.prompt === request.prompt && stored.model === request.model && stored.instructions === request.instructions) return { kind: 'keep' };
  if (!request.prompt) return { kind: 'template_empty', reason: m.templateEmpty(facts.assistantName, facts.missing) };
  return { kind: 'find', earlierAttempt: facts.attempt > 1, cacheable: facts.reuseWindowHours > 0 && !facts.promptNamesShopper };
}

/**
 * OpenAI's flex tier for flows that wait long enough (when the owner allows it and the
 * model offers it): a text that arrives a few minutes later costs about half. The
 * sandbox is for seeing texts now: its waits are skipped, so is the slow tier.
 */
export function decideServiceTier(facts: { sandbox: boolean; useFlexTier: boolean; waitMinutes: number | null; modelOffersFlex: boolean; flexMinWaitMinutes: number }): 'flex' | 'standard' {
  return !facts.sandbox && facts.useFlexTier && (facts.waitMinutes ?? 0) >= facts.flexMinWaitMinutes && facts.modelOffersFlex ? 'flex' : 'standard';
}

/** A flex call refused (429 resource_unavailable) or not answered in time goes to the standard tier at once; any other failure is the call's. */
export function fallsBackFromFlex(code: string): boolean {
  return code === 'resource_unavailable' || code === 'timeout';
}

/**
 * One assistant's text from an answer (only a complete answer gives text): without it,
 * the row says the answer was cut off (incomplete, and why), or why there was no text.
 */
export function decideAnswerText(facts: { assistantName: string; text: string | null; incomplete: string | null; noTextReason: string }): { status: 'succeeded'; error: null } | { status: 'failed'; error: string } {
  if (facts.text) return { status: 'succeeded', error: null };
  return { status: 'failed', error: facts.incomplete ? m.answerCutOff(facts.assistantName, facts.incomplete) : m.noText(facts.assistantName, facts.noTextReason) };
}

/**
 * A call that failed, in each of its assistants' rows: a failure for now says what went
 * wrong (the event is tried again); a permanent one adds what the owner can change, in
 * words, since the same request would be refused again.
 */
export function failedTextReason(facts: { assistantName: string; model: string; failure: { retryable: boolean; message: string; code: string; status: number | null } }): string {
  const { failure } = facts;
  return m.generationFailed(facts.assistantName, failure.retryable ? failure.message : `${failure.message} ${openAiRefusalInWords(failure, facts.model)}`);
}

/** The cause of a permanent OpenAI answer (400, 401, 403, 404, 413, 422, an exhausted quota, an answer not understood) in the owner's words. */
function openAiRefusalInWords(failure: { code: string; status: number | null }, model: string): string {
  switch (failure.code) {
    case 'unauthorized':
      return m.openAiRefused.unauthorized;
    case 'forbidden':
      return m.openAiRefused.forbidden;
    case 'not_found':
      return m.openAiRefused.notFound(model);
    case 'insufficient_quota':
      return m.openAiRefused.quota;
    case 'invalid_response':
      return m.openAiRefused.notUnderstood;
    default:
      return failure.status === 413 ? m.openAiRefused.tooLarge : m.openAiRefused.badRequest;
  }
}

/**
 * What becomes of a written text after its checks (docs/decisions/0040-texts-checked-before-delivery.md):
 * a pass goes out; a first failure is written again once, naming the failures; a second
 * failure sends the assistant's fallback text when the flow says so and one can be filled
 * in, else nothing.
 */
export function decideCheckedText(facts: {
  rewritten: boolean;
  failures: number;
  onFailedChecks: 'fallback' | 'nothing';
  fallbackAvailable: boolean;
}): { kind: 'deliver'; delivered: 'written' | 'rewritten' } | { kind: 'rewrite' } | { kind: 'fallback' } | { kind: 'nothing' } {
  if (facts.failures === 0) return { kind: 'deliver', delivered: facts.rewritten ? 'rewritten' : 'written' };
  if (!facts.rewritten) return { kind: 'rewrite' };
  return facts.onFailedChecks === 'fallback' && facts.fallbackAvailable ? { kind: 'fallback' } : { kind: 'nothing' };
}

/**
 * After the checks: a text the flow withholds skips the whole event. Sending the other
 * texts alone would leave the withheld property as an earlier event wrote it on the
 * profile, and the email would use that stale text beside the new ones.
 */
export function decideAfterChecks(texts: ReadonlyArray<{ assistantName: string; withheld: boolean }>): Of<'skip' | 'go_on'> {
  const withheld = texts.filter((text) => text.withheld).map((text) => text.assistantName);
  return withheld.length > 0 ? { kind: 'skip', reason: textCheckOutcomeMessages.nothingSent(withheld) } : { kind: 'go_on' };
}

/**
 * A flow that requires approval: approved texts go out; pending ones wait for the owner
 * while their moment lasts, and are skipped after it; rejected ones are skipped.
 */
export function decideApproval(review: { status: 'pending' | 'approved' | 'rejected' | 'expired'; expired: boolean }): { kind: 'deliver' } | { kind: 'wait' } | Of<'skip'> {
  if (review.status === 'approved') return { kind: 'deliver' };
  if (review.status === 'rejected') return { kind: 'skip', reason: reviewMessages.rejected };
  if (review.status === 'expired' || review.expired) return { kind: 'skip', reason: reviewMessages.expired };
  return { kind: 'wait' };
}
