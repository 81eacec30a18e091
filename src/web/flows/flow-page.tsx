import { useState } from 'react';
import { Link } from 'react-router';
import { ArrowLeft } from 'lucide-react';
import { Card } from '../ui/card.tsx';
import { Button } from '../ui/button.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { pageRoutes } from '../../shared/routes.ts';
import { flowTypeDetails, type FlowType } from '../../shared/flows/flow-types.ts';
import { flowMessages } from '../../shared/flows/flow-messages.ts';
import { FlowIcon } from './flow-icon.tsx';
import { FlowStatusView } from './flow-status-view.tsx';
import { FlowConfigForm } from './flow-config-form.tsx';
import { useFlows } from './use-flows.ts';
import { WebhookConsoleWhenOpen } from '../webhooks/webhook-console.tsx';
import { EventLog } from '../events/event-log.tsx';
import { RevenuePanel } from '../attribution/revenue-panel.tsx';
import { FlowPreviewCard } from '../flow-preview/flow-preview-card.tsx';
import { ContextCostCard } from './context-cost-card.tsx';
import { ExperimentCard } from '../experiments/experiment-card.tsx';
import { FlowAlerts } from '../alerts/flow-alerts.tsx';
import { useFlowAlerts } from '../alerts/use-flow-alerts.ts';
import { ServiceConditions } from '../service-conditions/service-conditions.tsx';
import { useServiceConditions } from '../service-conditions/use-service-conditions.ts';
import { PixelSnippetCard } from '../shopify-pixel/pixel-snippet-card.tsx';
import { ConnectStoreCard } from '../shopify-connect/connect-store-card.tsx';
import { flowWebhookTopics } from '../../shared/shopify-connect/shopify-connect-schemas.ts';

type Mode = 'status' | 'form';

/**
 * One page per flow (docs/product/specification.md §2 "Flow page"): the form first while the flow has no webhook
 * URL, the status view after saving, and Configure Flow back to the form.
 */
export function FlowPage({ flowType }: { flowType: FlowType }) {
  const details = flowTypeDetails[flowType];
  const flows = useFlows();
  const [chosenMode, setChosenMode] = useState<Mode | null>(null);
  const flow = flows.data?.find((candidate) => candidate.flowType === flowType);
  const mode: Mode = chosenMode ?? (flow?.webhookUrl ? 'status' : 'form');
  const alerts = useFlowAlerts();
  const conditions = useServiceConditions();

  return (
    <div className="space-y-6">
      <Link to={pageRoutes.dashboard} className="inline-flex items-center gap-1 text-sm font-medium text-indigo-700 hover:underline">
        <ArrowLeft aria-hidden="true" className="h-4 w-4" />
        Back to Dashboard
      </Link>
      <header className="flex items-center gap-4">
        <FlowIcon flowType={flowType} />
        <div>
          <h1 className="text-2xl font-bold">{details.title}</h1>
          <p className="text-slate-700">{details.tagline}</p>
        </div>
      </header>
      <ServiceConditions conditions={conditions.data} />
      <FlowAlerts alerts={alerts.data} flowType={flowType} />
      <Card>
        {flows.isPending ? (
          <Spinner label="Loading flow configuration" />
        ) : !flow ? (
          <div role="alert" className="space-y-3">
            <p className="font-medium text-red-700">{flowMessages.loadFailed}</p>
            {flows.error ? <p className="text-sm text-slate-700">{flows.error.message}</p> : null}
            <Button variant="secondary" onClick={() => void flows.refetch()}>
              Retry
            </Button>
          </div>
        ) : mode === 'form' ? (
          <FlowConfigForm
            key={flow.id}
            flow={flow}
            onSaved={() => setChosenMode('status')}
            onCancel={flow.webhookUrl ? () => setChosenMode('status') : undefined}
          />
        ) : (
          <FlowStatusView flow={flow} onConfigure={() => setChosenMode('form')} />
        )}
      </Card>
      <WebhookConsoleWhenOpen flow={flow} />
      {/* How Shopify's events reach a saved flow: product views have no webhook, so the
          browsing flow gets the pixel; every flow gets the store's webhook subscriptions
          (the browsing flow may receive the orders that end its timers). */}
      {flow?.webhookUrl && flowWebhookTopics[flowType].length === 0 ? <PixelSnippetCard waitMinutes={flow.waitMinutes} /> : null}
      {flow?.webhookUrl ? <ConnectStoreCard flowType={flowType} /> : null}
      {flow ? <FlowPreviewCard flow={flow} /> : null}
      {flow ? <ExperimentCard flow={flow} /> : null}
      {/* Only a saved flow has events whose prompts the context could have added to. */}
      {flow?.webhookUrl ? <ContextCostCard flowType={flowType} /> : null}
      {flow?.webhookUrl ? <RevenuePanel flowType={flowType} /> : null}
      {flow?.webhookUrl ? (
        <Card>
          <EventLog flowType={flowType} />
        </Card>
      ) : null}
    </div>
  );
}
