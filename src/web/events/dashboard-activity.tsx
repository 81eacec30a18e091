import { Card } from '../ui/card.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { flowTypeDetails } from '../../shared/flows/flow-types.ts';
import { eventLogMessages } from '../../shared/events/event-messages.ts';
import { useActivitySummary } from './use-events.ts';

/** The dashboard's last 24 hours per flow: events received, deliveries made, failures, tokens used. */
export function DashboardActivity() {
  const activity = useActivitySummary();
  return (
    <section aria-labelledby="activity-heading" className="space-y-4">
      <h2 id="activity-heading" className="text-xl font-semibold text-slate-900">
        Last 24 hours
      </h2>
      <Card className="p-0">
        {activity.isPending ? (
          <Spinner label="Loading activity" />
        ) : activity.error ? (
          <p role="alert" className="p-4 text-sm text-red-700">
            {eventLogMessages.loadFailed}: {activity.error.message}
          </p>
        ) : (
          <table className="min-w-full divide-y divide-slate-200 text-sm">
            <thead className="text-left text-xs font-semibold uppercase tracking-wide text-slate-600">
              <tr>
                <th scope="col" className="px-4 py-2">
                  Flow
                </th>
                <th scope="col" className="px-4 py-2 text-right">
                  Events
                </th>
                <th scope="col" className="px-4 py-2 text-right">
                  Delivered
                </th>
                <th scope="col" className="px-4 py-2 text-right">
                  Failed
                </th>
                <th scope="col" className="px-4 py-2 text-right">
                  Tokens used
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-200">
              {activity.data.flows.map((flow) => (
                <tr key={flow.flowType} data-testid="activity-row">
                  <th scope="row" className="px-4 py-2 text-left font-medium">
                    {/* The flow cards above already link each flow; a second link of the same name would only repeat them. */}
                    {flowTypeDetails[flow.flowType].title}
                  </th>
                  <td className="px-4 py-2 text-right tabular-nums">{flow.events.toLocaleString()}</td>
                  <td className="px-4 py-2 text-right tabular-nums">{flow.deliveries.toLocaleString()}</td>
                  <td className={`px-4 py-2 text-right tabular-nums ${flow.failed > 0 ? 'font-semibold text-red-700' : ''}`}>{flow.failed.toLocaleString()}</td>
                  <td className="px-4 py-2 text-right tabular-nums">{flow.tokens.toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Card>
    </section>
  );
}
