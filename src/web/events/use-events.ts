import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../app/api-client.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import type {
  ActivitySummaryResponse,
  EventDetail,
  EventListItem,
  EventListResponse,
  EventStatus,
} from '../../shared/events/event-schemas.ts';

/**
 * The event log's data: pages of a flow's events, one event's detail, Replay, and the
 * last day's figures per flow. Lists refresh on a slow interval (well inside the
 * per-user read limit) so new events and finished ones show up while the page is open.
 */
const REFRESH_MS = 15_000;

export const eventsQueryKey = ['events'] as const;

export function useEventLog(flowType: FlowType, status: EventStatus | null) {
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
    retry: false,
  });
}

export function useEventDetail(eventId: string | null) {
  return useQuery({
    queryKey: [...eventsQueryKey, 'detail', eventId],
    queryFn: () => api.get<{ event: EventDetail }>(`/api/events/${encodeURIComponent(eventId!)}`).then((answer) => answer.event),
    enabled: eventId !== null,
    // While the event is still on its way, look again a little sooner.
    refetchInterval: (query) => (query.state.data && !['delivered', 'failed', 'skipped', 'rejected'].includes(query.state.data.status) ? 3_000 : false),
    retry: false,
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
    retry: false,
  });
}
