import { useQuery } from '@tanstack/react-query';
import { callEndpoint, retryWhenBusy } from '../app/api-client.ts';
import { endpoints } from '../../shared/api/endpoints.ts';

/** Read often: a flow that stops is to be seen at once. */
const REFRESH_MS = 10_000;

/** The flow alerts' query keys. */
export const flowAlertKeys = {
  all: ['flow-alerts'] as const,
};

export function useFlowAlerts() {
  return useQuery({ queryKey: flowAlertKeys.all, queryFn: () => callEndpoint(endpoints.flowAlerts.list), refetchInterval: REFRESH_MS, retry: retryWhenBusy });
}
