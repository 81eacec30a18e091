import type { DashboardFlow } from '../../shared/dashboard/dashboard-schemas.ts';
import { dashboardMessages } from '../../shared/dashboard/dashboard-messages.ts';
import { EventStatusBadge, formatEventTime } from '../events/event-status-badge.tsx';

/** A flow's last day: its last event, and what was delivered and failed in 24 hours. On its dashboard card and at the top of its page. */
export function FlowDayFigures({ state }: { state: DashboardFlow }) {
  return (
    <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-1 text-sm">
      <dt className="text-slate-600">{dashboardMessages.lastEvent}</dt>
      <dd data-testid="flow-last-event" className="text-slate-900">
        {state.lastEvent ? (
          <span className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <time dateTime={state.lastEvent.receivedAt}>{formatEventTime(state.lastEvent.receivedAt)}</time>
            <EventStatusBadge status={state.lastEvent.status} />
          </span>
        ) : (
          dashboardMessages.noEvent
        )}
      </dd>
      <dt className="text-slate-600">{dashboardMessages.deliveries}</dt>
      <dd data-testid="flow-deliveries" className="tabular-nums text-slate-900">
        {state.deliveries24h.toLocaleString()}
      </dd>
      <dt className="text-slate-600">{dashboardMessages.failures}</dt>
      <dd data-testid="flow-failures" className={`tabular-nums ${state.failures24h > 0 ? 'font-semibold text-red-700' : 'text-slate-900'}`}>
        {state.failures24h.toLocaleString()}
      </dd>
    </dl>
  );
}
