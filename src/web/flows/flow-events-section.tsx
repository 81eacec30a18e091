import type { Flow } from '../../shared/flows/flow-schemas.ts';
import { Card } from '../ui/card.tsx';
import { EventLog } from '../events/event-log.tsx';

/** The flow page's Events: the event log with its filters and each event's detail. */
export function FlowEventsSection({ flow }: { flow: Flow }) {
  return (
    <Card>
      <EventLog flowType={flow.flowType} />
    </Card>
  );
}
