import { useQuery } from '@tanstack/react-query';
import { api, retryWhenBusy } from '../app/api-client.ts';
import { dashboardResponseSchema } from '../../shared/dashboard/dashboard-schemas.ts';

export const dashboardQueryKey = ['dashboard'] as const;

/**
 * The setup checklist and each flow's state. The live stream refreshes it as events move
 * (use-dashboard-live.ts); the slow interval only covers a stream that cannot be opened,
 * and the 24-hour window sliding on with no event at all.
 */
export function useDashboard() {
  return useQuery({
    queryKey: dashboardQueryKey,
    queryFn: async () => dashboardResponseSchema.parse(await api.get('/api/dashboard')),
    refetchInterval: 5 * 60_000,
    // A rate limit or busy server is waited out (with the busy note), not shown as an error.
    retry: retryWhenBusy,
  });
}
