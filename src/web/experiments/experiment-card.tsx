import { useId, useState } from 'react';
import { Card } from '../ui/card.tsx';
import { Button } from '../ui/button.tsx';
import { Alert } from '../ui/alert.tsx';
import { Spinner } from '../ui/spinner.tsx';
import type { Flow } from '../../shared/flows/flow-schemas.ts';
import type { Experiment } from '../../shared/experiments/experiment-schemas.ts';
import { experimentMessages as m } from '../../shared/experiments/experiment-messages.ts';
import { CurrentExperiment } from './current-experiment.tsx';
import { ExperimentSetupForm } from './experiment-setup-form.tsx';
import { ExperimentPrompts, ExperimentResults, ExperimentSettings, ExperimentSummary } from './experiment-results.tsx';
import { formatExperimentDate } from './experiment-format.ts';
import { experimentTexts as t } from './experiment-texts.ts';
import { useExperiments } from './use-experiments.ts';

/**
 * The flow's prompts as one key: a form started from them starts again when they change
 * (a promotion, a saved configuration), instead of offering the old prompts as variant A.
 */
function promptsKey(flow: Flow): string {
  return JSON.stringify(flow.assistants.map((assistant) => [assistant.klaviyo_property, assistant.prompt_template]));
}

/**
 * The experiment card on a flow's page (docs/decisions/0043-experiments.md): the set-up
 * form while nothing runs, else the running experiment with its results and actions; the
 * past experiments below, folded.
 */
export function ExperimentCard({ flow }: { flow: Flow }) {
  const experiments = useExperiments(flow.flowType);
  const [changing, setChanging] = useState(false);
  const titleId = useId();
  const current = experiments.data?.current ?? null;
  const editing = changing && current !== null;

  return (
    <Card>
      <section aria-labelledby={titleId} className="space-y-4" data-testid="experiment-card">
        <h2 id={titleId} className="text-lg font-semibold text-slate-900">
          {t.title}
        </h2>
        {experiments.isPending ? (
          <Spinner label={t.loading} />
        ) : experiments.isError ? (
          <Alert tone="error" title={t.loadFailed}>
            <p>{experiments.error.message}</p>
            <Button variant="secondary" className="mt-2" onClick={() => void experiments.refetch()}>
              {t.retry}
            </Button>
          </Alert>
        ) : (
          <>
            {current && !editing ? (
              <CurrentExperiment flow={flow} experiment={current} onChange={() => setChanging(true)} />
            ) : (
              <ExperimentSetupForm
                key={editing ? `change:${current.id}` : `new:${promptsKey(flow)}`}
                flow={flow}
                current={editing ? current : null}
                onDone={() => setChanging(false)}
                onCancel={editing ? () => setChanging(false) : undefined}
              />
            )}
            <PastExperiments flow={flow} past={experiments.data.past} />
          </>
        )}
      </section>
    </Card>
  );
}

/** What ended an experiment, said plainly. */
function endReasonOf(experiment: Experiment): string | null {
  switch (experiment.endReason) {
    case 'promoted':
    case 'auto_promoted':
      return m.endReason[experiment.endReason](experiment.winner ?? '?');
    case 'changed':
    case 'stopped':
      return m.endReason[experiment.endReason];
    default:
      return null;
  }
}

/** Ended experiments, newest first, folded by default: each with why it ended, its dates and results. */
function PastExperiments({ flow, past }: { flow: Flow; past: Experiment[] }) {
  if (past.length === 0) return null;
  return (
    <details className="rounded-md border border-slate-200" data-testid="past-experiments">
      <summary className="cursor-pointer px-4 py-3 text-sm font-semibold text-slate-900">{t.pastHeading(past.length)}</summary>
      <ul className="divide-y divide-slate-200 border-t border-slate-200">
        {past.map((experiment) => (
          <PastExperiment key={experiment.id} flow={flow} experiment={experiment} />
        ))}
      </ul>
    </details>
  );
}

function PastExperiment({ flow, experiment }: { flow: Flow; experiment: Experiment }) {
  const headingId = useId();
  const started = formatExperimentDate(experiment.startedAt);
  const reason = endReasonOf(experiment);
  return (
    <li className="space-y-3 p-4" data-testid="past-experiment">
      <div className="space-y-1">
        <h3 id={headingId} className="text-sm font-semibold text-slate-900">
          {t.pastExperiment(started)}
        </h3>
        {reason ? <p className="text-sm text-slate-800">{reason}</p> : null}
        <p className="text-sm text-slate-700">{experiment.endedAt ? t.endedAt(started, formatExperimentDate(experiment.endedAt)) : t.startedAt(started)}</p>
      </div>
      <ExperimentSettings experiment={experiment} />
      <ExperimentResults experiment={experiment} />
      <ExperimentSummary experiment={experiment} />
      <ExperimentPrompts experiment={experiment} assistants={flow.assistants} />
    </li>
  );
}
