import { Link } from 'react-router';
import { ArrowRight } from 'lucide-react';
import { Card } from '../ui/card.tsx';
import { FlowIcon } from '../flows/flow-icon.tsx';
import { FlowDayFigures } from './flow-day-figures.tsx';
import { flowTypeDetails, type FlowType } from '../../shared/flows/flow-types.ts';
import type { DashboardFlow, FlowHealth } from '../../shared/dashboard/dashboard-schemas.ts';
import { flowHealthLabels } from '../../shared/dashboard/dashboard-messages.ts';

const healthClasses: Record<FlowHealth, string> = {
  no_events: 'bg-slate-100 text-slate-700',
  working: 'bg-green-100 text-green-800',
  failing: 'bg-red-100 text-red-800',
};

const badge = 'inline-flex rounded-full px-2.5 py-0.5 text-xs font-semibold';

/**
 * One of the four flow cards of docs/product/specification.md §2 (title, tagline, the
 * whole card a link to the flow), with how the flow is doing once the dashboard's figures
 * are in.
 */
export function FlowCard({ flowType, state }: { flowType: FlowType; state: DashboardFlow | undefined }) {
  const details = flowTypeDetails[flowType];
  return (
    <Card className="relative flex h-full flex-col gap-3 p-4 transition hover:border-indigo-300 hover:shadow-md focus-within:ring-2 focus-within:ring-indigo-600 sm:p-6">
      <div className="flex gap-4">
        <FlowIcon flowType={flowType} />
        <div className="min-w-0 space-y-1">
          <h3 className="text-lg font-semibold text-slate-900">
            {/* The link covers the whole card; its name stays the flow's title. */}
            <Link to={details.path} className="after:absolute after:inset-0 after:content-[''] focus:outline-none">
              {details.title}
            </Link>
          </h3>
          <p className="text-sm text-slate-700">{details.tagline}</p>
        </div>
      </div>
      {state ? (
        <div data-testid="flow-state" data-flow={flowType} className="space-y-2">
          <p className="flex flex-wrap gap-2">
            <span className={`${badge} ${state.isActive ? 'bg-green-100 text-green-800' : 'bg-slate-200 text-slate-800'}`}>{state.isActive ? 'Active' : 'Inactive'}</span>
            <span data-testid="flow-health" className={`${badge} ${healthClasses[state.health]}`}>
              {flowHealthLabels[state.health]}
            </span>
          </p>
          <FlowDayFigures state={state} />
        </div>
      ) : null}
      <p className="mt-auto inline-flex items-center gap-1 text-sm font-medium text-indigo-700" aria-hidden="true">
        Configure <ArrowRight className="h-4 w-4" />
      </p>
    </Card>
  );
}
