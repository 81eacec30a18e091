import { findFlowById, type FlowRecord } from '../../flows/flow-queries.ts';
import { deferEvent, findEventById, hasEarlierOrderEvent, saveNormalizedEvent, scheduleEventRetry, setEventStatus, type EventRecord } from '../../events/event-queries.ts';
import { endTimersEndedBy, findReasonTimerEnded } from '../timers/shopper-timers.ts';
import { timerKindOf } from '../timers/timer-rules.ts';
import { findCartShopper } from '../timers/shopper-timer-queries.ts';
import type { NormalizedEvent } from '../../../shared/events/event-schemas.ts';
import { normalizeEvent } from './event-normalizer.ts';
import { failPendingDelivery, progressOf } from '../../deliveries/delivery-queries.ts';
import { ServiceError, serviceTitles } from '../../integrations/service-error.ts';
import { withShopperContext } from '../shop-facts/shopper-context.ts';
import type { EventToWrite } from '../writing/prompt-rendering.ts';
import type { ProfilePropertyValue } from '../../../shared/flows/recommendation-schemas.ts';
import { RateLimitWait } from './rate-limit-wait.ts';
import { reserveGenerationCaps } from '../limits/generation-cap-queries.ts';
import { shopifyProductGid, type ShopifyProductDetails } from '../../integrations/shopify/shopify-products.ts';
import { fillProductDetails, lookUpProducts, productDetailsDeps, shopOf, SHOP_NOT_CONNECTED } from '../shop-facts/shop-product-details.ts';
import {
  admissionLookUps,
  decideAdmission,
  decideAfterServiceFailure,
  decideAfterTexts,
  decideCaps,
  decideCredentials,
  decideFlow,
  decideDeliveryStart,
  decideGenerationStart,
  decideJob,
  decideNormalized,
  decidePixelProducts,
  decideRateLimitWait,
  decideShopProduct,
  shopperUnderCooldown,
  type NormalizedBody,
} from './pipeline-core.ts';
import { CredentialDecryptionError } from '../../platform/credential-cipher.ts';
import { parseJsonText } from '../../platform/json-text.ts';
import type { PipelineContext } from './pipeline-context.ts';
import { ended, endedBy, goOn, type Ended, type EventEnd, type StepResult } from './step-result.ts';
import { tellFlowStopped } from './flow-stops.ts';
import { generateTexts } from '../writing/text-generation.ts';
import { experimentGroupFor } from '../../experiments/experiment-assignment.ts';
import { creditExperimentOrder } from '../../experiments/experiment-queries.ts';
import { HOLDOUT_ARM } from '../../../shared/experiments/experiment-settings.ts';
import { requireApproval } from '../checking/text-approval.ts';
import type { EngineCredentials } from './engine-credentials.ts';
import { requireKnownShopper } from '../shop-facts/known-shoppers.ts';
import { deliver } from '../delivery/klaviyo-delivery.ts';
import { requireRoomInBudget } from '../limits/generation-budget.ts';
import { attributeOrder } from '../../attribution/order-attribution.ts';
import { profilePropertiesWritten } from '../../flows/flow-properties.ts';

export type { PipelineContext, PipelineObserver, PipelineOptions } from './pipeline-context.ts';

/**
 * Processes one attempt of one event: normalise, generate every assistant's text,
 * deliver them to Klaviyo. Each step stores its result before the next starts, so a
 * retried job (after a crash or a stop) resumes where the last one got to. Expected
 * failures end the event as failed or skipped with a reason; only unexpected errors (the
 * database going away) escape, and the job is then retried. What to do at each point is
 * pipeline-core.ts's decision, on the facts looked up here; this carries it out. A step
 * that ends the event returns its end (step-result.ts), and this is the one place that
 * stores it.
 */
export async function processEvent(context: PipelineContext, job: { eventId: string; attempt: number; arm?: boolean }, signal: AbortSignal): Promise<void> {
  const { pool } = context;
  const event = await findEventById(pool, job.eventId);
  // `!event` is the core's first rule too; asked here again so the type knows the event is there.
  if (decideJob({ attempt: job.attempt, arm: job.arm === true }, event).kind === 'ignore' || !event) return;
  let end: Ended | null;
  try {
    end = await runPipeline(context, event, { signal, arming: job.arm === true });
  } catch (error) {
    if (error instanceof ServiceError && !signal.aborted) {
      await retryLaterOrFail(context, event, error);
      return;
    }
    if (error instanceof RateLimitWait && !signal.aborted) {
      await waitForRateLimit(context, event, error);
      return;
    }
    throw error;
  }
  if (end) await finishWithoutDelivery(context, event, end.outcome);
}

