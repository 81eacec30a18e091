import { Link } from 'react-router';
import { ArrowRight, KeyRound } from 'lucide-react';
import { useAuth } from '../auth/auth-context.tsx';
import { Card } from '../ui/card.tsx';
import { ButtonLink } from '../ui/text-link.tsx';
import { FlowIcon } from '../flows/flow-icon.tsx';
import { flowTypeDetails, flowTypes } from '../../shared/flows/flow-types.ts';
import { pageRoutes } from '../../shared/routes.ts';
import { DashboardActivity } from '../events/dashboard-activity.tsx';
import { DashboardCosts } from './dashboard-costs.tsx';
import { SandboxPanel } from '../sandbox/sandbox-panel.tsx';

const gettingStartedSteps = [
  'Save your Klaviyo, OpenAI and Shopify credentials in API Settings.',
  'Open a flow, add the AI assistants that write its content, and switch it on.',
  'Send a test event from the flow page, then paste its webhook URL into your store.',
];

/** SPEC.md "Dashboard": a greeting by full name (or "User"), the four flows, and getting started. */
export function DashboardPage() {
  const { user } = useAuth();
  return (
    <div className="space-y-8">
      <title>Dashboard · Flowsmith</title>
      <header className="space-y-1">
        <h1 className="text-3xl font-bold text-slate-900">Welcome, {user?.fullName || 'User'}</h1>
        <p className="text-slate-700">Automate your marketing with AI-written content for every shopper event.</p>
      </header>

      <SandboxPanel />

      <section aria-labelledby="flows-heading" className="space-y-4">
        <h2 id="flows-heading" className="text-xl font-semibold text-slate-900">
          Your flows
        </h2>
        <ul className="grid gap-4 sm:grid-cols-2">
          {flowTypes.map((flowType) => {
            const details = flowTypeDetails[flowType];
            return (
              <li key={flowType}>
                <Card className="relative flex h-full gap-4 transition hover:border-indigo-300 hover:shadow-md focus-within:ring-2 focus-within:ring-indigo-600">
                  <FlowIcon flowType={flowType} />
                  <div className="space-y-1">
                    <h3 className="text-lg font-semibold text-slate-900">
                      {/* The link covers the whole card; its name stays the flow's title. */}
                      <Link to={details.path} className="after:absolute after:inset-0 after:content-[''] focus:outline-none">
                        {details.title}
                      </Link>
                    </h3>
                    <p className="text-sm text-slate-700">{details.tagline}</p>
                    <p className="inline-flex items-center gap-1 pt-1 text-sm font-medium text-indigo-700" aria-hidden="true">
                      Configure <ArrowRight className="h-4 w-4" />
                    </p>
                  </div>
                </Card>
              </li>
            );
          })}
        </ul>
      </section>

      <DashboardActivity />
      <DashboardCosts />

      <Card>
        <section aria-labelledby="getting-started-heading" className="flex flex-col gap-4 sm:flex-row sm:items-start">
          <span className="inline-flex h-12 w-12 shrink-0 items-center justify-center rounded-full bg-indigo-100 text-indigo-700">
            <KeyRound aria-hidden="true" className="h-6 w-6" />
          </span>
          <div className="flex-1 space-y-3">
            <h2 id="getting-started-heading" className="text-xl font-semibold text-slate-900">
              Getting Started
            </h2>
            <ol className="list-decimal space-y-1 pl-5 text-sm text-slate-700">
              {gettingStartedSteps.map((step) => (
                <li key={step}>{step}</li>
              ))}
            </ol>
            <ButtonLink to={pageRoutes.apiSettings}>Go to API Settings</ButtonLink>
          </div>
        </section>
      </Card>
    </div>
  );
}
