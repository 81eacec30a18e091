import type { ComponentType } from 'react';
import { Link, Navigate, NavLink, useParams, useSearchParams } from 'react-router';
import { ArrowLeft } from 'lucide-react';
import { Card } from '../ui/card.tsx';
import { Button } from '../ui/button.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { flowSectionPath, flowSections, pageRoutes, webhookConsoleParam, type FlowSection } from '../../shared/routes.ts';
import { flowTypeDetails, type FlowType } from '../../shared/flows/flow-types.ts';
import type { Flow } from '../../shared/flows/flow-schemas.ts';
import { flowMessages, flowSectionMessages } from '../../shared/flows/flow-messages.ts';
import { DeferredPart } from '../app/deferred-part.tsx';
import { FlowIcon } from './flow-icon.tsx';
import { FlowStatusView } from './flow-status-view.tsx';
import { useFlows } from './use-flows.ts';
import { FlowAlerts } from '../alerts/flow-alerts.tsx';
import { useFlowAlerts } from '../alerts/use-flow-alerts.ts';
import { ServiceConditions } from '../service-conditions/service-conditions.tsx';
import { useServiceConditions } from '../service-conditions/use-service-conditions.ts';
import { PendingReviewsNotice } from '../reviews/pending-reviews-notice.tsx';
import { FlowDayFigures } from '../dashboard/flow-day-figures.tsx';
import { useDashboard } from '../dashboard/use-dashboard.ts';

type SectionComponent = ComponentType<{ flow: Flow }>;

/*
 * Each section is its own chunk, fetched when it is opened (docs/decisions/0052-light-pages.md):
 * the page's first view needs none of them. Module-level loaders, so DeferredPart keeps
 * a loaded section across visits.
 */
const sectionParts: Record<FlowSection, { load: () => Promise<SectionComponent>; savedOnly: boolean }> = {
  settings: { load: async () => (await import('./flow-settings-section.tsx')).FlowSettingsSection, savedOnly: false },
  assistants: { load: async () => (await import('./flow-assistants-list.tsx')).FlowAssistantsList, savedOnly: false },
  store: { load: async () => (await import('./flow-store-section.tsx')).FlowStoreSection as SectionComponent, savedOnly: true },
  preview: { load: async () => (await import('../flow-preview/flow-preview-card.tsx')).FlowPreviewCard, savedOnly: false },
  experiment: { load: async () => (await import('../experiments/experiment-card.tsx')).ExperimentCard, savedOnly: false },
  results: { load: async () => (await import('./flow-results-section.tsx')).FlowResultsSection, savedOnly: true },
  events: { load: async () => (await import('./flow-events-section.tsx')).FlowEventsSection, savedOnly: true },
};

const loadConsole = async () => (await import('../webhooks/webhook-console.tsx')).WebhookConsoleWhenOpen as SectionComponent;

function isFlowSection(value: string | undefined): value is FlowSection {
  return (flowSections as readonly string[]).includes(value ?? '');
}

/**
 * One page per flow (docs/product/specification.md §2 "Flow page"). Its first view is what
 * the owner checks at a glance: the flow's state and webhook URL, its last day, and what
 * needs them (service conditions, alerts, texts waiting for approval). The rest are
 * sections at their own addresses, opened from the tabs. A flow without a webhook URL
 * opens on its settings, as the form came first before.
 */
export function FlowPage({ flowType }: { flowType: FlowType }) {
  const details = flowTypeDetails[flowType];
  const { section } = useParams();
  const flows = useFlows();
  const flow = flows.data?.find((candidate) => candidate.flowType === flowType);
  const alerts = useFlowAlerts();
  const conditions = useServiceConditions();
  if (section !== undefined && !isFlowSection(section)) return <Navigate to={details.path} replace />;
  const saved = Boolean(flow?.webhookUrl);
  const shown: FlowSection | null = section ?? (flow && !saved ? 'settings' : null);

  return (
    <div className="space-y-6">
      <Link to={pageRoutes.dashboard} className="inline-flex items-center gap-1 text-sm font-medium text-indigo-700 hover:underline">
        <ArrowLeft aria-hidden="true" className="h-4 w-4" />
        Back to Dashboard
      </Link>
      <header className="flex items-center gap-4">
        <FlowIcon flowType={flowType} />
        <div>
          <h1 className="text-2xl font-bold">{details.title}</h1>
          <p className="text-slate-700">{details.tagline}</p>
        </div>
      </header>
      <ServiceConditions conditions={conditions.data} />
      <FlowAlerts alerts={alerts.data} flowType={flowType} />
      {flow ? <FlowSectionTabs flowPath={details.path} saved={saved} /> : null}
      {flows.isPending ? (
        <Card>
          <Spinner label="Loading flow configuration" />
        </Card>
      ) : !flow ? (
        <Card>
          <div role="alert" className="space-y-3">
            <p className="font-medium text-red-700">{flowMessages.loadFailed}</p>
            {flows.error ? <p className="text-sm text-slate-700">{flows.error.message}</p> : null}
            <Button variant="secondary" onClick={() => void flows.refetch()}>
              Retry
            </Button>
          </div>
        </Card>
      ) : shown === null ? (
        <FlowOverview flow={flow} />
      ) : sectionParts[shown].savedOnly && !saved ? (
        <Card>
          <p className="text-sm text-slate-700">{flowSectionMessages.saveFirst}</p>
        </Card>
      ) : (
        <DeferredPart key={shown} load={sectionParts[shown].load} label={flowSectionMessages.label(shown)} props={{ flow }} />
      )}
    </div>
  );
}

/** The top of a saved flow's page: its status, its last day, and texts waiting for approval; the console below when opened. */
function FlowOverview({ flow }: { flow: Flow }) {
  const dashboard = useDashboard();
  const [searchParams] = useSearchParams();
  const day = dashboard.data?.flows.find((candidate) => candidate.flowType === flow.flowType);
  return (
    <>
      <PendingReviewsNotice />
      <Card>
        <FlowStatusView flow={flow} />
      </Card>
      {day ? (
        <Card>
          <section aria-labelledby="flow-day-heading" className="space-y-3" data-testid="flow-day">
            <h2 id="flow-day-heading" className="text-lg font-semibold">
              {flowSectionMessages.dayTitle}
            </h2>
            <FlowDayFigures state={day} />
          </section>
        </Card>
      ) : null}
      {searchParams.get(webhookConsoleParam) === '1' ? <DeferredPart load={loadConsole} label={flowSectionMessages.consoleLabel} props={{ flow }} /> : null}
    </>
  );
}

const tabClasses = ({ isActive }: { isActive: boolean }) =>
  `whitespace-nowrap rounded-md px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 ${
    isActive ? 'bg-indigo-50 text-indigo-800' : 'text-slate-700 hover:bg-slate-100 hover:text-slate-900'
  }`;

/** The flow page's parts, each a link to its own address; the store, results and events only once the flow is saved. */
function FlowSectionTabs({ flowPath, saved }: { flowPath: string; saved: boolean }) {
  const shownSections = flowSections.filter((section) => saved || !sectionParts[section].savedOnly);
  return (
    <nav aria-label={flowSectionMessages.navLabel} className="flex flex-wrap gap-1 border-b border-slate-200 pb-2">
      {saved ? (
        <NavLink to={flowPath} end className={tabClasses}>
          {flowSectionMessages.overview}
        </NavLink>
      ) : null}
      {shownSections.map((section) => (
        <NavLink key={section} to={flowSectionPath(flowPath, section)} className={tabClasses}>
          {flowSectionMessages.titles[section]}
        </NavLink>
      ))}
    </nav>
  );
}
