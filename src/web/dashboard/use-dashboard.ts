import { useQuery } from '@tanstack/react-query';
import { callEndpoint, retryWhenBusy } from '../app/api-client.ts';
import { endpoints } from '../../shared/api/endpoints.ts';

/** The dashboard's query keys. */
export const dashboardKeys = {
  all: ['dashboard'] as const,
};

/**
 * The setup checklist and each flow's state. The live stream refreshes it as events move
 * (use-dashboard-live.ts); the slow interval only covers a stream that cannot be opened,
 * and the 24-hour window sliding on with no event at all.
 */
export function useDashboard() {
  return useQuery({
    queryKey: dashboardKeys.all,
    queryFn: () => callEndpoint(endpoints.dashboard.read),
    refetchInterval: 5 * 60_000,
    // A rate limit or busy server is waited out (with the busy note), not shown as an error.
    retry: retryWhenBusy,
  });
}
