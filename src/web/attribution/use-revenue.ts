import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, retryWhenBusy } from '../app/api-client.ts';
import { attributionSettingsSchema, revenueResponseSchema, type AttributionSettings, type RevenuePeriod } from '../../shared/attribution/attribution-schemas.ts';

export const revenueQueryKey = ['revenue'] as const;

export function useRevenue(days: RevenuePeriod) {
  return useQuery({
    queryKey: [...revenueQueryKey, days],
    queryFn: async () => revenueResponseSchema.parse(await api.get(`/api/revenue?days=${days}`)),
    refetchInterval: 60_000,
    retry: retryWhenBusy,
  });
}

export function useAttributionSettings() {
  return useQuery({
    queryKey: [...revenueQueryKey, 'settings'],
    queryFn: async () => attributionSettingsSchema.parse(await api.get('/api/revenue/settings')),
    retry: retryWhenBusy,
  });
}

export function useSaveAttributionSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (settings: AttributionSettings) => attributionSettingsSchema.parse(await api.put('/api/revenue/settings', settings)),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: revenueQueryKey }),
  });
}
