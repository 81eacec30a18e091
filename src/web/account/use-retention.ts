import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, retryWhenBusy } from '../app/api-client.ts';
import { retentionSettingsSchema, type RetentionSettings } from '../../shared/retention/retention-schemas.ts';

export const retentionQueryKey = ['retention'] as const;

/** The owner's retention period (API settings and every flow's event log show it). */
export function useRetention() {
  return useQuery({
    queryKey: retentionQueryKey,
    queryFn: async () => retentionSettingsSchema.parse(await api.get('/api/retention')),
    retry: retryWhenBusy,
  });
}

export function useSaveRetention() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (settings: RetentionSettings) => retentionSettingsSchema.parse(await api.put('/api/retention', settings)),
    onSuccess: (saved) => queryClient.setQueryData(retentionQueryKey, saved),
  });
}
