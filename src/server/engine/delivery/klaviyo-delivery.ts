import type { FlowRecord } from '../../flows/flow-queries.ts';
import type { EventRecord } from '../../events/event-queries.ts';
import { createEvent, importProfile } from '../../integrations/klaviyo/klaviyo-profiles.ts';
import { finishDelivery, recordKlaviyoEventSent, recordProfileWritten, startDelivery } from '../../deliveries/delivery-queries.ts';
import { takeKlaviyoSlot, type KlaviyoEndpoint } from './klaviyo-rate-limiter.ts';
import { withQuickRetry } from '../spine/quick-retry.ts';
import { klaviyoAuthOf, klaviyoLimitKey, type EngineCredentials } from '../spine/engine-credentials.ts';
import { quickRetries, type PipelineContext } from '../spine/pipeline-context.ts';
import { hasQueuedDeliveries, queueDeliveryForBatch } from './klaviyo-batch-queries.ts';
import { RateLimitWait } from '../spine/rate-limit-wait.ts';
import { decideDeliveryMode, decideUnderBacklog } from '../spine/pipeline-core.ts';
import type { ProfilePropertyValue } from '../../../shared/flows/recommendation-schemas.ts';

/**
 * One profile write with every text, then (when the flow names one) one Klaviyo event.
 * Each step is recorded as it succeeds; a retried job skips the steps already done.
 *
 * Under a backlog (the account's single-write slot is taken for now, or deliveries of the
 * account already wait for a bulk job) the delivery joins the account's next bulk import
 * job instead ('batched'): the event stays `delivering`, this job ends, and the batch
 * dispatcher (klaviyo-batches.ts) finishes it (docs/decisions/0020-klaviyo-batches.md).
 */
export async function deliver(context: PipelineContext, delivering: Delivering): Promise<'delivered' | 'batched'> {
  const { event, flow, email, names, credentials, properties, signal, holdout = null } = delivering;
  const { pool, options } = context;
  const delivery = await startDelivery(pool, {
    id: deliveryId(event),
    eventId: event.id,
    attempt: event.attempt,
    properties,
    klaviyoEventName: flow.klaviyoEventName,
    holdout: holdout !== null,
  });
  const mode = decideDeliveryMode(
    { delivered: delivery.status === 'delivered', batched: delivery.batchedAt !== null, profileWritten: delivery.profileWrittenAt !== null, holdout: delivery.holdout },
    { accountLimited: options.klaviyoLimits !== null, bulkDelivery: options.bulkDelivery, sandbox: credentials.sandbox !== undefined },
  );
  if (mode === 'already_delivered') return 'delivered';
  if (mode === 'already_batched') return 'batched';
  let slotTaken = false;
  if (mode === 'single_unless_backlog') {
    slotTaken = (await singleOrBulk(context, event, credentials, signal)) === 'single';
    if (!slotTaken) {
      await queueDeliveryForBatch(pool, delivery.id, { userId: event.userId, email, firstName: names.firstName, lastName: names.lastName, at: context.clock.now() });
      context.onBatched?.();
      return 'batched';
    }
  }
  const connection = await klaviyoConnection(context, credentials, signal);
  const retrying = quickRetries(context, event, 'Klaviyo', signal);
  // A failure goes up to processEvent, which schedules the next try (this delivery then
  // resumes after its last recorded step) or fails the event and this delivery with it.
  if (!delivery.profileWrittenAt) {
    const result = await withQuickRetry(
      async () => {
        // The first try may use the slot taken above; a retry takes its own.
        if (slotTaken) slotTaken = false;
        else await takeSlot(context, credentials, 'profile-import', signal);
        const unset = delivery.holdout ? (holdout?.unset ?? []) : [];
        return importProfile(connection, { email, firstName: names.firstName, lastName: names.lastName, properties: delivery.properties, unset }, signal);
      },
      options.retry,
      retrying,
    );
    await recordProfileWritten(pool, delivery.id, result);
  }
  if (delivery.klaviyoEventName && !delivery.eventSentAt) {
    await withQuickRetry(
      async () => {
        await takeSlot(context, credentials, 'events', signal);
        await createEvent(
          connection,
          { metricName: delivery.klaviyoEventName!, email, properties: delivery.properties, uniqueId: delivery.id, time: context.clock.now().toISOString() },
          signal,
        );
      },
      options.retry,
      retrying,
    );
    await recordKlaviyoEventSent(pool, delivery.id);
  }
  await finishDelivery(pool, delivery.id, 'delivered');
  return 'delivered';
}

/** What one delivery writes, to whom, and with which credentials. */
export interface Delivering {
  event: EventRecord;
  flow: FlowRecord;
  email: string;
  names: { firstName: string | null; lastName: string | null };
  credentials: EngineCredentials;
  properties: Record<string, ProfilePropertyValue>;
  signal: AbortSignal;
  /** A holdout shopper's delivery: the flow's properties to clear from the profile. */
  holdout?: { unset: string[] } | null;
}

/**
 * A single write when it may go now (its slot is then taken), else the bulk import
 * (`decideUnderBacklog`): deliveries of the account already wait for one, or the
 * account's single-write slot is not free at this moment.
 */
async function singleOrBulk(context: PipelineContext, event: EventRecord, credentials: EngineCredentials, signal: AbortSignal): Promise<'single' | 'bulk'> {
  if (await hasQueuedDeliveries(context.pool, event.userId)) return decideUnderBacklog({ deliveriesQueued: true });
  let slotFree = true;
  try {
    // Busy (a long line of deliveries taking slots) counts as "not now": under a backlog
    // hundreds of deliveries would otherwise queue on that one lock.
    await takeKlaviyoSlot(context.pool, klaviyoLimitKey(credentials), 'profile-import', { limits: context.options.klaviyoLimits, clock: context.clock, maxInPlaceWaitMs: 0, signal, unlessBusy: true });
  } catch (error) {
    if (!(error instanceof RateLimitWait)) throw error;
    slotFree = false;
  }
  return decideUnderBacklog({ deliveriesQueued: false, slotFree });
}

/** The event id for its first delivery (Klaviyo's unique_id); each replay gets a new one. */
export function deliveryId(event: { id: string; attempt: number }): string {
  return event.attempt === 1 ? event.id : `${event.id}:${event.attempt}`;
}

export async function klaviyoConnection(context: PipelineContext, credentials: EngineCredentials, signal?: AbortSignal) {
  return {
    baseUrl: credentials.sandbox?.klaviyoBaseUrl ?? context.klaviyoBaseUrl,
    ...(await klaviyoAuthOf(credentials, signal)),
    timeoutMs: context.options.klaviyoTimeoutMs,
    now: () => context.clock.now(),
  };
}

/** One Klaviyo request's slot under the account's limits, waited for only as long as a Retry-After would be. */
export function takeSlot(context: PipelineContext, credentials: EngineCredentials, endpoint: KlaviyoEndpoint, signal: AbortSignal): Promise<void> {
  return takeKlaviyoSlot(context.pool, klaviyoLimitKey(credentials), endpoint, {
    limits: context.options.klaviyoLimits,
    clock: context.clock,
    maxInPlaceWaitMs: context.options.retry.maxInPlaceWaitMs,
    signal,
  });
}

