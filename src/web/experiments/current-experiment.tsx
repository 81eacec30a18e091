import { useId, useState } from 'react';
import { Pencil, Trophy, XCircle } from 'lucide-react';
import { toast } from '../app/toast.ts';
import { ApiRequestError } from '../app/api-client.ts';
import { Button } from '../ui/button.tsx';
import { Alert } from '../ui/alert.tsx';
import type { Flow } from '../../shared/flows/flow-schemas.ts';
import type { Experiment } from '../../shared/experiments/experiment-schemas.ts';
import type { ExperimentArmKey } from '../../shared/experiments/experiment-settings.ts';
import { ExperimentPrompts, ExperimentResults, ExperimentSettings, ExperimentSummary } from './experiment-results.tsx';
import { formatExperimentDate } from './experiment-format.ts';
import { experimentTexts as t } from './experiment-texts.ts';
import { usePromoteArm, useStopExperiment } from './use-experiments.ts';

type Confirming = { action: 'promote'; arm: ExperimentArmKey } | { action: 'end' } | null;

/** Stable, so a confirmation takes the focus once, when it appears, and not at every render. */
const focusWhenShown = (element: HTMLElement | null) => element?.focus();

/**
 * The running experiment: when it started and how it is set up, its results, Promote per
 * variant and End experiment (each asks first), and Change variants, which reopens the form.
 * The actions sit under the results rather than in the table's rows, so a table wider than
 * the card never scrolls one out of sight.
 */
export function CurrentExperiment({ flow, experiment, onChange }: { flow: Flow; experiment: Experiment; onChange: () => void }) {
  const promote = usePromoteArm(flow.flowType);
  const stop = useStopExperiment(flow.flowType);
  const [confirming, setConfirming] = useState<Confirming>(null);
  const ids = { heading: useId(), confirm: useId() };
  const busy = promote.isPending || stop.isPending;
  const error = promote.error ?? stop.error;
  const failure = error ? (error instanceof ApiRequestError ? error.message : t.actionFailed) : null;

  // Awaited rather than given callbacks: a promotion or an end unmounts this view (the
  // experiment is no longer current), and react-query drops an unmounted caller's callbacks.
  const confirm = async () => {
    if (!confirming) return;
    promote.reset();
    stop.reset();
    try {
      const answer = confirming.action === 'promote' ? await promote.mutateAsync(confirming.arm) : await stop.mutateAsync();
      toast.success(answer.message);
      setConfirming(null);
    } catch {
      // Shown under the results, from the mutation's error.
    }
  };

  return (
    <section aria-labelledby={ids.heading} className="space-y-4" data-testid="experiment-current">
      <div className="space-y-1">
        <h3 id={ids.heading} className="text-base font-semibold text-slate-900">
          {t.runningHeading}
        </h3>
        <p className="text-sm text-slate-700">{t.startedAt(formatExperimentDate(experiment.startedAt))}</p>
        <p className="text-sm text-slate-600">{t.runningNote}</p>
      </div>
      <ExperimentSettings experiment={experiment} />
      <ExperimentResults experiment={experiment} />
      <ExperimentSummary experiment={experiment} />
      <ExperimentPrompts experiment={experiment} assistants={flow.assistants} />

      {confirming ? (
        <div ref={focusWhenShown} tabIndex={-1} role="group" aria-labelledby={ids.confirm} className="space-y-3 rounded-md border border-amber-300 bg-amber-50 p-3 focus:outline-none">
          <p id={ids.confirm} className="text-sm text-amber-950">
            {confirming.action === 'promote' ? t.confirmPromote(confirming.arm) : t.confirmEnd}
          </p>
          <div className="flex flex-wrap gap-2">
            <Button variant={confirming.action === 'promote' ? 'primary' : 'danger'} busy={busy} onClick={() => void confirm()}>
              {confirming.action === 'promote' ? t.confirmPromoteButton(confirming.arm) : t.confirmEndButton}
            </Button>
            <Button variant="secondary" disabled={busy} onClick={() => setConfirming(null)}>
              {t.cancel}
            </Button>
          </div>
        </div>
      ) : null}
      {failure ? (
        <Alert tone="error" title={t.actionFailed}>
          {failure}
        </Alert>
      ) : null}

      <div className="flex flex-wrap gap-2">
        {experiment.arms.map((arm) => (
          <Button key={arm.key} variant="secondary" disabled={busy} onClick={() => setConfirming({ action: 'promote', arm: arm.key })}>
            <Trophy aria-hidden="true" className="h-4 w-4" />
            {t.promoteVariant(arm.key)}
          </Button>
        ))}
        <Button variant="secondary" disabled={busy} onClick={onChange}>
          <Pencil aria-hidden="true" className="h-4 w-4" />
          {t.changeVariants}
        </Button>
        <Button variant="secondary" disabled={busy} onClick={() => setConfirming({ action: 'end' })}>
          <XCircle aria-hidden="true" className="h-4 w-4" />
          {t.endExperiment}
        </Button>
      </div>
    </section>
  );
}
