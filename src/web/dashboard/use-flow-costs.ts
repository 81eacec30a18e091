import { useQuery } from '@tanstack/react-query';
import { callEndpoint, retryWhenBusy } from '../app/api-client.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import { flowKeys } from '../flows/use-flows.ts';

/** What each flow spent on OpenAI; the dashboard's costs table and the flow page's context cost share one query. */
export function useFlowCosts() {
  return useQuery({
    queryKey: flowKeys.costs,
    queryFn: () => callEndpoint(endpoints.flows.costs),
    refetchInterval: 60_000,
    // A rate limit or busy server is waited out (with the busy note), not shown as an error.
    retry: retryWhenBusy,
  });
}
