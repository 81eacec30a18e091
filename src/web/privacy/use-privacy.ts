import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callEndpoint } from '../app/api-client.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import type { ShopperEraseResult } from '../../shared/privacy/privacy-schemas.ts';

/** The privacy feature's query keys: an erasure reads every one of them again. */
export const privacyKeys = {
  all: ['privacy'] as const,
  shopper: (email: string | null) => ['privacy', 'shopper', email] as const,
  endpoint: ['privacy', 'endpoint'] as const,
  requests: ['privacy', 'requests'] as const,
};

/** What is kept about the shopper with `email`; nothing is looked up until an email is given. */
export function useShopperLookup(email: string | null) {
  return useQuery({
    queryKey: privacyKeys.shopper(email),
    queryFn: () => callEndpoint(endpoints.privacy.shopper, { query: { email: email ?? '' } }),
    enabled: email !== null,
  });
}

/**
 * Erases a shopper; the shopper and the requests are read again afterwards. `onErased` is
 * called before that: the reading unmounts the result that asked for the erasure.
 */
export function useEraseShopper(onErased: (result: ShopperEraseResult) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { email: string; unsetKlaviyo: boolean }) => callEndpoint(endpoints.privacy.eraseShopper, { body: input }),
    onSuccess: async (result) => {
      onErased(result);
      await queryClient.invalidateQueries({ queryKey: privacyKeys.all });
    },
  });
}

/** The owner's address for Shopify's compliance webhooks. */
export function usePrivacyEndpoint() {
  return useQuery({ queryKey: privacyKeys.endpoint, queryFn: () => callEndpoint(endpoints.privacy.endpoint) });
}

/** Every privacy request with what became of it. */
export function usePrivacyRequests() {
  return useQuery({ queryKey: privacyKeys.requests, queryFn: () => callEndpoint(endpoints.privacy.requests) });
}
