import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callEndpoint, retryWhenBusy } from '../app/api-client.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import type { FlowSignature } from '../../shared/flows/flow-signature-schemas.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import { flowKeys } from './use-flows.ts';

/** Whether the flow requires a signature, with its secret masked. */
export function useFlowSignature(flowType: FlowType) {
  return useQuery({
    queryKey: flowKeys.signature(flowType),
    queryFn: async () => (await callEndpoint(endpoints.flowSignature.read, { params: { flowType } })).signature,
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
      const input = { params: { flowType } };
      if (action === 'turnOff') return { ...(await callEndpoint(endpoints.flowSignature.remove, input)), secret: null };
      return callEndpoint(action === 'turnOn' ? endpoints.flowSignature.require : endpoints.flowSignature.rotate, input);
    },
    onSuccess: ({ signature }) => {
      queryClient.setQueryData(flowKeys.signature(flowType), signature);
    },
  });
}
