import type pg from 'pg';
import type { Logger } from 'pino';
import type { Queryable } from '../../database/database.ts';
import { endWaitingEvent, releaseWaitingEvent, type EventRecord } from '../../events/event-queries.ts';
import { findDueWaitingEventIds, findRelatedEvents, findWaitingTimersSharingKeys } from './shopper-timer-queries.ts';
import { activityOf, reasonTimerEnded, timerKindOf, type TimerFacts, type TimerKind } from './timer-rules.ts';


/**
 * Abandonment timers per shopper, carried out: the decisions are timer-rules.ts's, the
 * events read and ended here.
 */
export function factsOf(event: EventRecord): TimerFacts {
  return {
    id: event.id,
    flowId: event.flowId,
    flowType: event.flowType,
    source: event.source,
    topic: event.topic,
    checkoutToken: event.checkoutToken,
    cartToken: event.cartToken,
    objectId: event.objectId,
    shopperEmail: event.shopperEmail,
    actedAt: event.occurredAt ?? event.receivedAt,
    receivedAt: event.receivedAt,
  };
}

/** Why this timer must not fire (see reasonTimerEnded), read from the database. */
export async function findReasonTimerEnded(db: Queryable, kind: TimerKind, event: EventRecord): Promise<string | null> {
  const timer = factsOf(event);
  return reasonTimerEnded(kind, timer, await findRelatedEvents(db, event.userId, timer));
}

/**
 * Ends, at once, the owner's pending timers that `event` ends (in any of their flows):
 * each candidate sharing a key is judged by `reasonTimerEnded` and, if ended, skipped
 * with that reason. A replay waiting for its next try is not a timer: replays skip the
 * timer rules. Each is its own statement so that only one flow's change-log lock is
 * held at a time. Returns how many were ended.
 */
export async function endTimersEndedBy(pool: pg.Pool, event: EventRecord, logger: Logger): Promise<number> {
  if (event.source === 'test' || activityOf(event) === null) return 0;
  let ended = 0;
  for (const candidate of await findWaitingTimersSharingKeys(pool, event)) {
    const kind = timerKindOf(candidate);
    if (!kind) continue;
    const reason = reasonTimerEnded(kind, candidate, await findRelatedEvents(pool, event.userId, candidate));
    if (!reason) continue;
    if (await endWaitingEvent(pool, candidate.id, reason)) {
      ended += 1;
      logger.info({ eventId: candidate.id, endedBy: event.id }, 'abandonment timer ended early');
    }
  }
  return ended;
}

/**
 * Fires the timers that are due, and the next tries of events that wait after a failed
 * service call (docs/decisions/0014-patient-retries-and-caps.md): each moves from
 * `waiting` to `received` together with its job, in its own transaction (one flow lock at a time), and only if still waiting, so two
 * workers sweeping at once fire each timer once.
 */
export async function fireDueTimers(
  pool: pg.Pool,
  sweep: {
    now: Date;
    enqueue: (db: Queryable, job: { eventId: string; attempt: number }) => Promise<void>;
    inTransaction: <T>(work: (client: Queryable) => Promise<T>) => Promise<T>;
    /** How many due events one sweep takes up (200 unless said). */
    limit?: number;
  },
): Promise<number> {
  const { now, enqueue, inTransaction, limit = 200 } = sweep;
  let fired = 0;
  for (const id of await findDueWaitingEventIds(pool, now, limit)) {
    const started = await inTransaction(async (client) => {
      const attempt = await releaseWaitingEvent(client, id);
      if (attempt !== null) await enqueue(client, { eventId: id, attempt });
      return attempt !== null;
    });
    if (started) fired += 1;
  }
  return fired;
}
