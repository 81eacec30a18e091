import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callEndpoint, retryWhenBusy } from '../app/api-client.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import type { EndpointResponse } from '../../shared/api/endpoint.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import type { RegisteredSubscription } from '../../shared/shopify-connect/shopify-connect-schemas.ts';
import { matchRegistered, planStoreSubscriptions, type PlannedState, type PlannedSubscription } from '../../shared/shopify-connect/store-subscription-plan.ts';

/** The store connection's query keys. */
export const shopifyConnectKeys = {
  /**
   * Keyed by when the credentials were last loaded, so saving other Shopify credentials
   * reads the (possibly other) store again.
   */
  subscriptions: (credentialsVersion: number) => ['shopify', 'subscriptions', credentialsVersion] as const,
};

/** What the store has registered for the owner's flows, read live from Shopify. */
export function useStoreSubscriptions(credentialsVersion: number) {
  return useQuery({
    queryKey: shopifyConnectKeys.subscriptions(credentialsVersion),
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
      queryClient.setQueryData(shopifyConnectKeys.subscriptions(credentialsVersion), (previous: EndpointResponse<typeof endpoints.shopify.subscriptions> | undefined) => ({
        configured: true,
        publicAddress: previous?.publicAddress ?? true,
        addressProblem: previous?.addressProblem ?? null,
        subscriptions: result.subscriptions,
      }));
    },
  });
}

export interface PlannedRow {
  planned: PlannedSubscription;
  state: PlannedState;
  /** The subscription the store has for it (at the right address, or the one Connect moves). */
  subscription: RegisteredSubscription | null;
}

/**
 * What Connect store registers (the shared plan, from the flows as saved) beside what the
 * store has: each planned topic with its state, and the registered subscriptions Connect
 * would delete. With `flowType` (a flow page): the topics that flow needs, wherever they
 * are delivered, and the stale subscriptions at its address or of those topics.
 */
export function planAgainstStore(
  flows: ReadonlyArray<{ flowType: FlowType; isActive: boolean }>,
  registered: readonly RegisteredSubscription[],
  flowType?: FlowType,
): { rows: PlannedRow[]; stale: RegisteredSubscription[] } {
  const { rows, stale } = matchRegistered(planStoreSubscriptions(flows), registered);
  if (!flowType) return { rows, stale };
  const shown = rows.filter((row) => row.planned.neededBy.includes(flowType));
  const topics = new Set(shown.map((row) => row.planned.topic as string));
  return { rows: shown, stale: stale.filter((subscription) => subscription.flowType === flowType || topics.has(subscription.topic)) };
}