/** The event ends as a step said: skipped or failed, with its reason, and the owner told when the flow stopped writing. */
async function finishWithoutDelivery(context: PipelineContext, event: EventRecord, end: EventEnd): Promise<void> {
  const { pool } = context;
  await failPendingDelivery(pool, event.id, event.attempt, end.reason);
  const finished = await setEventStatus(pool, event, end.status, end.reason);
  if (finished) context.observer?.eventFinished(end.status);
  if (finished && end.stop) await tellFlowStopped(context, event, end.stop);
  context.logger.info({ eventId: event.id, status: end.status, reason: end.reason }, 'event finished without delivery');
}

/**
 * A rate limit's next slot is further off than a worker waits: the event waits for it like
 * for a scheduled try, but it is no failure, so the step's tries are not counted and the
 * event log says what it waits for.
 */
async function waitForRateLimit(context: PipelineContext, event: EventRecord, wait: RateLimitWait): Promise<void> {
  const decision = decideRateLimitWait(wait.service, wait.until);
  if (await deferEvent(context.pool, event.id, event.attempt, { until: decision.until, reason: decision.reason })) {
    context.onWaiting?.(decision.until);
  }
  context.logger.info({ eventId: event.id, service: wait.service, until: wait.until }, 'rate limit slot is further off than a worker waits; the event waits for it');
}

/**
 * A service call failed: the event waits for its next try (the timer sweep sends its job
 * when it is due, on the app's clock), unless the failure is permanent, the service asks
 * for a longer wait than allowed, or the step has used its tries; then it fails with the
 * service's message and the owner can replay it. Tries count per step: one that got
 * further than the last failure starts the count again.
 */
async function retryLaterOrFail(context: PipelineContext, event: EventRecord, error: ServiceError): Promise<void> {
  const { pool, options } = context;
  const progress = await progressOf(pool, event.id, event.attempt);
  const decision = decideAfterServiceFailure({ policy: options.retry, failure: error, progress, event, now: context.clock.now(), random: Math.random() });
  const { failedTries } = decision;
  if (decision.kind === 'give_up') {
    await failPendingDelivery(pool, event.id, event.attempt, decision.reason);
    if (await setEventStatus(pool, event, 'failed', decision.reason)) {
      context.observer?.eventFinished('failed');
      // A key the service refuses is the owner's to replace; other failures pass by themselves.
      if (error.code === 'unauthorized' || error.code === 'forbidden') await tellFlowStopped(context, event, { reason: 'key_refused', detail: serviceTitles[error.service] });
    }
    context.logger.info({ eventId: event.id, code: error.code, failedTries }, 'service call failed; the event failed');
    return;
  }
  const nextTryAt = decision.at;
  const scheduled = await scheduleEventRetry(pool, event.id, event.attempt, { nextTryAt, retryCount: failedTries, retryProgress: decision.progress, error: decision.reason });
  if (scheduled) context.onWaiting?.(nextTryAt);
  context.logger.info({ eventId: event.id, code: error.code, failedTries, nextTryAt }, 'service call failed; the next try is scheduled');
}

/**
 * The event's way through the steps, as far as this job takes it: the end a step or a
 * decision gave it (processEvent stores it), or null when it was delivered, batched, put
 * to wait, or left as it is.
 */
