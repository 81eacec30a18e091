import type { Flow } from '../../shared/flows/flow-schemas.ts';
import { flowWebhookTopics } from '../../shared/shopify-connect/shopify-webhook-topics.ts';
import { Card } from '../ui/card.tsx';
import { PixelSnippetCard } from '../shopify-pixel/pixel-snippet-card.tsx';
import { ConnectStoreCard } from '../shopify-connect/connect-store-card.tsx';
import { FlowSignatureSection } from './flow-signature-section.tsx';

/**
 * The flow page's Store section: how Shopify's events reach a saved flow, and the
 * signature its webhook URL asks for. Product views have no webhook, so the browsing flow
 * gets the pixel; every flow gets the store's webhook subscriptions (the browsing flow may
 * receive the orders that end its timers).
 */
export function FlowStoreSection({ flow }: { flow: Flow & { webhookUrl: string } }) {
  return (
    <div className="space-y-6">
      {flowWebhookTopics[flow.flowType].length === 0 ? <PixelSnippetCard waitMinutes={flow.waitMinutes} /> : null}
      <ConnectStoreCard flowType={flow.flowType} />
      <Card>
        <FlowSignatureSection flowType={flow.flowType} webhookUrl={flow.webhookUrl} />
      </Card>
    </div>
  );
}
