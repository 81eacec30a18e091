import { useCallback, useEffect, useState } from 'react';
import { toast } from '../app/toast.ts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiRequestError, callEndpoint, retryWhenBusy } from '../app/api-client.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import type { ConnectedService } from '../../shared/connections/connection-outcomes.ts';
import type { connectionReturnPages, KlaviyoConnectionStatus, ShopifyConnectionStatus } from '../../shared/connections/connection-schemas.ts';
import { connectionMessages as m } from '../../shared/connections/connection-messages.ts';
import { shopifyScopes } from '../../shared/shopify-connect/shopify-scopes.ts';
import { klaviyoKeyScopes } from '../../shared/credentials/klaviyo-scopes.ts';
import { credentialKeys } from '../credentials/use-credentials.ts';
import { serviceConditionKeys } from '../service-conditions/use-service-conditions.ts';

/** A page the service's consent page sends the owner back to. */
export type ConnectionReturnPage = (typeof connectionReturnPages)[number];

/** The connections' query keys: one for every page and form that reads them, so they share one answer. */
export const connectionKeys = {
  all: ['connections'] as const,
};

/** Which one-click connections the deployment offers, and how each of the owner's services is connected. */
export function useConnections() {
  return useQuery({
    queryKey: connectionKeys.all,
    queryFn: () => callEndpoint(endpoints.connections.status),
    retry: retryWhenBusy,
  });
}

/** Reads the connections again, e.g. after credentials saved on a page that shows them. */
export function useReloadConnections(): () => Promise<void> {
  const queryClient = useQueryClient();
  return useCallback(() => queryClient.invalidateQueries({ queryKey: connectionKeys.all }), [queryClient]);
}

/**
 * The browser leaves for the service's consent page: the button stays busy until the page
 * is gone. Coming back with the browser's Back button may restore this page as it was
 * (the back-forward cache), so it is made usable again then.
 */
function useLeaving(): [boolean, (leaving: boolean) => void] {
  const [leaving, setLeaving] = useState(false);
  useEffect(() => {
    const onShow = (event: PageTransitionEvent) => {
      if (event.persisted) setLeaving(false);
    };
    window.addEventListener('pageshow', onShow);
    return () => window.removeEventListener('pageshow', onShow);
  }, []);
  return [leaving, setLeaving];
}

function leaveFor(authorizeUrl: string): void {
  // The address comes from our server; only a web address is followed all the same.
  const protocol = new URL(authorizeUrl, window.location.href).protocol;
  if (protocol !== 'https:' && protocol !== 'http:') throw new Error(`not a web address: ${protocol}`);
  window.location.assign(authorizeUrl);
}

/** "Connect Shopify": asks the server for Shopify's consent page for `shop`, then goes there. */
export function useStartShopifyConnection() {
  const [leaving, setLeaving] = useLeaving();
  const mutation = useMutation({
    mutationFn: (input: { shop: string; returnTo: ConnectionReturnPage }) => callEndpoint(endpoints.connections.startShopify, { body: input }),
    onSuccess: ({ authorizeUrl }) => {
      setLeaving(true);
      leaveFor(authorizeUrl);
    },
  });
  return { ...mutation, busy: mutation.isPending || leaving, leaving };
}

/** "Connect Klaviyo": asks the server for Klaviyo's consent page, then goes there. */
export function useStartKlaviyoConnection() {
  const [leaving, setLeaving] = useLeaving();
  const mutation = useMutation({
    mutationFn: (input: { returnTo: ConnectionReturnPage }) => callEndpoint(endpoints.connections.startKlaviyo, { body: input }),
    onSuccess: ({ authorizeUrl }) => {
      setLeaving(true);
      leaveFor(authorizeUrl);
    },
  });
  return { ...mutation, busy: mutation.isPending || leaving, leaving };
}

/** Ends the Klaviyo connection; the connections, the stored credentials and the conditions are read again. */
export function useDisconnectKlaviyo() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => callEndpoint(endpoints.connections.disconnectKlaviyo),
    // The toast is said here, not in the button's own callback: the refetch below
    // unmounts the Disconnect button, and a mutate() callback of an unmounted
    // component is never called, so the owner would not be told.
    onSuccess: async ({ revoked }) => {
      if (revoked) toast.success(m.disconnected);
      else toast.warning(m.disconnectedNotRevoked);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: connectionKeys.all }),
        queryClient.invalidateQueries({ queryKey: credentialKeys.record }),
        queryClient.invalidateQueries({ queryKey: serviceConditionKeys.all }),
      ]);
    },
  });
}

/** What a failed start says: the server's own words when it gave some, else ours. */
export function startErrorOf(error: unknown, service: ConnectedService): { field: string | null; message: string } {
  if (!(error instanceof ApiRequestError)) return { field: null, message: m.startFailed(service) };
  const field = error.body.fieldErrors?.shop ?? null;
  return { field, message: error.message || m.startFailed(service) };
}

/** The scopes Flowsmith needs that a connection was not granted (a write scope covers its read scope). */
export function missingScopes(service: 'shopify', connection: ShopifyConnectionStatus): string[];
export function missingScopes(service: 'klaviyo', connection: KlaviyoConnectionStatus): string[];
export function missingScopes(service: ConnectedService, connection: { scopes: string[] }): string[] {
  const granted = new Set(connection.scopes);
  if (service === 'shopify') return shopifyScopes.filter((scope) => !granted.has(scope) && !granted.has(scope.replace(/^read_/, 'write_')));
  return klaviyoKeyScopes.filter((scope) => !granted.has(scope));
}

/** A time as the owner's browser writes it. */
export function formatConnectionTime(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
