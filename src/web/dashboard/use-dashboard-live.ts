import { useEffect, useRef } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useEventStream } from '../app/use-event-stream.ts';
import { dashboardKeys } from './use-dashboard.ts';
import { flowKeys } from '../flows/use-flows.ts';

/**
 * At most one refresh per this long: a sale-day burst moves hundreds of events a second,
 * and the dashboard's figures need not follow each of them. Each refresh is two reads of
 * the owner's 60 a minute (docs/product/specification.md §9), shared with every other
 * open page, so a busy day costs the dashboard at most 12 of them.
 */
export const DASHBOARD_REFRESH_THROTTLE_MS = 10_000;

/**
 * Keeps the dashboard's figures live: the owner's stream of event changes (all flows in
 * one connection) refreshes the dashboard and the costs, throttled. A reconnected stream
 * refreshes too, since changes may have passed while it was away.
 */
export function useDashboardLive(): void {
  const queryClient = useQueryClient();
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const lastRefresh = useRef(0);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  const refresh = () => {
    if (timer.current) return;
    const wait = Math.max(0, lastRefresh.current + DASHBOARD_REFRESH_THROTTLE_MS - Date.now());
    timer.current = setTimeout(() => {
      timer.current = null;
      lastRefresh.current = Date.now();
      void queryClient.invalidateQueries({ queryKey: dashboardKeys.all });
      void queryClient.invalidateQueries({ queryKey: flowKeys.costs });
    }, wait);
  };
  useEventStream('all', {
    onChange: refresh,
    onReady: (_message, reconnected) => {
      if (reconnected) refresh();
    },
  });
}
