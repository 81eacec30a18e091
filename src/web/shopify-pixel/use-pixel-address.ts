import { useQuery } from '@tanstack/react-query';
import { api, retryWhenBusy } from '../app/api-client.ts';
import { pixelAddressResponseSchema } from '../../shared/shopify-pixel/pixel-schemas.ts';

/** The browsing pixel's public address; a pixel key never changes, so it is read once. */
export function usePixelAddress() {
  return useQuery({
    queryKey: ['browsing-pixel', 'address'],
    queryFn: async () => pixelAddressResponseSchema.parse(await api.get('/api/flows/browser_abandonment/pixel')).pixelUrl,
    staleTime: Infinity,
    retry: retryWhenBusy,
  });
}
