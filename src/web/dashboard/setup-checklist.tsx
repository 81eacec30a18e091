import { CheckCircle2, Circle } from 'lucide-react';
import { Card } from '../ui/card.tsx';
import { TextLink } from '../ui/text-link.tsx';
import type { DashboardResponse } from '../../shared/dashboard/dashboard-schemas.ts';
import { dashboardMessages, setupSteps } from '../../shared/dashboard/dashboard-messages.ts';

/**
 * What is left to connect, each item linking to where it is done. Gone once everything
 * is: a finished list would only push the flows down.
 */
export function SetupChecklist({ setup }: { setup: DashboardResponse['setup'] }) {
  if (setup.every((step) => step.done)) return null;
  const done = setup.filter((step) => step.done).length;
  return (
    <Card>
      <section aria-labelledby="checklist-heading" className="space-y-4" data-testid="setup-checklist">
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h2 id="checklist-heading" className="text-xl font-semibold text-slate-900">
            {dashboardMessages.checklistHeading}
          </h2>
          <p className="text-sm text-slate-600">
            {done} of {setup.length} done
          </p>
        </div>
        <ol className="space-y-3">
          {setup.map((step) => {
            const details = setupSteps[step.id];
            return (
              <li key={step.id} data-step={step.id} data-done={step.done} className="flex gap-3">
                {step.done ? (
                  <CheckCircle2 aria-hidden="true" className="mt-0.5 h-5 w-5 shrink-0 text-green-700" />
                ) : (
                  <Circle aria-hidden="true" className="mt-0.5 h-5 w-5 shrink-0 text-slate-400" />
                )}
                <div className="min-w-0 space-y-0.5">
                  <p className={`font-medium ${step.done ? 'text-slate-600 line-through' : 'text-slate-900'}`}>
                    {details.label}
                    <span className="sr-only">{step.done ? ' (done)' : ' (to do)'}</span>
                  </p>
                  {step.done ? null : (
                    <>
                      <p className="text-sm text-slate-700">{details.hint}</p>
                      <TextLink to={details.path} className="text-sm">
                        {details.action}
                      </TextLink>
                    </>
                  )}
                </div>
              </li>
            );
          })}
        </ol>
      </section>
    </Card>
  );
}
