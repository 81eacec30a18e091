import type { ReactNode } from 'react';
import { CheckCircle2, Clock } from 'lucide-react';
import { Card } from '../ui/card.tsx';
import { Alert } from '../ui/alert.tsx';
import { isProcessingLate } from '../../shared/dashboard/dashboard-processing.ts';
import type { DashboardProcessing } from '../../shared/dashboard/dashboard-schemas.ts';
import { formatBytes, formatWait, processingMessages as m } from '../../shared/dashboard/dashboard-messages.ts';

/**
 * Whether the owner's events are getting through: what is due and not finished, the
 * oldest one's wait (a warning past five minutes, with what to do), arrivals against
 * finishes over the last hour, and the database's size.
 */
export function ProcessingPanel({ processing }: { processing: DashboardProcessing }) {
  const late = isProcessingLate(processing);
  const figures: Array<{ id: string; label: string; value: ReactNode; warn?: boolean }> = [
    { id: 'behind', label: m.figures.behind, value: processing.behind.toLocaleString('en'), warn: late },
    {
      id: 'oldest',
      label: m.figures.oldest,
      value: processing.oldestBehindSeconds === null ? m.noOldest : formatWait(processing.oldestBehindSeconds),
      warn: late,
    },
    { id: 'arrived', label: m.figures.arrived, value: processing.arrivedLastHour.toLocaleString('en') },
    { id: 'finished', label: m.figures.finished, value: processing.finishedLastHour.toLocaleString('en') },
    {
      id: 'database-size',
      label: m.figures.databaseSize,
      value: (
        <>
          {processing.database.sizeBytes === null ? m.sizeUnknown : formatBytes(processing.database.sizeBytes)}{' '}
          <span className="text-sm font-normal text-slate-600">({m.databaseKinds[processing.database.kind]})</span>
        </>
      ),
    },
  ];
  return (
    <section aria-labelledby="processing-heading" className="space-y-4" data-testid="processing" data-late={late}>
      <h2 id="processing-heading" className="text-xl font-semibold text-slate-900">
        {m.heading}
      </h2>
      <Card className="space-y-4">
        {late ? (
          <Alert tone="warning" title={m.lateTitle}>
            <span data-testid="processing-late">{m.lateAdvice[processing.database.kind]}</span>
          </Alert>
        ) : null}
        <p data-testid="processing-summary" className="flex gap-2 text-sm text-slate-700">
          {processing.behind === 0 ? (
            <CheckCircle2 aria-hidden="true" className="mt-0.5 h-4 w-4 shrink-0 text-green-700" />
          ) : (
            <Clock aria-hidden="true" className={`mt-0.5 h-4 w-4 shrink-0 ${late ? 'text-amber-700' : 'text-slate-500'}`} />
          )}
          <span className="min-w-0">{processing.behind === 0 ? m.nothingBehind : m.behind(processing.behind, processing.oldestBehindSeconds ?? 0)}</span>
        </p>
        <dl className="grid grid-cols-2 gap-4 sm:grid-cols-3">
          {figures.map((figure) => (
            <div key={figure.id} className="min-w-0 space-y-1">
              <dt className="text-sm text-slate-600">{figure.label}</dt>
              <dd data-testid={`processing-${figure.id}`} className={`text-lg font-semibold tabular-nums break-words ${figure.warn ? 'text-amber-800' : 'text-slate-900'}`}>
                {figure.value}
              </dd>
            </div>
          ))}
        </dl>
      </Card>
    </section>
  );
}
