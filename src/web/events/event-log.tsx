import { useId, useState } from 'react';
import { useSearchParams } from 'react-router';
import { Button } from '../ui/button.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { Alert } from '../ui/alert.tsx';
import { stackedTable } from '../ui/stacked-table.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import { eventStatuses, type EventStatus } from '../../shared/events/event-statuses.ts';
import { eventLogMessages } from '../../shared/events/event-messages.ts';
import { EventStatusBadge, formatEventTime, sourceLabels, statusLabels, WaitsUntil } from './event-status-badge.tsx';
import { EventDetailDrawer } from './event-detail-drawer.tsx';
import { useEventLog } from './use-events.ts';
import { isSandboxEvent } from '../../shared/sandbox/sandbox-events.ts';
import { useSandboxStatus } from '../sandbox/use-sandbox.ts';
import { SandboxBadge } from '../sandbox/sandbox-badge.tsx';
import { TextLink } from '../ui/text-link.tsx';
import { useRetention } from '../account/use-retention.ts';
import { retentionSectionId } from '../account/retention-section.ts';
import { retentionMessages } from '../../shared/retention/retention-messages.ts';
import { pageRoutes } from '../../shared/routes.ts';

const columns = ['Received', 'Source', 'Shopper', 'Status'];

/**
 * The event log of one flow (docs/product/product-rules.md §1: the server keeps every
 * event, its steps and its results): newest first, filtered by status, older pages on
 * demand; a row opens the event's details, where failed and delivered events can be
 * replayed.
 */
export function EventLog({ flowType }: { flowType: FlowType }) {
  const [status, setStatus] = useState<EventStatus | null>(null);
  // `?event=<id>` opens that event's details: revenue recovered links each credited order
  // to its delivery this way. Following another such link on the page opens that one.
  const [params, setParams] = useSearchParams();
  const linkedEventId = params.get('event');
  const [openEventId, setOpenEventId] = useState<string | null>(linkedEventId);
  const [shownLink, setShownLink] = useState(linkedEventId);
  if (linkedEventId !== shownLink) {
    setShownLink(linkedEventId);
    if (linkedEventId) setOpenEventId(linkedEventId);
  }
  const closeEvent = () => {
    setOpenEventId(null);
    if (linkedEventId) {
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          next.delete('event');
          return next;
        },
        { replace: true },
      );
    }
  };
  const filterId = useId();
  const log = useEventLog(flowType, status);
  const sandbox = useSandboxStatus();
  const retention = useRetention();
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
      {retention.data ? (
        <p className="text-sm text-slate-600">
          {retentionMessages.keptFor(retention.data.retentionDays)}{' '}
          <TextLink to={`${pageRoutes.apiSettings}#${retentionSectionId}`}>{retentionMessages.change}</TextLink>
        </p>
      ) : null}

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
        <div className="rounded-md border border-slate-200">
          {/* A list of cards on a phone, so the Status column is never pushed out of sight. */}
          <table className={stackedTable.table}>
            <thead className={`${stackedTable.head} bg-slate-50`}>
              <tr>
                {columns.map((column) => (
                  <th key={column} scope="col" className="px-3 py-2">
                    {column}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody className={stackedTable.body}>
              {events.map((event) => (
                <tr key={event.id} data-testid="event-log-row" className={`${stackedTable.row} align-top hover:bg-slate-50`}>
                  <td data-label="Received" className={`${stackedTable.cell} sm:whitespace-nowrap`}>
                    <div>
                      <button type="button" className="text-left font-medium text-indigo-700 hover:underline" onClick={() => setOpenEventId(event.id)}>
                        {formatEventTime(event.receivedAt)}
                      </button>
                      {isSandboxEvent(sandbox.data, event.receivedAt) ? (
                        <span className="mt-1 block">
                          <SandboxBadge />
                        </span>
                      ) : null}
                    </div>
                  </td>
                  <td data-label="Source" className={stackedTable.cell}>
                    <div className="min-w-0">
                      {sourceLabels[event.source]}
                      {event.topic ? <span className="block break-all font-mono text-xs text-slate-600">{event.topic}</span> : null}
                    </div>
                  </td>
                  <td data-label="Shopper" className={stackedTable.cell}>
                    <div className="min-w-0 break-words">{event.shopperName ?? event.shopperEmail ?? '—'}</div>
                  </td>
                  <td data-label="Status" className={stackedTable.cell}>
                    <div className="min-w-0">
                      <EventStatusBadge status={event.status} />
                      <WaitsUntil iso={event.waitsUntil} />
                      {event.error ? (
                        <span className="mt-1 block truncate text-xs text-slate-600 sm:max-w-xs" title={event.error}>
                          {event.error}
                        </span>
                      ) : null}
                    </div>
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

      {openEventId ? <EventDetailDrawer eventId={openEventId} onClose={closeEvent} /> : null}
    </section>
  );
}
