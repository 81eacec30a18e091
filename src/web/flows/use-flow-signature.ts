import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, retryWhenBusy } from '../app/api-client.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import {
  flowSignatureResponseSchema,
  flowSignatureSecretResponseSchema,
  type FlowSignature,
  type FlowSignatureSecretResponse,
} from '../../shared/flows/flow-signature-schemas.ts';

export const flowSignatureQueryKey = (flowType: FlowType) => ['flow-signature', flowType] as const;

/** Whether the flow requires a signature, with its secret masked. */
export function useFlowSignature(flowType: FlowType) {
  return useQuery({
    queryKey: flowSignatureQueryKey(flowType),
    queryFn: async () => flowSignatureResponseSchema.parse(await api.get(`/api/flows/${flowType}/signature`)).signature,
    staleTime: 30_000,
    retry: retryWhenBusy,
  });
}

export type FlowSignatureAction = 'turnOn' | 'generateNew' | 'turnOff';

/**
 * Turns the requirement on, generates a new secret or turns it off. The answer's secret
 * (turning on, generating) is handed to the caller only; the cached state keeps the mask.
 */
export function useChangeFlowSignature(flowType: FlowType) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (action: FlowSignatureAction): Promise<{ signature: FlowSignature; secret: string | null }> => {
      const path = `/api/flows/${flowType}/signature`;
      if (action === 'turnOff') return { ...flowSignatureResponseSchema.parse(await api.delete(path)), secret: null };
      const created: FlowSignatureSecretResponse = flowSignatureSecretResponseSchema.parse(
        await api.post(action === 'turnOn' ? path : `${path}/rotate`),
      );
      return created;
    },
    onSuccess: ({ signature }) => {
      queryClient.setQueryData(flowSignatureQueryKey(flowType), signature);
    },
  });
}