async function runPipeline(context: PipelineContext, event: EventRecord, job: { signal: AbortSignal; arming: boolean }): Promise<Ended | null> {
  const { pool } = context;
  const { signal, arming } = job;
  const flow = await findFlowById(pool, event.flowId);
  const onFlow = decideFlow(flow);
  if (onFlow.kind !== 'go_on' || !flow) return endedBy(onFlow);
  const stored = event.normalized ? goOn(event.normalized) : await normalizeStored(context, event);
  if (stored.kind === 'ended') return stored;
  let normalized = stored.value;
  const kind = timerKindOf(event);
  if (kind === 'cart' && !normalized.shopper.email) {
    normalized = await withCartShopper(context, event, normalized);
  }
  // Before anything can end the event: an order sent only as a signal still earns its credit.
  const order = await attributeOrder(pool, context.logger, event, normalized);
  // The experiments count every exposed shopper's orders, held out or not (0042).
  if (order) await creditExperimentOrder(pool, order);
  // A replay is the owner's explicit wish: timers and what ended them are not asked again.
  if (event.attempt === 1) await endTimersEndedBy(pool, event, context.logger);
  const lookUps = admissionLookUps(event, kind, normalized);
  const admission = decideAdmission({
    event,
    flow: { assistantCount: flow.assistants.length },
    timerKind: kind,
    arming,
    normalized,
    timerEndedReason: kind && lookUps.whatEndedTimer ? await findReasonTimerEnded(pool, kind, event) : null,
    earlierOrder: lookUps.earlierOrder && (await hasEarlierOrderEvent(pool, event)),
  });
  // An arming job stops here (wait_for_timer): the timer sweep sends the event's job when its wait is over.
  if (admission.kind !== 'go_on') return endedBy(admission);
  const credentials = await context.loadCredentials(pool, event.userId, event.receivedAt);
  const onCredentials = decideCredentials(credentials !== null);
  if (onCredentials.kind !== 'go_on' || !credentials) return endedBy(onCredentials);
  // A connection made by OAuth is gone: the event waits for the owner to reconnect.
  if (credentials.connectionProblem) throw new ServiceError(credentials.connectionProblem.service, 'unauthorized', credentials.connectionProblem.detail, { kind: 'retryable' });

  // What the public pixel says is never used for content: its shopper's name comes from
  // the owner's Klaviyo profile, its products from the owner's shop. A cart's shopper
  // always comes from the pixel, so it is held to the same rule.
  const fromPixel = event.source === 'pixel' || kind === 'cart';
  const email = normalized.shopper.email!;
  let described: NormalizedEvent;
  if (fromPixel) {
    const profile = await requireKnownShopper(context, { event, email, credentials, signal });
    if (profile.kind === 'ended') return profile;
    const shopper = { ...normalized.shopper, firstName: profile.value.firstName, lastName: profile.value.lastName };
    const fromShop =
      event.source === 'pixel'
        ? await withShopProductsOnly(context, { event, normalized: { ...normalized, shopper }, credentials, signal })
        : goOn(await withProductDetails(context, { event, normalized: { ...normalized, shopper }, credentials, signal }));
    if (fromShop.kind === 'ended') return fromShop;
    described = fromShop.value;
  } else {
    described = await withProductDetails(context, { event, normalized, credentials, signal });
  }

  // The budget first: an event that waits for tomorrow's budget has not used today's caps.
  const budget = await requireRoomInBudget(context, event, flow);
  if (budget.kind === 'ended') return budget;
  if (!budget.value) return null;
  const caps = await requireRoomUnderCaps(context, event, flow, email);
  if (caps.kind === 'ended') return caps;
  // After the caps, so the holdout is drawn from the same shoppers the texts would reach.
  const experiment = await experimentGroupFor(pool, event, email, context.clock.now());
  const moved = await setEventStatus(pool, event, 'generating');
  if (decideGenerationStart(moved, event.status).kind === 'ignore') return null;
  if (experiment?.group === HOLDOUT_ARM) {
    await deliverHoldout(context, { event, flow, email, credentials, properties: experiment.properties, signal });
    return null;
  }
  const writing = experiment?.prompts ? withArmPrompts(flow, experiment.prompts) : flow;
  // What the prompts ask of the shopper, read now and for these prompts only (never stored).
  const toWrite = await withShopperContext(context, { event, needs: writing, described, credentials, signal, useContext: experiment?.shopperContext ?? true });
  const texts = await generateTexts(context, { event, flow: writing, described: toWrite, credentials, signal });
  if (texts.kind === 'ended') return texts;
  const afterTexts = decideAfterTexts({ event, fromPixel, shopper: normalized.shopper, texts: texts.value });
  if (afterTexts.kind !== 'deliver') return endedBy(afterTexts);
  const approval = await requireApproval(context, event, flow);
  if (approval.kind === 'ended') return approval;
  if (!approval.value) return null;
  if (!(await startDelivering(context, event))) return null;
  const properties = { ...afterTexts.properties, ...recommendationProperty(flow, toWrite), ...experiment?.properties };
  if ((await deliver(context, { event, flow, email, names: afterTexts.names, credentials, properties, signal })) === 'batched') {
    context.logger.info({ eventId: event.id, attempt: event.attempt }, 'delivery joined a bulk import batch');
    return null;
  }
  if (await setEventStatus(pool, event, 'delivered')) context.observer?.eventFinished('delivered');
  context.logger.info({ eventId: event.id, attempt: event.attempt }, 'event delivered');
  return null;
}

