import { useQuery } from '@tanstack/react-query';
import { callEndpoint, retryWhenBusy } from '../app/api-client.ts';
import { endpoints } from '../../shared/api/endpoints.ts';

/** Read often: a condition that slows or fails every event is to be seen at once, and seen gone once fixed. */
const REFRESH_MS = 10_000;

/** The service conditions' query keys; ending the Klaviyo connection reads them again. */
export const serviceConditionKeys = {
  all: ['service-conditions'] as const,
};

export function useServiceConditions() {
  return useQuery({ queryKey: serviceConditionKeys.all, queryFn: () => callEndpoint(endpoints.serviceConditions.list), refetchInterval: REFRESH_MS, retry: retryWhenBusy });
}
