import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callEndpoint, retryWhenBusy } from '../app/api-client.ts';
import type { AttributionSettings } from '../../shared/attribution/attribution-schemas.ts';
import type { RevenuePeriod } from '../../shared/attribution/attribution-periods.ts';
import { endpoints } from '../../shared/api/endpoints.ts';

/** The revenue feature's query keys: saving the settings reads every one of them again. */
export const revenueKeys = {
  all: ['revenue'] as const,
  period: (days: RevenuePeriod) => ['revenue', days] as const,
  settings: ['revenue', 'settings'] as const,
};

export function useRevenue(days: RevenuePeriod) {
  return useQuery({
    queryKey: revenueKeys.period(days),
    queryFn: () => callEndpoint(endpoints.revenue.read, { query: { days } }),
    refetchInterval: 60_000,
    retry: retryWhenBusy,
  });
}

export function useAttributionSettings() {
  return useQuery({
    queryKey: revenueKeys.settings,
    queryFn: () => callEndpoint(endpoints.revenue.settings),
    retry: retryWhenBusy,
  });
}

export function useSaveAttributionSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (settings: AttributionSettings) => callEndpoint(endpoints.revenue.saveSettings, { body: settings }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: revenueKeys.all }),
  });
}