/**
 * The recommendations as a list on the profile, when the flow names a property for them;
 * an empty list when there are none for this shopper, so an earlier event's do not linger.
 */
function recommendationProperty(flow: FlowRecord, toWrite: EventToWrite): Record<string, ProfilePropertyValue> {
  const property = flow.recommendations.profileProperty;
  return property ? { [property]: toWrite.recommendations ?? [] } : {};
}

/** The flow as an experiment's arm writes: each assistant with the arm's prompt (assistants added since the arm was set keep their own). */
function withArmPrompts(flow: FlowRecord, prompts: Record<string, string>): FlowRecord {
  return { ...flow, assistants: flow.assistants.map((assistant) => ({ ...assistant, prompt_template: prompts[assistant.klaviyo_property] ?? assistant.prompt_template })) };
}

/** Moves the event to delivering; false, said in the log, when another run of its job got there first (pipeline-core.ts). */
async function startDelivering(context: PipelineContext, event: EventRecord): Promise<boolean> {
  const moved = await setEventStatus(context.pool, event, 'delivering');
  if (decideDeliveryStart(moved, event.status).kind === 'go_on') return true;
  context.logger.info({ eventId: event.id, attempt: event.attempt }, 'another run of this event job moved it on; this run stops before delivering');
  return false;
}

/**
 * A holdout shopper gets the shop's ordinary email: no text is written, the flow's
 * properties are cleared from their profile (so the email falls back to its default
 * copy), and the Klaviyo event still goes, marked as holdout (docs/decisions/0043-experiments.md).
 */
async function deliverHoldout(
  context: PipelineContext,
  delivery: { event: EventRecord; flow: FlowRecord; email: string; credentials: EngineCredentials; properties: Record<string, string>; signal: AbortSignal },
): Promise<void> {
  const { event, flow } = delivery;
  if (!(await startDelivering(context, event))) return;
  const unset = profilePropertiesWritten(flow);
  await deliver(context, { ...delivery, names: { firstName: null, lastName: null }, holdout: { unset } });
  if (await setEventStatus(context.pool, event, 'delivered')) context.observer?.eventFinished('delivered');
  context.logger.info({ eventId: event.id, attempt: event.attempt }, 'holdout shopper: flow properties cleared');
}

/**
 * The flow's caps, before any OpenAI call: one generation per shopper per cooldown (not
 * for replays, the owner's explicit wish, nor for console test sends) and a daily number
 * of generating events per flow, replays included.
 */
async function requireRoomUnderCaps(context: PipelineContext, event: EventRecord, flow: FlowRecord, email: string): Promise<StepResult<void>> {
  const refusal = await reserveGenerationCaps(context.pool, {
    eventId: event.id,
    attempt: event.attempt,
    flowId: flow.id,
    shopperEmail: shopperUnderCooldown(event, email),
    shopperCooldownHours: flow.shopperCooldownHours,
    dailyGenerationCap: flow.dailyGenerationCap,
    now: context.clock.now(),
  });
  const decision = decideCaps(refusal);
  if (decision.kind === 'skip' && refusal?.rule === 'daily') return ended('skipped', decision.reason, { reason: 'daily_cap', detail: refusal.cap.toLocaleString('en-US') });
  return endedBy(decision) ?? goOn();
}

/**
 * The pixel's products as the owner's shop describes them, and nothing else: a product
 * the shop does not know, or a shop that is not connected, skips the event with that
 * reason; a shop that cannot be asked right now is tried again like any other service.
 */
