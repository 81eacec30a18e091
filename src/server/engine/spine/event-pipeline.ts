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
  decideGenerationStart,
  decideJob,
  decideNormalized,
  decidePixelProducts,
  decideRateLimitWait,
  decideShopProduct,
  shopperUnderCooldown,
  type Decision,
  type NormalizedBody,
} from './pipeline-core.ts';
import { CredentialDecryptionError } from '../../platform/credential-cipher.ts';
import { parseJsonText } from '../../platform/json-text.ts';
import { EventOutcome, type PipelineContext } from './pipeline-context.ts';
import { tellFlowStopped } from './flow-stops.ts';
import { generateTexts } from '../writing/text-generation.ts';
import { experimentGroupFor } from '../../experiments/experiment-assignment.ts';
import { creditExperimentOrder } from '../../experiments/experiment-queries.ts';
import { HOLDOUT_ARM } from '../../../shared/experiments/experiment-schemas.ts';
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
 * pipeline-core.ts's decision, on the facts looked up here; this carries it out.
 */
export async function processEvent(context: PipelineContext, job: { eventId: string; attempt: number; arm?: boolean }, signal: AbortSignal): Promise<void> {
  const { pool } = context;
  const event = await findEventById(pool, job.eventId);
  // `!event` is the core's first rule too; asked here again so the type knows the event is there.
  if (decideJob({ attempt: job.attempt, arm: job.arm === true }, event).kind === 'ignore' || !event) return;
  try {
    await runPipeline(context, event, signal, job.arm === true);
  } catch (error) {
    if (error instanceof EventOutcome) {
      await failPendingDelivery(pool, event.id, event.attempt, error.message);
      const ended = await setEventStatus(pool, event.id, event.attempt, error.status, error.message);
      if (ended) context.observer?.eventFinished(error.status);
      if (ended && error.stop) await tellFlowStopped(context, event, error.stop);
      context.logger.info({ eventId: event.id, status: error.status, reason: error.message }, 'event finished without delivery');
      return;
    }
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
    if (await setEventStatus(pool, event.id, event.attempt, 'failed', decision.reason)) {
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

async function runPipeline(context: PipelineContext, event: EventRecord, signal: AbortSignal, arming: boolean): Promise<void> {
  const { pool } = context;
  const flow = await findFlowById(pool, event.flowId);
  if (carryOutEnd(decideFlow(flow)) || !flow) return;
  let normalized = event.normalized ?? (await normalizeStored(context, event));
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
  // An arming job stops here: the timer sweep sends the event's job when its wait is over.
  if (carryOutEnd(admission) || admission.kind === 'wait_for_timer') return;
  const credentials = await context.loadCredentials(pool, event.userId, event.receivedAt);
  if (carryOutEnd(decideCredentials(credentials !== null)) || !credentials) return;
  // A connection made by OAuth is gone: the event waits for the owner to reconnect.
  if (credentials.connectionProblem) throw new ServiceError(credentials.connectionProblem.service, 'unauthorized', credentials.connectionProblem.detail, { kind: 'retryable' });

  // What the public pixel says is never used for content: its shopper's name comes from
  // the owner's Klaviyo profile, its products from the owner's shop. A cart's shopper
  // always comes from the pixel, so it is held to the same rule.
  const fromPixel = event.source === 'pixel' || kind === 'cart';
  let described: NormalizedEvent;
  if (fromPixel) {
    const profile = await requireKnownShopper(context, event, normalized.shopper.email!, credentials, signal);
    const shopper = { ...normalized.shopper, firstName: profile.firstName, lastName: profile.lastName };
    described = event.source === 'pixel' ? await withShopProductsOnly(context, event, { ...normalized, shopper }, credentials, signal) : await withProductDetails(context, event, { ...normalized, shopper }, credentials, signal);
  } else {
    described = await withProductDetails(context, event, normalized, credentials, signal);
  }

  // The budget first: an event that waits for tomorrow's budget has not used today's caps.
  if (!(await requireRoomInBudget(context, event, flow))) return;
  await requireRoomUnderCaps(context, event, flow, normalized.shopper.email!);
  // After the caps, so the holdout is drawn from the same shoppers the texts would reach.
  const experiment = await experimentGroupFor(pool, event, normalized.shopper.email!, context.clock.now());
  const moved = await setEventStatus(pool, event.id, event.attempt, 'generating');
  if (decideGenerationStart(moved, event.status).kind === 'ignore') return;
  if (experiment?.group === HOLDOUT_ARM) {
    await deliverHoldout(context, event, flow, normalized.shopper.email!, credentials, experiment.properties, signal);
    return;
  }
  const writing = experiment?.prompts ? withArmPrompts(flow, experiment.prompts) : flow;
  // What the prompts ask of the shopper, read now and for these prompts only (never stored).
  const toWrite = await withShopperContext(context, event, writing, described, credentials, signal, { useContext: experiment?.shopperContext ?? true });
  const generations = await generateTexts(context, event, writing, toWrite, credentials, signal);
  const afterTexts = decideAfterTexts({ event, fromPixel, shopper: normalized.shopper, texts: generations });
  if (carryOutEnd(afterTexts) || afterTexts.kind !== 'deliver') return;
  if (!(await requireApproval(context, event, flow))) return;
  await setEventStatus(pool, event.id, event.attempt, 'delivering');
  const properties = { ...afterTexts.properties, ...recommendationProperty(flow, toWrite), ...experiment?.properties };
  if ((await deliver(context, event, flow, normalized.shopper.email!, afterTexts.names, credentials, properties, signal)) === 'batched') {
    context.logger.info({ eventId: event.id, attempt: event.attempt }, 'delivery joined a bulk import batch');
    return;
  }
  if (await setEventStatus(pool, event.id, event.attempt, 'delivered')) context.observer?.eventFinished('delivered');
  context.logger.info({ eventId: event.id, attempt: event.attempt }, 'event delivered');
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

/**
 * A holdout shopper gets the shop's ordinary email: no text is written, the flow's
 * properties are cleared from their profile (so the email falls back to its default
 * copy), and the Klaviyo event still goes, marked as holdout (docs/decisions/0043-experiments.md).
 */
async function deliverHoldout(
  context: PipelineContext,
  event: EventRecord,
  flow: FlowRecord,
  email: string,
  credentials: EngineCredentials,
  properties: Record<string, string>,
  signal: AbortSignal,
): Promise<void> {
  await setEventStatus(context.pool, event.id, event.attempt, 'delivering');
  const unset = profilePropertiesWritten(flow);
  await deliver(context, event, flow, email, { firstName: null, lastName: null }, credentials, properties, signal, { unset });
  if (await setEventStatus(context.pool, event.id, event.attempt, 'delivered')) context.observer?.eventFinished('delivered');
  context.logger.info({ eventId: event.id, attempt: event.attempt }, 'holdout shopper: flow properties cleared');
}

/**
 * Carries out a decision that ends the event (processEvent stores it with its reason),
 * and answers whether the decision stops this job.
 */
function carryOutEnd(decision: Decision): boolean {
  if (decision.kind === 'skip') throw new EventOutcome('skipped', decision.reason);
  if (decision.kind === 'fail') throw new EventOutcome('failed', decision.reason);
  return decision.kind === 'ignore';
}

/**
 * The flow's caps, before any OpenAI call: one generation per shopper per cooldown (not
 * for replays, the owner's explicit wish, nor for console test sends) and a daily number
 * of generating events per flow, replays included.
 */
async function requireRoomUnderCaps(context: PipelineContext, event: EventRecord, flow: FlowRecord, email: string): Promise<void> {
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
  if (decision.kind === 'skip' && refusal?.rule === 'daily') throw new EventOutcome('skipped', decision.reason, { reason: 'daily_cap', detail: refusal.cap.toLocaleString('en-US') });
  carryOutEnd(decision);
}

/**
 * The pixel's products as the owner's shop describes them, and nothing else: a product
 * the shop does not know, or a shop that is not connected, skips the event with that
 * reason; a shop that cannot be asked right now is tried again like any other service.
 */
async function withShopProductsOnly(context: PipelineContext, event: EventRecord, normalized: NormalizedEvent, credentials: EngineCredentials, signal: AbortSignal): Promise<NormalizedEvent> {
  const gids = normalized.products.map((product) => shopifyProductGid(product.id));
  const tokens = shopOf(context, credentials);
  const products = normalized.products.map((product, index) => ({ id: product.id, isShopifyProduct: gids[index] !== null }));
  carryOutEnd(decidePixelProducts({ products, shopConnected: tokens !== undefined }));
  if (!tokens) return normalized;
  const found = new Map<string, ShopifyProductDetails | null>();
  try {
    const outcome = await lookUpProducts(productDetailsDeps(context, tokens, credentials), event.userId, gids as string[], found, signal);
    carryOutEnd(decidePixelProducts({ products, shopConnected: outcome !== SHOP_NOT_CONNECTED }));
  } catch (error) {
    if (!signal.aborted && error instanceof CredentialDecryptionError) throw new EventOutcome('failed', error.message);
    throw error;
  }
  const described = normalized.products.map((product, index) => {
    const details = found.get(gids[index]!);
    carryOutEnd(decideShopProduct({ id: product.id, foundInShop: Boolean(details) }));
    if (!details) return product;
    return { ...product, name: details.title, description: details.description, price: details.price?.amount ?? null, url: details.url };
  });
  const currency = found.get(gids[0]!)?.price?.currencyCode ?? null;
  return { ...normalized, products: described, currency };
}

/**
 * Products the event named without a description get it from the owner's shop. The
 * events table has no place for notes, so a failure to fetch is logged and the event
 * goes on without the description (docs/decisions/0010-shopify.md).
 */
async function withProductDetails(context: PipelineContext, event: EventRecord, normalized: NormalizedEvent, credentials: EngineCredentials, signal: AbortSignal): Promise<NormalizedEvent> {
  const tokens = shopOf(context, credentials);
  if (!tokens) return normalized;
  const { products, problems } = await fillProductDetails(productDetailsDeps(context, tokens, credentials), event.userId, normalized.products, signal);
  for (const problem of problems) context.logger.warn({ eventId: event.id, problem }, 'product details not fetched');
  return { ...normalized, products };
}

async function normalizeStored(context: PipelineContext, event: EventRecord): Promise<NormalizedEvent> {
  const body = normalizedBodyOf(event);
  carryOutEnd(decideNormalized(body));
  if (!body.ok) throw new Error('unreachable: a body that did not normalise fails the event');
  await saveNormalizedEvent(context.pool, event.id, body.event);
  return body.event;
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

