import { Card } from '../ui/card.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { stackedTable } from '../ui/stacked-table.ts';
import { flowTypeDetails } from '../../shared/flows/flow-types.ts';
import { estimatedCostNote, formatCost } from '../../shared/flows/flow-costs.ts';
import type { Spend } from '../../shared/flows/flow-cost-schemas.ts';
import { useFlowCosts } from './use-flow-costs.ts';

/** The share of input tokens OpenAI's prompt cache served, as the owner reads it. */
function cachedShare(spend: Spend): string {
  return spend.inputTokens > 0 ? `${Math.round((spend.cachedInputTokens / spend.inputTokens) * 100)} %` : '–';
}

const columns = ['Today (UTC)', 'Last 7 days', 'OpenAI calls', 'Input from cache'];

/** What each flow spent on OpenAI today (UTC) and over the last 7 days. */
export function DashboardCosts() {
  const costs = useFlowCosts();
  const nothingSpent = costs.data?.flows.every((flow) => flow.last7Days.calls === 0) ?? false;
  const anyEstimated = costs.data?.flows.some((flow) => flow.last7Days.estimatedCalls > 0) ?? false;
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
          <table className={stackedTable.table}>
            <thead className={stackedTable.head}>
              <tr>
                <th scope="col" className="px-4 py-2">
                  Flow
                </th>
                {columns.map((column) => (
                  <th key={column} scope="col" className="px-4 py-2 text-right">
                    {column}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody className={stackedTable.body}>
              {costs.data.flows.map((flow) => {
                const values = [
                  formatCost(flow.today.costUsd, flow.today.estimatedCalls > 0),
                  formatCost(flow.last7Days.costUsd, flow.last7Days.estimatedCalls > 0),
                  flow.last7Days.calls.toLocaleString(),
                  cachedShare(flow.last7Days),
                ];
                return (
                  <tr key={flow.flowType} data-testid="cost-row" className={stackedTable.row}>
                    <th scope="row" className={stackedTable.rowHeader}>
                      {flowTypeDetails[flow.flowType].title}
                    </th>
                    {values.map((value, index) => (
                      <td key={columns[index]} data-label={columns[index]} className={stackedTable.numberCell}>
                        {value}
                      </td>
                    ))}
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
        {anyEstimated ? (
          <p className="border-t border-slate-200 p-4 text-sm text-slate-600" data-testid="costs-estimate-note">
            {estimatedCostNote}
          </p>
        ) : null}
      </Card>
    </section>
  );
}
