import type { EventSource } from '../../shared/events/event-sources.ts';
import type { EventStatus } from '../../shared/events/event-statuses.ts';

export const statusLabels: Record<EventStatus, string> = {
  received: 'Received',
  waiting: 'Waiting',
  generating: 'Generating',
  delivering: 'Delivering',
  delivered: 'Delivered',
  skipped: 'Skipped',
  failed: 'Failed',
  rejected: 'Rejected',
};

export const sourceLabels: Record<EventSource, string> = {
  generic: 'Webhook',
  shopify: 'Shopify',
  pixel: 'Web Pixel',
  test: 'Test',
};

const statusClasses: Record<EventStatus, string> = {
  received: 'bg-slate-200 text-slate-800',
  waiting: 'bg-amber-100 text-amber-900',
  generating: 'bg-blue-100 text-blue-900',
  delivering: 'bg-indigo-100 text-indigo-900',
  delivered: 'bg-green-100 text-green-800',
  skipped: 'bg-slate-100 text-slate-700',
  failed: 'bg-red-100 text-red-800',
  rejected: 'bg-red-50 text-red-700 ring-1 ring-inset ring-red-200',
};

export function EventStatusBadge({ status }: { status: EventStatus }) {
  return <span className={`inline-flex rounded-full px-2.5 py-0.5 text-xs font-semibold ${statusClasses[status]}`}>{statusLabels[status]}</span>;
}

/** Under a waiting event: when its abandonment timer fires. */
export function WaitsUntil({ iso }: { iso: string | null }) {
  if (!iso) return null;
  return <span className="mt-1 block text-xs text-amber-900">until {formatEventTime(iso)}</span>;
}

export function formatEventTime(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}
