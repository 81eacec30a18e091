import { useNavigate } from 'react-router';
import type { Flow } from '../../shared/flows/flow-schemas.ts';
import { flowTypeDetails } from '../../shared/flows/flow-types.ts';
import { Card } from '../ui/card.tsx';
import { FlowConfigForm } from './flow-config-form.tsx';

/**
 * The flow page's Settings: the configuration form (docs/product/specification.md §2).
 * Saving, or Cancel on a saved flow, returns to the flow's status at the top of its page.
 */
export function FlowSettingsSection({ flow }: { flow: Flow }) {
  const navigate = useNavigate();
  const toStatus = () => navigate(flowTypeDetails[flow.flowType].path);
  return (
    <Card>
      <FlowConfigForm key={flow.id} flow={flow} onSaved={toStatus} onCancel={flow.webhookUrl ? toStatus : undefined} />
    </Card>
  );
}
