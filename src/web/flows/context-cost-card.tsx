import { Card } from '../ui/card.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { contextCostMessages as m, formatUsd } from '../../shared/flows/flow-costs.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import { useFlowCosts } from '../dashboard/use-flow-costs.ts';

/**
 * What the shopper context (history, Klaviyo predictions, recommendations) adds to each of
 * this flow's events, so the owner can weigh the richer prompts against their price.
 */
export function ContextCostCard({ flowType }: { flowType: FlowType }) {
  const costs = useFlowCosts();
  // The dashboard says when the costs cannot be loaded; here the card just stays away.
  if (costs.error) return null;
  const context = costs.data?.flows.find((flow) => flow.flowType === flowType)?.context ?? null;
  return (
    <Card>
      <section aria-labelledby="context-cost-title" className="space-y-2" data-testid="context-cost">
        <h2 id="context-cost-title" className="text-lg font-semibold text-slate-900">
          {m.title}
        </h2>
        {costs.isPending ? (
          <Spinner label={m.title} />
        ) : context ? (
          <>
            <p className="text-sm text-slate-700">{m.perEvent(Math.round(context.tokensPerEvent).toLocaleString('en-US'), formatUsd(context.usdPerEvent), context.events)}</p>
            <p className="text-sm font-medium text-slate-800">{m.per1000(formatUsd(context.usdPerEvent * 1000))}</p>
          </>
        ) : (
          <p className="text-sm text-slate-700">{m.none}</p>
        )}
      </section>
    </Card>
  );
}
