import { useEffect, useRef } from 'react';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callEndpoint, retryWhenBusy } from '../app/api-client.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import type { EventStatus } from '../../shared/events/event-statuses.ts';
import { useEventStream } from '../app/use-event-stream.ts';
import { endpoints } from '../../shared/api/endpoints.ts';

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

/** The event log's query keys: a change of the flow's stream reads every one of them again. */
export const eventKeys = {
  all: ['events'] as const,
  list: (flowType: FlowType, status: EventStatus | null) => ['events', 'list', flowType, status] as const,
  detail: (eventId: string | null) => ['events', 'detail', eventId] as const,
  activity: ['events', 'activity'] as const,
};

/**
 * While mounted, reloads the flow's event data whenever the flow's stream reports a
 * change, and after a reconnect, when changes may have passed meanwhile. The stream
 * resumes after the last change it saw (use-event-stream.ts); if it gives up, the list's
 * interval refresh still runs.
 */
export function useLiveEvents(flowType: FlowType) {
  const queryClient = useQueryClient();
  const timer = useRef<number | null>(null);
  useEffect(
    () => () => {
      if (timer.current !== null) window.clearTimeout(timer.current);
    },
    [],
  );
  const reloadSoon = () => {
    timer.current ??= window.setTimeout(() => {
      timer.current = null;
      void queryClient.invalidateQueries({ queryKey: eventKeys.all });
    }, LIVE_RELOAD_PAUSE_MS);
  };
  useEventStream({ flowType }, {
    onChange: reloadSoon,
    onReady: (_message, reconnected) => {
      if (reconnected) reloadSoon();
    },
  });
}

export function useEventLog(flowType: FlowType, status: EventStatus | null) {
  useLiveEvents(flowType);
  return useInfiniteQuery({
    queryKey: eventKeys.list(flowType, status),
    initialPageParam: null as string | null,
    queryFn: ({ pageParam }) => callEndpoint(endpoints.events.list, { query: { flowType, limit: 25, status: status ?? undefined, before: pageParam ?? undefined } }),
    getNextPageParam: (page) => page.nextBefore,
    refetchInterval: REFRESH_MS,
    retry: retryWhenBusy,
  });
}

export function useEventDetail(eventId: string | null) {
  return useQuery({
    queryKey: eventKeys.detail(eventId),
    queryFn: async () => (await callEndpoint(endpoints.events.detail, { params: { eventId: eventId! } })).event,
    enabled: eventId !== null,
    // While the event is still on its way, look again a little sooner.
    refetchInterval: (query) => (query.state.data && !['delivered', 'failed', 'skipped', 'rejected'].includes(query.state.data.status) ? 3_000 : false),
    retry: retryWhenBusy,
  });
}

export function useReplayEvent() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (eventId: string) => callEndpoint(endpoints.events.replay, { params: { eventId } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: eventKeys.all }),
  });
}

export function useActivitySummary() {
  return useQuery({
    queryKey: eventKeys.activity,
    queryFn: () => callEndpoint(endpoints.events.activity),
    refetchInterval: 60_000,
    retry: retryWhenBusy,
  });
}
