import { useEffect } from 'react';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, retryWhenBusy } from '../app/api-client.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import type {
  ActivitySummaryResponse,
  EventDetail,
  EventListItem,
  EventListResponse,
  EventStatus,
} from '../../shared/events/event-schemas.ts';

import { streamChangeEventName } from '../../shared/webhooks/webhook-schemas.ts';

/**
 * The event log's data: pages of a flow's events, one event's detail, Replay, and the
 * last day's figures per flow. A flow's log follows the flow's live stream (the one the
 * test console listens to), so new events and finished ones show up as they happen; the
 * slow interval only covers a stream the browser could not keep open.
 */
const REFRESH_MS = 15_000;
/**
 * Changes come in bursts (an event's arrival, then each of its steps; a sale day's
 * backlog): one reload of the list per second at most keeps it current without spending
 * a read per change.
 */
const LIVE_RELOAD_PAUSE_MS = 1_000;

export const eventsQueryKey = ['events'] as const;

/**
 * While mounted, reloads the flow's event data whenever the flow's stream reports a
 * change. EventSource reconnects by itself after a drop and resumes after the last change
 * it saw; if it gives up, the list's interval refresh still runs.
 */
export function useLiveEvents(flowType: FlowType) {
  const queryClient = useQueryClient();
  useEffect(() => {
    const stream = new EventSource(`/api/stream/${flowType}`);
    let timer: number | null = null;
    const reload = () => {
      timer = null;
      void queryClient.invalidateQueries({ queryKey: eventsQueryKey });
    };
    stream.addEventListener(streamChangeEventName, () => {
      timer ??= window.setTimeout(reload, LIVE_RELOAD_PAUSE_MS);
    });
    return () => {
      stream.close();
      if (timer !== null) window.clearTimeout(timer);
    };
  }, [flowType, queryClient]);
}

export function useEventLog(flowType: FlowType, status: EventStatus | null) {
  useLiveEvents(flowType);
  return useInfiniteQuery({
    queryKey: [...eventsQueryKey, 'list', flowType, status],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam }) => {
      const query = new URLSearchParams({ flowType, limit: '25' });
      if (status) query.set('status', status);
      if (pageParam) query.set('before', pageParam);
      return api.get<EventListResponse>(`/api/events?${query.toString()}`);
    },
    getNextPageParam: (page) => page.nextBefore,
    refetchInterval: REFRESH_MS,
    retry: retryWhenBusy,
  });
}

export function useEventDetail(eventId: string | null) {
  return useQuery({
    queryKey: [...eventsQueryKey, 'detail', eventId],
    queryFn: () => api.get<{ event: EventDetail }>(`/api/events/${encodeURIComponent(eventId!)}`).then((answer) => answer.event),
    enabled: eventId !== null,
    // While the event is still on its way, look again a little sooner.
    refetchInterval: (query) => (query.state.data && !['delivered', 'failed', 'skipped', 'rejected'].includes(query.state.data.status) ? 3_000 : false),
    retry: retryWhenBusy,
  });
}

export function useReplayEvent() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (eventId: string) => api.post<{ event: EventListItem }>(`/api/events/${encodeURIComponent(eventId)}/replay`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: eventsQueryKey }),
  });
}

export function useActivitySummary() {
  return useQuery({
    queryKey: [...eventsQueryKey, 'activity'],
    queryFn: () => api.get<ActivitySummaryResponse>('/api/events/activity'),
    refetchInterval: 60_000,
    retry: retryWhenBusy,
  });
}
