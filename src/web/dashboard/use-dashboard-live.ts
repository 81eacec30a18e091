import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { streamChangeEventName } from '../../shared/webhooks/webhook-schemas.ts';
import { dashboardQueryKey } from './use-dashboard.ts';

/**
 * At most one refresh per this long: a sale-day burst moves hundreds of events a second,
 * and the dashboard's figures need not follow each of them. Each refresh is two reads of
 * the owner's 60 a minute (SPEC.md section 9), shared with every other open page, so a
 * busy day costs the dashboard at most 12 of them.
 */
export const DASHBOARD_REFRESH_THROTTLE_MS = 10_000;

/**
 * Keeps the dashboard's figures live: the owner's stream of event changes (all flows in
 * one connection) refreshes the dashboard and the costs, throttled. A reconnected stream
 * refreshes too, since changes may have passed while it was away.
 */
export function useDashboardLive(): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    const stream = new EventSource('/api/stream');
    let timer: ReturnType<typeof setTimeout> | null = null;
    let lastRefresh = 0;
    let connectedBefore = false;
    const refresh = () => {
      if (timer) return;
      const wait = Math.max(0, lastRefresh + DASHBOARD_REFRESH_THROTTLE_MS - Date.now());
      timer = setTimeout(() => {
        timer = null;
        lastRefresh = Date.now();
        void queryClient.invalidateQueries({ queryKey: dashboardQueryKey });
        void queryClient.invalidateQueries({ queryKey: ['flows', 'costs'] });
      }, wait);
    };
    const onReady = () => {
      if (connectedBefore) refresh();
      connectedBefore = true;
    };
    stream.addEventListener('ready', onReady);
    stream.addEventListener(streamChangeEventName, refresh);
    return () => {
      stream.close();
      if (timer) clearTimeout(timer);
    };
  }, [queryClient]);
}
