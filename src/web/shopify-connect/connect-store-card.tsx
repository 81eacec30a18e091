import { useId } from 'react';
import { Store } from 'lucide-react';
import { Alert } from '../ui/alert.tsx';
import { Button } from '../ui/button.tsx';
import { Card } from '../ui/card.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { flowTypeDetails, type FlowType } from '../../shared/flows/flow-types.ts';
import { shopifyConnectMessages as m } from '../../shared/shopify-connect/shopify-connect-messages.ts';
import { flowWebhookTopics } from '../../shared/shopify-connect/shopify-connect-schemas.ts';
import { useConnectStore, useStoreSubscriptions } from './use-shopify-connect.ts';
import { useMaskedCredentials } from '../credentials/use-credentials.ts';
import { PrivacyWebhookAddress } from '../privacy/privacy-webhook-address.tsx';

/**
 * "Connect store" (issue 7): one button registers the store's webhooks for the active
 * flows, and the card lists what the store has registered. When PUBLIC_URL is not an
 * address Shopify can reach, the card says so instead of offering the button.
 *
 * With `flowType` (on a flow page) it lists that flow's subscriptions only; the button
 * still registers every active flow's, since Shopify's registrations are per store.
 */
export function ConnectStoreCard({ flowType }: { flowType?: FlowType | undefined } = {}) {
  const credentialsVersion = useMaskedCredentials().dataUpdatedAt;
  const subscriptions = useStoreSubscriptions(credentialsVersion);
  const connect = useConnectStore(credentialsVersion);
  const notPublic = subscriptions.data?.publicAddress === false;
  const notConfigured = subscriptions.data?.configured === false;
  const shown = subscriptions.data?.subscriptions.filter((subscription) => !flowType || subscription.flowType === flowType) ?? [];
  const texts = flowType
    ? {
        description: m.flowDescription(flowTypeDetails[flowType].title, flowWebhookTopics[flowType]),
        noneRegistered: m.flowNoneRegistered,
        registeredTitle: m.flowRegisteredTitle,
      }
    : { description: m.description, noneRegistered: m.noneRegistered, registeredTitle: m.registeredTitle };
  const headingId = useId();

  return (
    <Card>
      <section aria-labelledby={headingId} className="space-y-4" data-testid="connect-store-card">
        <header className="flex items-start gap-3">
          <Store aria-hidden="true" className="mt-1 h-5 w-5 shrink-0 text-slate-600" />
          <div className="space-y-1">
            <h2 id={headingId} className="text-lg font-semibold text-slate-900">
              {m.title}
            </h2>
            <p className="text-sm text-slate-700">{texts.description}</p>
          </div>
        </header>

        {notPublic ? <Alert tone="warning">{m.notPublic}</Alert> : null}
        {notConfigured ? <Alert tone="info">{m.noCredentials}</Alert> : null}
        {connect.isError ? <Alert tone="error">{connect.error.message}</Alert> : null}
        {connect.isSuccess ? <Alert tone="success">{m.connected(connect.data)}</Alert> : null}

        {subscriptions.isPending ? (
          <Spinner label="Loading registered webhooks" />
        ) : subscriptions.isError ? (
          <div className="space-y-3">
            <Alert tone="error" title={m.loadFailed}>
              {subscriptions.error.message}
            </Alert>
            <Button variant="secondary" onClick={() => void subscriptions.refetch()}>
              Retry
            </Button>
          </div>
        ) : shown.length === 0 ? (
          <p className="text-sm italic text-slate-600">{texts.noneRegistered}</p>
        ) : (
          <div className="space-y-2">
            <h3 className="text-sm font-semibold text-slate-800">{texts.registeredTitle}</h3>
            <ul className="divide-y divide-slate-100">
              {shown.map((subscription) => (
                <li key={subscription.id} className="grid gap-1 py-2 sm:grid-cols-3 sm:gap-4">
                  <span className="text-sm font-medium text-slate-800">
                    {subscription.topic}
                    {/* On a flow page every row is that flow's. */}
                    {flowType ? null : <span className="font-normal text-slate-600"> · {flowTypeDetails[subscription.flowType].title}</span>}
                  </span>
                  <span className="break-all font-mono text-sm text-slate-900 sm:col-span-2">{subscription.url}</span>
                </li>
              ))}
            </ul>
          </div>
        )}

        <Button busy={connect.isPending} disabled={notPublic || notConfigured || connect.isPending} onClick={() => connect.mutate()}>
          {m.connect}
        </Button>
        {flowType ? null : <PrivacyWebhookAddress />}
      </section>
    </Card>
  );
}
