import { flowAlertMessages as m } from '../../shared/alerts/flow-alert-messages.ts';
import { flowTypeDetails, type FlowType } from '../../shared/flows/flow-types.ts';
import { Alert } from '../ui/alert.tsx';
import type { useFlowAlerts } from './use-flow-alerts.ts';

/**
 * Flows that stopped writing texts today for a reason the owner controls
 * (docs/decisions/0041-flow-alerts.md): what stopped each, how many shoppers it touched,
 * and the control that lifts it. One flow's alerts with `flowType`, else all.
 */
export function FlowAlerts({ alerts, flowType }: { alerts: ReturnType<typeof useFlowAlerts>['data']; flowType?: FlowType }) {
  const shown = (alerts?.alerts ?? []).filter((alert) => !flowType || alert.flowType === flowType);
  if (shown.length === 0) return null;
  return (
    <div className="space-y-3" data-testid="flow-alerts">
      {shown.map((alert) => (
        <Alert key={`${alert.flowType}-${alert.reason}`} tone="warning" title={m.title(flowTypeDetails[alert.flowType].title)}>
          {m.reason[alert.reason](alert.detail, alert.shoppers)}
        </Alert>
      ))}
    </div>
  );
}
