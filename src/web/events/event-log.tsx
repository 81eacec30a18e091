import { useId, useState } from 'react';
import { Button } from '../ui/button.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { Alert } from '../ui/alert.tsx';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import { eventStatuses, type EventStatus } from '../../shared/events/event-schemas.ts';
import { eventLogMessages } from '../../shared/events/event-messages.ts';
import { EventStatusBadge, formatEventTime, sourceLabels, statusLabels, WaitsUntil } from './event-status-badge.tsx';
import { EventDetailDrawer } from './event-detail-drawer.tsx';
import { useEventLog } from './use-events.ts';
import { isSandboxEvent } from '../../shared/sandbox/sandbox-schemas.ts';
import { useSandboxStatus } from '../sandbox/use-sandbox.ts';
import { SandboxBadge } from '../sandbox/sandbox-badge.tsx';

/**
 * The event log of one flow (PRODUCT.md: the server keeps every event, its steps and its
 * results): newest first, filtered by status, older pages on demand; a row opens the
 * event's details, where failed and delivered events can be replayed.
 */
export function EventLog({ flowType }: { flowType: FlowType }) {
  const [status, setStatus] = useState<EventStatus | null>(null);
  const [openEventId, setOpenEventId] = useState<string | null>(null);
  const filterId = useId();
  const log = useEventLog(flowType, status);
  const sandbox = useSandboxStatus();
  const events = log.data?.pages.flatMap((page) => page.events) ?? [];

  return (
    <section aria-labelledby={`${filterId}-heading`} className="space-y-4">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <h2 id={`${filterId}-heading`} className="text-lg font-semibold">
          Event Log
        </h2>
        <div className="space-y-1">
          <label htmlFor={filterId} className="block text-sm font-medium text-slate-700">
            Status
          </label>
          <select
            id={filterId}
            value={status ?? ''}
            onChange={(change) => setStatus((change.target.value || null) as EventStatus | null)}
            className="rounded-md border border-slate-300 px-3 py-2 text-sm shadow-sm focus:outline-none focus:ring-2 focus:ring-indigo-500"
          >
            <option value="">All events</option>
            {eventStatuses.map((value) => (
              <option key={value} value={value}>
                {statusLabels[value]}
              </option>
            ))}
          </select>
        </div>
      </div>

      {log.isPending ? (
        <Spinner label="Loading events" />
      ) : log.error ? (
        <Alert tone="error" title={eventLogMessages.loadFailed}>
          <p>{log.error.message}</p>
          <Button variant="secondary" className="mt-2" onClick={() => void log.refetch()}>
            Retry
          </Button>
        </Alert>
      ) : events.length === 0 ? (
        <p className="text-sm text-slate-700">{status ? eventLogMessages.noMatchingEvents : eventLogMessages.noEvents}</p>
      ) : (
        <div className="overflow-x-auto rounded-md border border-slate-200">
          <table className="min-w-full divide-y divide-slate-200 text-sm">
            <thead className="bg-slate-50 text-left text-xs font-semibold uppercase tracking-wide text-slate-600">
              <tr>
                <th scope="col" className="px-3 py-2">
                  Received
                </th>
                <th scope="col" className="px-3 py-2">
                  Source
                </th>
                <th scope="col" className="px-3 py-2">
                  Shopper
                </th>
                <th scope="col" className="px-3 py-2">
                  Status
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-200">
              {events.map((event) => (
                <tr key={event.id} data-testid="event-log-row" className="align-top hover:bg-slate-50">
                  <td className="whitespace-nowrap px-3 py-2">
                    <button type="button" className="font-medium text-indigo-700 hover:underline" onClick={() => setOpenEventId(event.id)}>
                      {formatEventTime(event.receivedAt)}
                    </button>
                    {isSandboxEvent(sandbox.data, event.receivedAt) ? (
                      <span className="mt-1 block">
                        <SandboxBadge />
                      </span>
                    ) : null}
                  </td>
                  <td className="px-3 py-2">
                    {sourceLabels[event.source]}
                    {event.topic ? <span className="block font-mono text-xs text-slate-600">{event.topic}</span> : null}
                  </td>
                  <td className="px-3 py-2">{event.shopperName ?? event.shopperEmail ?? '—'}</td>
                  <td className="px-3 py-2">
                    <EventStatusBadge status={event.status} />
                    <WaitsUntil iso={event.waitsUntil} />
                    {event.error ? (
                      <span className="mt-1 block max-w-xs truncate text-xs text-slate-600" title={event.error}>
                        {event.error}
                      </span>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      {log.hasNextPage ? (
        <Button variant="secondary" onClick={() => void log.fetchNextPage()} disabled={log.isFetchingNextPage}>
          Load older events
        </Button>
      ) : null}

      {openEventId ? <EventDetailDrawer eventId={openEventId} onClose={() => setOpenEventId(null)} /> : null}
    </section>
  );
}
