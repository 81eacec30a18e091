import type { FlowType } from '../../shared/flows/flow-types.ts';
import type { EventSource } from '../../shared/events/event-sources.ts';
import type { EventStatus } from '../../shared/events/event-statuses.ts';
import type { GeneratedText, StreamChange } from '../../shared/webhooks/webhook-schemas.ts';

/**
 * The webhook event record (docs/product/specification.md §3) as the console keeps it:
 * the newest 10 per flow type, in this browser's localStorage, per signed-in user,
 * reloaded when the page opens.
 */
export const MAX_STORED_EVENTS = 10;

export interface WebhookEventEntry {
  /** The stored event's id (or a local id for a send that failed before storing). */
  id: string;
  timestamp: string;
  flowType: FlowType;
  data: unknown;
  success: boolean;
  status: EventStatus | null;
  source: EventSource | null;
  dryRun: boolean;
  error: string | null;
  generations: GeneratedText[];
}

const failedStatuses = new Set<EventStatus>(['failed', 'rejected']);

function storageKey(userId: string, flowType: FlowType): string {
  return `flowsmith.webhookEvents.${userId}.${flowType}`;
}

export function loadStoredEvents(userId: string, flowType: FlowType): WebhookEventEntry[] {
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(storageKey(userId, flowType)) ?? '[]');
    return Array.isArray(stored) ? (stored as WebhookEventEntry[]).slice(0, MAX_STORED_EVENTS) : [];
  } catch {
    return [];
  }
}

export function saveStoredEvents(userId: string, flowType: FlowType, entries: WebhookEventEntry[]): void {
  try {
    if (entries.length === 0) localStorage.removeItem(storageKey(userId, flowType));
    else localStorage.setItem(storageKey(userId, flowType), JSON.stringify(entries.slice(0, MAX_STORED_EVENTS)));
  } catch {
    // A full or disabled storage only costs the list after a reload.
  }
}

export function entryFromChange(change: StreamChange): WebhookEventEntry {
  return {
    id: change.eventId,
    timestamp: change.receivedAt,
    flowType: change.flowType,
    data: change.payload,
    success: !failedStatuses.has(change.status),
    status: change.status,
    source: change.source,
    dryRun: change.dryRun,
    error: change.error,
    generations: change.generations,
  };
}

/**
 * Applies one change to the list: an arrival goes first, a status change updates its
 * entry in place (and is ignored for an event that arrived while not listening). Says
 * whether the event was new and whether it has just failed.
 */
export function applyChange(entries: WebhookEventEntry[], change: StreamChange): { entries: WebhookEventEntry[]; isNew: boolean; nowFailed: boolean } {
  const updated = entryFromChange(change);
  const index = entries.findIndex((entry) => entry.id === change.eventId);
  if (index < 0 && !change.arrival) return { entries, isNew: false, nowFailed: false };
  if (index < 0) return { entries: [updated, ...entries].slice(0, MAX_STORED_EVENTS), isNew: true, nowFailed: !updated.success };
  const previous = entries[index]!;
  const next = [...entries];
  next[index] = { ...updated, timestamp: previous.timestamp, generations: updated.generations.length > 0 ? updated.generations : previous.generations };
  return { entries: next, isNew: false, nowFailed: previous.success && !updated.success };
}
