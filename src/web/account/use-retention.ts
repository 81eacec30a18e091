import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callEndpoint, retryWhenBusy } from '../app/api-client.ts';
import type { RetentionSettings } from '../../shared/retention/retention-schemas.ts';
import { endpoints } from '../../shared/api/endpoints.ts';

/** The retention feature's query keys. */
export const retentionKeys = {
  all: ['retention'] as const,
};

/** The owner's retention period (API settings and every flow's event log show it). */
export function useRetention() {
  return useQuery({
    queryKey: retentionKeys.all,
    queryFn: () => callEndpoint(endpoints.retention.read),
    retry: retryWhenBusy,
  });
}

export function useSaveRetention() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (settings: RetentionSettings) => callEndpoint(endpoints.retention.save, { body: settings }),
    onSuccess: (saved) => queryClient.setQueryData(retentionKeys.all, saved),
  });
}
