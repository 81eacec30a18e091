import { useId } from 'react';
import { Plug } from 'lucide-react';
import { Alert } from '../ui/alert.tsx';
import { Button } from '../ui/button.tsx';
import { Card } from '../ui/card.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { ApiRequestError } from '../app/api-client.ts';
import { connectionMessages as m } from '../../shared/connections/connection-messages.ts';
import type { ConnectionsResponse } from '../../shared/connections/connection-schemas.ts';
import type { MaskedCredentials } from '../../shared/credentials/credential-schemas.ts';
import { useConnections, type ConnectionReturnPage } from './use-connections.ts';
import { ShopifyConnectCard } from './shopify-connect-card.tsx';
import { KlaviyoConnectCard } from './klaviyo-connect-card.tsx';

/** Which services the connections list shows: those the deployment connects in one click, and any connected so. */
export function connectionsShown(connections: ConnectionsResponse, stored: MaskedCredentials | null) {
  return {
    shopify: connections.offered.shopify || connections.shopify !== null || stored?.shopifyAuthMethod === 'oauth',
    klaviyo: connections.offered.klaviyo || connections.klaviyo !== null || stored?.klaviyoAuthMethod === 'oauth',
  };
}

/**
 * API Settings' connections: for Shopify and Klaviyo, how each is connected (in one click
 * or with keys), as whom, with which scopes and when its token was last renewed, and the
 * buttons to connect, reconnect or disconnect. A deployment without its own apps shows
 * nothing here (the page is as it was before one-click connections), and the card shows
 * its spinner while loading only where a service is known to be connected in one click.
 */
export function ConnectionsCard({
  stored,
  returnTo,
  initialShop,
}: {
  stored: MaskedCredentials | null;
  returnTo: ConnectionReturnPage;
  initialShop?: string | null | undefined;
}) {
  const connections = useConnections();
  const headingId = useId();

  if (!connections.data) {
    if (!connections.isError) {
      // Loading: the card's place is held only where it is sure to appear (a service connected in one click).
      const expected = stored?.shopifyAuthMethod === 'oauth' || stored?.klaviyoAuthMethod === 'oauth';
      return expected ? (
        <Card>
          <Spinner label={m.loading} />
        </Card>
      ) : null;
    }
    return (
      <Card>
        <div className="space-y-3" data-testid="connections-card">
          <Alert tone="error" title={m.loadFailed}>
            {connections.error instanceof ApiRequestError ? connections.error.message : null}
          </Alert>
          <Button variant="secondary" onClick={() => void connections.refetch()}>
            {m.retry}
          </Button>
        </div>
      </Card>
    );
  }

  const data = connections.data;
  const shown = connectionsShown(data, stored);
  if (!shown.shopify && !shown.klaviyo) return null;
  return (
    <Card>
      <section aria-labelledby={headingId} className="space-y-4" data-testid="connections-card">
        <header className="flex items-start gap-3">
          <Plug aria-hidden="true" className="mt-1 h-5 w-5 shrink-0 text-slate-600" />
          <div className="space-y-1">
            <h2 id={headingId} className="text-lg font-semibold text-slate-900">
              {m.sectionTitle}
            </h2>
            <p className="text-sm text-slate-700">{m.sectionIntro}</p>
          </div>
        </header>
        <ul className="divide-y divide-slate-100">
          {shown.shopify ? (
            <li className="py-4 first:pt-0 last:pb-0">
              <ShopifyConnectCard connection={data.shopify} stored={stored} offered={data.offered.shopify} returnTo={returnTo} initialShop={initialShop} />
            </li>
          ) : null}
          {shown.klaviyo ? (
            <li className="py-4 first:pt-0 last:pb-0">
              <KlaviyoConnectCard connection={data.klaviyo} stored={stored} offered={data.offered.klaviyo} returnTo={returnTo} />
            </li>
          ) : null}
        </ul>
      </section>
    </Card>
  );
}
