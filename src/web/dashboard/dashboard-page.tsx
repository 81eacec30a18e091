import { KeyRound } from 'lucide-react';
import { useAuth } from '../auth/auth-context.tsx';
import { Card } from '../ui/card.tsx';
import { Alert } from '../ui/alert.tsx';
import { ButtonLink } from '../ui/text-link.tsx';
import { flowTypes } from '../../shared/flows/flow-types.ts';
import { pageRoutes } from '../../shared/routes.ts';
import { dashboardMessages } from '../../shared/dashboard/dashboard-messages.ts';
import { DashboardCosts } from './dashboard-costs.tsx';
import { RevenuePanel } from '../attribution/revenue-panel.tsx';
import { FlowCard } from './flow-card.tsx';
import { ProcessingPanel } from './processing-panel.tsx';
import { SetupChecklist } from './setup-checklist.tsx';
import { PendingReviewsNotice } from '../reviews/pending-reviews-notice.tsx';
import { FlowAlerts } from '../alerts/flow-alerts.tsx';
import { useFlowAlerts } from '../alerts/use-flow-alerts.ts';
import { ServiceConditions } from '../service-conditions/service-conditions.tsx';
import { useServiceConditions } from '../service-conditions/use-service-conditions.ts';
import { useDashboard } from './use-dashboard.ts';
import { useDashboardLive } from './use-dashboard-live.ts';
import { SandboxPanel } from '../sandbox/sandbox-panel.tsx';
import { useSandboxStatus } from '../sandbox/use-sandbox.ts';
import { useSetupStatus } from '../credentials/use-credentials.ts';
import { Spinner } from '../ui/spinner.tsx';
import { PageTitle } from '../app/page-title.tsx';

const gettingStartedSteps = [
  'Save your Klaviyo, OpenAI and Shopify credentials in API Settings.',
  'Open a flow, add the AI assistants that write its content, and switch it on.',
  'Send a test event from the flow page, then paste its webhook URL into your store.',
];

/**
 * docs/product/specification.md §2 "Dashboard": a greeting by full name (or "User"), the
 * four flows, and getting started; with what is left to set up, how each flow is doing,
 * whether processing keeps up, and what it cost.
 */
export function DashboardPage() {
  const { user } = useAuth();
  const dashboard = useDashboard();
  useDashboardLive();
  // What shows above the flow cards (the sandbox panel, the checklist) arrives with these
  // answers; the cards wait for them too, so that a card never moves under the pointer:
  // a click on a card just as the checklist pushed it down landed on nothing.
  const sandboxStatus = useSandboxStatus();
  const setupStatus = useSetupStatus();
  const alerts = useFlowAlerts();
  const conditions = useServiceConditions();
  const settling = dashboard.isPending || sandboxStatus.isPending || setupStatus.isPending || alerts.isPending || conditions.isPending;
  const stateOf = new Map(dashboard.data?.flows.map((flow) => [flow.flowType, flow]));
  return (
    <div className="space-y-8">
      <PageTitle title="Dashboard · Flowsmith" />
      <header className="space-y-1">
        <h1 className="text-2xl font-bold break-words text-slate-900 sm:text-3xl">Welcome, {user?.fullName || 'User'}</h1>
        <p className="text-slate-700">Automate your marketing with AI-written content for every shopper event.</p>
      </header>

      {settling ? null : <SandboxPanel />}

      {dashboard.error ? (
        <Alert tone="error" title={dashboardMessages.loadFailed}>
          {dashboard.error.message}
        </Alert>
      ) : null}
      {dashboard.data ? <SetupChecklist setup={dashboard.data.setup} /> : null}
      {settling ? null : <ServiceConditions conditions={conditions.data} />}
      {settling ? null : <FlowAlerts alerts={alerts.data} />}

      <section aria-labelledby="flows-heading" className="space-y-4">
        <h2 id="flows-heading" className="text-xl font-semibold text-slate-900">
          Your flows
        </h2>
        {settling ? (
          <Spinner label="Loading your flows" />
        ) : (
          <ul className="grid gap-4 sm:grid-cols-2">
            {flowTypes.map((flowType) => (
              <li key={flowType}>
                <FlowCard flowType={flowType} state={stateOf.get(flowType)} />
              </li>
            ))}
          </ul>
        )}
      </section>

      {/* Below the cards: it arrives on its own answer and must not move them. */}
      <PendingReviewsNotice />

      {dashboard.data ? <ProcessingPanel processing={dashboard.data.processing} /> : null}

      <RevenuePanel />

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