async function withShopProductsOnly(context: PipelineContext, pixel: DescribedFor): Promise<StepResult<NormalizedEvent>> {
  const { event, normalized, credentials, signal } = pixel;
  const gids = normalized.products.map((product) => shopifyProductGid(product.id));
  const tokens = shopOf(context, credentials);
  const products = normalized.products.map((product, index) => ({ id: product.id, isShopifyProduct: gids[index] !== null }));
  const unaskable = endedBy(decidePixelProducts({ products, shopConnected: tokens !== undefined }));
  if (unaskable) return unaskable;
  if (!tokens) return goOn(normalized);
  const found = new Map<string, ShopifyProductDetails | null>();
  let outcome: typeof SHOP_NOT_CONNECTED | null;
  try {
    outcome = await lookUpProducts(productDetailsDeps(context, tokens, credentials), { userId: event.userId, gids: gids as string[], found, signal });
  } catch (error) {
    if (!signal.aborted && error instanceof CredentialDecryptionError) return ended('failed', error.message);
    throw error;
  }
  const notConnected = endedBy(decidePixelProducts({ products, shopConnected: outcome !== SHOP_NOT_CONNECTED }));
  if (notConnected) return notConnected;
  const described: NormalizedEvent['products'] = [];
  for (const [index, product] of normalized.products.entries()) {
    const details = found.get(gids[index]!);
    const unknown = endedBy(decideShopProduct({ id: product.id, foundInShop: Boolean(details) }));
    if (unknown) return unknown;
    described.push(details ? { ...product, name: details.title, description: details.description, price: details.price?.amount ?? null, url: details.url } : product);
  }
  const currency = found.get(gids[0]!)?.price?.currencyCode ?? null;
  return goOn({ ...normalized, products: described, currency });
}

/** The event whose products are described, and the credentials and signal of asking the shop. */
interface DescribedFor {
  event: EventRecord;
  normalized: NormalizedEvent;
  credentials: EngineCredentials;
  signal: AbortSignal;
}

/**
 * Products the event named without a description get it from the owner's shop. The
 * events table has no place for notes, so a failure to fetch is logged and the event
 * goes on without the description (docs/decisions/0010-shopify.md).
 */
async function withProductDetails(context: PipelineContext, asking: DescribedFor): Promise<NormalizedEvent> {
  const { event, normalized, credentials, signal } = asking;
  const tokens = shopOf(context, credentials);
  if (!tokens) return normalized;
  const { products, problems } = await fillProductDetails(productDetailsDeps(context, tokens, credentials), event.userId, normalized.products, signal);
  for (const problem of problems) context.logger.warn({ eventId: event.id, problem }, 'product details not fetched');
  return { ...normalized, products };
}

async function normalizeStored(context: PipelineContext, event: EventRecord): Promise<StepResult<NormalizedEvent>> {
  const body = normalizedBodyOf(event);
  const invalid = endedBy(decideNormalized(body));
  if (invalid) return invalid;
  if (!body.ok) throw new Error('unreachable: a body that did not normalise fails the event');
  await saveNormalizedEvent(context.pool, event.id, body.event);
  return goOn(body.event);
}

function normalizedBodyOf(event: EventRecord): NormalizedBody {
  let payload: unknown;
  try {
    // Shopify's 64-bit ids stay exact (as digit strings) through normalisation.
    payload = parseJsonText(event.rawBody ?? '');
  } catch {
    return { ok: false, problem: 'the stored body is not JSON' };
  }
  const result = normalizeEvent(event.source, event.topic, payload, event.receivedAt);
  return result.ok ? { ok: true, event: result.event } : { ok: false, problem: result.reason };
}

/** Shopify's carts name no shopper; the browsing pixel may have seen who holds the cart. */
async function withCartShopper(context: PipelineContext, event: EventRecord, normalized: NormalizedEvent): Promise<NormalizedEvent> {
  const shopper = await findCartShopper(context.pool, event.userId, event.cartToken);
  if (!shopper) return normalized;
  const identified = { ...normalized, shopper };
  // Stored (with its email key) so that an order or checkout of this shopper finds the cart.
  await saveNormalizedEvent(context.pool, event.id, identified);
  event.shopperEmail = shopper.email.toLowerCase();
  return identified;
}

