import { useQuery } from '@tanstack/react-query';
import { api } from '../app/api-client.ts';
import { Card } from '../ui/card.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { flowTypeDetails } from '../../shared/flows/flow-types.ts';
import { flowCostsResponseSchema, formatUsd, type Spend } from '../../shared/flows/flow-costs.ts';

/** The share of input tokens OpenAI's prompt cache served, as the owner reads it. */
function cachedShare(spend: Spend): string {
  return spend.inputTokens > 0 ? `${Math.round((spend.cachedInputTokens / spend.inputTokens) * 100)} %` : '–';
}

/** What each flow spent on OpenAI today (UTC) and over the last 7 days. */
export function DashboardCosts() {
  const costs = useQuery({
    queryKey: ['flows', 'costs'],
    queryFn: async () => flowCostsResponseSchema.parse(await api.get('/api/flows/costs')),
    refetchInterval: 60_000,
    retry: false,
  });
  const nothingSpent = costs.data?.flows.every((flow) => flow.last7Days.calls === 0) ?? false;
  return (
    <section aria-labelledby="costs-heading" className="space-y-4">
      <h2 id="costs-heading" className="text-xl font-semibold text-slate-900">
        OpenAI cost
      </h2>
      <Card className="p-0">
        {costs.isPending ? (
          <Spinner label="Loading costs" />
        ) : costs.error ? (
          <p role="alert" className="p-4 text-sm text-red-700">
            The costs could not be loaded: {costs.error.message}. Reload the page to try again.
          </p>
        ) : nothingSpent ? (
          <p className="p-4 text-sm text-slate-600" data-testid="costs-empty">
            Nothing spent in the last 7 days. Each flow&apos;s cost shows here once it writes texts.
          </p>
        ) : (
          <div className="overflow-x-auto">
            <table className="min-w-full divide-y divide-slate-200 text-sm">
              <thead className="text-left text-xs font-semibold uppercase tracking-wide text-slate-600">
                <tr>
                  <th scope="col" className="px-4 py-2">
                    Flow
                  </th>
                  <th scope="col" className="px-4 py-2 text-right">
                    Today (UTC)
                  </th>
                  <th scope="col" className="px-4 py-2 text-right">
                    Last 7 days
                  </th>
                  <th scope="col" className="px-4 py-2 text-right">
                    OpenAI calls
                  </th>
                  <th scope="col" className="px-4 py-2 text-right">
                    Input from cache
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-200">
                {costs.data.flows.map((flow) => (
                  <tr key={flow.flowType} data-testid="cost-row">
                    <th scope="row" className="px-4 py-2 text-left font-medium">
                      {flowTypeDetails[flow.flowType].title}
                    </th>
                    <td className="px-4 py-2 text-right tabular-nums">{formatUsd(flow.today.costUsd)}</td>
                    <td className="px-4 py-2 text-right tabular-nums">{formatUsd(flow.last7Days.costUsd)}</td>
                    <td className="px-4 py-2 text-right tabular-nums">{flow.last7Days.calls.toLocaleString()}</td>
                    <td className="px-4 py-2 text-right tabular-nums">{cachedShare(flow.last7Days)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
    </section>
  );
}
