import { useQuery } from '@tanstack/react-query';
import { callEndpoint, retryWhenBusy } from '../app/api-client.ts';
import { endpoints } from '../../shared/api/endpoints.ts';

/** The browsing pixel's query keys. */
export const pixelKeys = {
  address: ['browsing-pixel', 'address'] as const,
};

/** The browsing pixel's public address; a pixel key never changes, so it is read once. */
export function usePixelAddress() {
  return useQuery({
    queryKey: pixelKeys.address,
    queryFn: async () => (await callEndpoint(endpoints.flows.pixelAddress)).pixelUrl,
    staleTime: Infinity,
    retry: retryWhenBusy,
  });
}
