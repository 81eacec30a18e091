import { useId } from 'react';
import { AlertTriangle, CheckCircle2, Circle, Store, type LucideIcon } from 'lucide-react';
import { Alert } from '../ui/alert.tsx';
import { Button } from '../ui/button.tsx';
import { Card } from '../ui/card.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { flowTypeDetails, type FlowType } from '../../shared/flows/flow-types.ts';
import { shopifyConnectMessages as m } from '../../shared/shopify-connect/shopify-connect-messages.ts';
import { orderTopic } from '../../shared/shopify-connect/shopify-webhook-topics.ts';
import type { PlannedState } from '../../shared/shopify-connect/store-subscription-plan.ts';
import { planAgainstStore, useConnectStore, useStoreSubscriptions, type PlannedRow } from './use-shopify-connect.ts';
import { useMaskedCredentials } from '../credentials/use-credentials.ts';
import { useFlows } from '../flows/use-flows.ts';
import { PrivacyWebhookAddress } from '../privacy/privacy-webhook-address.tsx';

const stateLooks: Record<PlannedState, { Icon: LucideIcon; classes: string }> = {
  registered: { Icon: CheckCircle2, classes: 'text-green-800' },
  elsewhere: { Icon: AlertTriangle, classes: 'text-amber-900' },
  missing: { Icon: Circle, classes: 'text-slate-700' },
};

/**
 * "Connect store" (issue 7): one button registers the store's webhooks for the active
 * flows. The card lists what Connect registers (the shared plan: each topic, the flow
 * whose address receives it, and why), whether the store has each at the right address,
 * and what Connect would remove. When PUBLIC_URL is not an address Shopify can reach,
 * the card says so instead of offering the button.
 *
 * With `flowType` (on a flow page) it lists the topics that flow needs, the order topic
 * included wherever it is delivered; the button still registers every active flow's,
 * since Shopify's registrations are per store.
 */
export function ConnectStoreCard({ flowType }: { flowType?: FlowType | undefined } = {}) {
  const credentialsVersion = useMaskedCredentials().dataUpdatedAt;
  const subscriptions = useStoreSubscriptions(credentialsVersion);
  const flows = useFlows();
  const connect = useConnectStore(credentialsVersion);
  const notPublic = subscriptions.data?.publicAddress === false;
  const notConfigured = subscriptions.data?.configured === false;
  const { rows, stale } = planAgainstStore(flows.data ?? [], subscriptions.data?.subscriptions ?? [], flowType);
  const outOfStep = rows.some((row) => row.state !== 'registered') || stale.length > 0;
  const texts = flowType
    ? { description: m.flowDescription(flowTypeDetails[flowType].title), plannedTitle: m.flowPlannedTitle, noneNeeded: m.flowNoneNeeded }
    : { description: m.description, plannedTitle: m.plannedTitle, noneNeeded: m.noneNeeded };
  const ids = { heading: useId(), planned: useId(), stale: useId() };

  return (
    <Card>
      <section aria-labelledby={ids.heading} className="space-y-4" data-testid="connect-store-card">
        <header className="flex items-start gap-3">
          <Store aria-hidden="true" className="mt-1 h-5 w-5 shrink-0 text-slate-600" />
          <div className="space-y-1">
            <h2 id={ids.heading} className="text-lg font-semibold text-slate-900">
              {m.title}
            </h2>
            <p className="text-sm text-slate-700">{texts.description}</p>
          </div>
        </header>

        {notPublic ? <Alert tone="warning">{subscriptions.data?.addressProblem ?? m.notPublic}</Alert> : null}
        {notConfigured ? <Alert tone="info">{m.noCredentials}</Alert> : null}
        {connect.isError ? <Alert tone="error">{connect.error.message}</Alert> : null}
        {connect.isSuccess ? <Alert tone="success">{m.connected(connect.data)}</Alert> : null}

        {subscriptions.isPending || flows.isPending ? (
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
        ) : (
          <div className="space-y-4">
            <div className="space-y-2">
              <h3 id={ids.planned} className="text-sm font-semibold text-slate-800">
                {texts.plannedTitle}
              </h3>
              {rows.length === 0 ? (
                <p className="text-sm italic text-slate-600">{texts.noneNeeded}</p>
              ) : (
                <ul aria-labelledby={ids.planned} className="divide-y divide-slate-100">
                  {rows.map((row) => (
                    <PlannedTopic key={row.planned.topic} row={row} showState={!notConfigured} pageFlow={flowType} />
                  ))}
                </ul>
              )}
            </div>
            {outOfStep && !notConfigured && !notPublic ? <Alert tone="info">{m.connectNeeded}</Alert> : null}
            {stale.length > 0 ? (
              <div className="space-y-2">
                <h3 id={ids.stale} className="text-sm font-semibold text-slate-800">
                  {m.staleTitle}
                </h3>
                <ul aria-labelledby={ids.stale} className="divide-y divide-slate-100">
                  {stale.map((subscription) => (
                    <li key={subscription.id} className="grid gap-1 py-2 sm:grid-cols-3 sm:gap-4">
                      <span className="text-sm font-medium text-slate-800">
                        {m.topicInWords(subscription.topic)}
                        <span className="font-normal text-slate-600"> · {flowTypeDetails[subscription.flowType].title}</span>
                      </span>
                      <span className="break-all font-mono text-sm text-slate-900 sm:col-span-2">{subscription.url}</span>
                    </li>
                  ))}
                </ul>
              </div>
            ) : null}
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

/**
 * One planned topic: in words and as Shopify names it, whether the store has it, where it
 * goes (said unless it is a flow page's own topic at its own address), and why.
 */
function PlannedTopic({ row, showState, pageFlow }: { row: PlannedRow; showState: boolean; pageFlow: FlowType | undefined }) {
  const { planned, state, subscription } = row;
  const { Icon, classes } = stateLooks[state];
  const sayWhere = pageFlow !== planned.flowType || planned.topic === orderTopic;
  return (
    <li className="space-y-1 py-2">
      <p className="flex flex-wrap items-baseline gap-x-2">
        <span className="text-sm font-medium text-slate-800">{m.topicInWords(planned.topic)}</span>
        <span className="font-mono text-xs text-slate-600">{planned.topic}</span>
      </p>
      {showState ? (
        <p className={`flex items-center gap-1.5 text-sm ${classes}`}>
          <Icon aria-hidden="true" className="h-4 w-4 shrink-0" />
          {m.state[state]}
        </p>
      ) : null}
      <p className="text-sm text-slate-700">{planned.reason}</p>
      {sayWhere ? <p className="text-sm text-slate-600">{m.deliveredTo(flowTypeDetails[planned.flowType].title)}</p> : null}
      {subscription ? (
        <p className="break-all text-sm text-slate-600">
          {state === 'elsewhere' ? `${m.nowAt} ` : null}
          <span className="font-mono text-slate-900">{subscription.url}</span>
        </p>
      ) : null}
    </li>
  );
}
