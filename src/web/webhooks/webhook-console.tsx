import { useSearchParams } from 'react-router';
import { Card } from '../ui/card.tsx';
import { Alert } from '../ui/alert.tsx';
import { webhookConsoleParam } from '../../shared/routes.ts';
import type { Flow } from '../../shared/flows/flow-schemas.ts';
import { webhookConsoleMessages as m } from '../../shared/webhooks/webhook-messages.ts';
import { useWebhookConsole } from './use-webhook-console.ts';
import { ListenerPanel } from './webhook-listener-panel.tsx';
import { RequestPanel } from './webhook-request-panel.tsx';
import { ResultsPanel } from './webhook-results-panel.tsx';

/** Renders the console when the flow page's Test Webhook link set `?console=1`. */
export function WebhookConsoleWhenOpen({ flow }: { flow: Flow | undefined }) {
  const [searchParams] = useSearchParams();
  if (!flow || searchParams.get(webhookConsoleParam) !== '1') return null;
  return <WebhookConsole key={flow.id} flow={flow} />;
}

/**
 * The Webhook Test Console of docs/product/specification.md §2: listening, the test
 * request, and what came of it. Its state and actions are useWebhookConsole's.
 */
export function WebhookConsole({ flow }: { flow: Flow }) {
  const consoleModel = useWebhookConsole(flow);
  const { state, flowType, webhookUrl } = consoleModel;
  return (
    <Card className="space-y-6">
      <section aria-labelledby="webhook-console-heading" className="space-y-4" data-testid="webhook-console">
        <ListenerPanel
          listening={state.listening}
          hasEvents={state.events.length > 0}
          webhookUrl={webhookUrl}
          onStart={consoleModel.startListening}
          onStop={consoleModel.stopListening}
          onClear={consoleModel.clear}
          onCopyUrl={() => void consoleModel.copyUrl()}
        />

        <RequestPanel
          payload={state.payload}
          payloadError={state.payloadError}
          freshIdentity={state.freshIdentity}
          dryRun={state.dryRun}
          webhookUrl={webhookUrl}
          sending={consoleModel.sending}
          signatureRequired={consoleModel.signatureRequired}
          onPayloadChange={consoleModel.editPayload}
          onFreshIdentityChange={consoleModel.setFreshIdentity}
          onDryRunChange={consoleModel.setDryRun}
          onCopyCurl={() => void consoleModel.copyCurl()}
          onSend={() => void consoleModel.send()}
        />

        <ResultsPanel
          regionRef={consoleModel.results}
          outcome={state.outcome}
          listening={state.listening}
          lastUpdated={state.lastUpdated}
          events={state.events}
          showDebug={state.showDebug}
          debugDetails={{ flowType, webhookUrl, listening: state.listening, storedEvents: state.events.length, ...state.debug }}
          onToggleDebug={consoleModel.toggleDebug}
        />

        <Alert tone="info" title="In production">
          {m.productionNote}
        </Alert>
      </section>
    </Card>
  );
}
