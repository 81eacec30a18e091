import { eventStatuses, type EventStatus } from '../../shared/events/event-statuses.ts';

/**
 * The life of an event, as data: where a stored event may start, and which status may
 * follow which. Every write of an event's status (event-queries.ts) is one UPDATE guarded
 * by `status = ANY(predecessorsOf(next))` and by the attempt, so a job that comes late,
 * twice, or for an attempt a replay has replaced changes nothing: nothing moves an event
 * backwards or reopens a finished one, except the owner's replay, which starts a new attempt.
 *
 *   received ─▶ generating ─▶ delivering ─▶ delivered
 *      │  ▲          │             │
 *      ▼  │          ▼             ▼
 *    waiting ◀───────┴─────────────┘   (a timer, or the next try of a failed service call)
 *
 * and from any unfinished status to skipped or failed; rejected is only ever stored as such.
 * A job that resumes after a crash finds its event generating or delivering and carries
 * on from the last step it stored (event-pipeline.ts); the moves it no longer needs are refused.
 */
export const eventLifecycle = {
  /** How an event is first stored: accepted (at once, or held by a timer), off, or refused. */
  initial: ['received', 'waiting', 'skipped', 'rejected'],
  transitions: {
    // Generation starts, a pixel shopper's look-up waits for its next try, or a rule ends it.
    received: ['generating', 'waiting', 'skipped', 'failed'],
    // The timer fired or the next try is due; or what it waited for ended it.
    waiting: ['received', 'skipped', 'failed'],
    // Texts written; a dry run ends here; a service call failed and is tried later.
    generating: ['delivering', 'waiting', 'skipped', 'failed'],
    // Skipped too: a flow switched off before a resumed delivery finished.
    delivering: ['delivered', 'waiting', 'skipped', 'failed'],
    delivered: [],
    skipped: [],
    failed: [],
    rejected: [],
  },
  /** The owner may run these again as a new attempt (starting at received). */
  replayable: ['failed', 'delivered'],
} as const satisfies {
  initial: readonly EventStatus[];
  transitions: Record<EventStatus, readonly EventStatus[]>;
  replayable: readonly EventStatus[];
};

export type InitialEventStatus = (typeof eventLifecycle.initial)[number];

/** Statuses nothing but a replay leaves. */
export const finishedStatuses: readonly EventStatus[] = eventStatuses.filter((status) => eventLifecycle.transitions[status].length === 0);

export function isFinished(status: EventStatus): boolean {
  return finishedStatuses.includes(status);
}

export function canMove(from: EventStatus, to: EventStatus): boolean {
  return (eventLifecycle.transitions[from] as readonly EventStatus[]).includes(to);
}

/** The statuses an event may be in for a move to `to` to apply. */
export function predecessorsOf(to: EventStatus): EventStatus[] {
  return eventStatuses.filter((from) => canMove(from, to));
}

export function isInitialStatus(status: EventStatus): status is InitialEventStatus {
  return (eventLifecycle.initial as readonly EventStatus[]).includes(status);
}
