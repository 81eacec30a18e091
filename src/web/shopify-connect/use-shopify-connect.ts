import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callEndpoint, retryWhenBusy } from '../app/api-client.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import type { EndpointResponse } from '../../shared/api/endpoint.ts';

/**
 * Keyed by when the credentials were last loaded, so saving other Shopify credentials
 * reads the (possibly other) store again.
 */
const subscriptionsKey = (credentialsVersion: number) => ['shopify', 'subscriptions', credentialsVersion] as const;

/** What the store has registered for the owner's flows, read live from Shopify. */
export function useStoreSubscriptions(credentialsVersion: number) {
  return useQuery({
    queryKey: subscriptionsKey(credentialsVersion),
    queryFn: () => callEndpoint(endpoints.shopify.subscriptions),
    enabled: credentialsVersion > 0,
    retry: retryWhenBusy,
  });
}

/** Registers the active flows' webhooks; the list then shows what the store answered. */
export function useConnectStore(credentialsVersion: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => callEndpoint(endpoints.shopify.connect),
    onSuccess: (result) => {
      queryClient.setQueryData(subscriptionsKey(credentialsVersion), (previous: EndpointResponse<typeof endpoints.shopify.subscriptions> | undefined) => ({
        configured: true,
        publicAddress: previous?.publicAddress ?? true,
        subscriptions: result.subscriptions,
      }));
    },
  });
}
