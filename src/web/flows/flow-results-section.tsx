import type { Flow } from '../../shared/flows/flow-schemas.ts';
import { RevenuePanel } from '../attribution/revenue-panel.tsx';
import { ContextCostCard } from './context-cost-card.tsx';

/** The flow page's Results: the revenue its texts brought, and what the shopper context costs per event. */
export function FlowResultsSection({ flow }: { flow: Flow }) {
  return (
    <div className="space-y-6">
      <RevenuePanel flowType={flow.flowType} />
      <ContextCostCard flowType={flow.flowType} />
    </div>
  );
}
