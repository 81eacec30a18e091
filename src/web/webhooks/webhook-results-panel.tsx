import { useId, type Ref } from 'react';
import { Button } from '../ui/button.tsx';
import { webhookConsoleMessages as m } from '../../shared/webhooks/webhook-messages.ts';
import type { WebhookEventEntry } from './webhook-event-store.ts';
import type { SendOutcome } from './use-webhook-console.ts';

interface ResultsPanelProps {
  /** The region the console brings into view and focuses after a send. */
  regionRef: Ref<HTMLElement>;
  outcome: SendOutcome | null;
  listening: boolean;
  lastUpdated: Date | null;
  events: WebhookEventEntry[];
  showDebug: boolean;
  /** What the Debug Information shows: the console's state, the stream's and the last send's. */
  debugDetails: object;
  onToggleDebug: () => void;
}

/** What came of the sends and what the stream captured, newest first, with the debug details below. */
export function ResultsPanel({ regionRef, outcome, listening, lastUpdated, events, showDebug, debugDetails, onToggleDebug }: ResultsPanelProps) {
  const resultsId = useId();
  return (
    <>
      <section
        ref={regionRef}
        tabIndex={-1}
        aria-labelledby={`${resultsId}-heading`}
        className="scroll-mt-4 space-y-3 rounded-md focus:outline-none focus:ring-2 focus:ring-indigo-600 focus:ring-offset-4"
        data-testid="webhook-results"
      >
        <h3 id={`${resultsId}-heading`} className="text-sm font-semibold text-slate-900">
          {m.resultsHeading}
        </h3>
        {/* Polite for a send that went through; an alert for one that did not. */}
        <div role="status" data-testid="webhook-send-outcome">
          {outcome && outcome.kind !== 'failed' ? (
            <p className={`text-sm ${outcome.kind === 'sent' ? 'text-green-800' : 'text-amber-900'}`}>{outcome.message}</p>
          ) : null}
        </div>
        {outcome?.kind === 'failed' ? (
          <p role="alert" className="text-sm text-red-700">
            {outcome.message}
          </p>
        ) : null}

        <div className="flex flex-wrap items-center justify-between gap-2 text-sm">
          <p role="status" className="flex items-center gap-2 font-medium text-slate-800" data-testid="listener-status">
            <span aria-hidden="true" className={`h-2.5 w-2.5 rounded-full ${listening ? 'bg-green-600' : 'bg-slate-400'}`} />
            {listening ? m.statusListening : m.statusInactive}
          </p>
          <p className="text-slate-700">Last updated: {lastUpdated ? lastUpdated.toLocaleTimeString() : 'never'}</p>
        </div>

        {events.length === 0 ? (
          <p className="rounded-md border border-dashed border-slate-300 px-4 py-6 text-center text-sm text-slate-700">
            {listening ? m.emptyListening : m.emptyInactive}
          </p>
        ) : (
          <ol className="space-y-3" aria-label="Webhook events">
            {events.map((entry) => (
              <WebhookEventItem key={entry.id} entry={entry} />
            ))}
          </ol>
        )}
      </section>

      <div className="space-y-2">
        <div className="flex items-center justify-between">
          <h3 className="text-sm font-semibold text-slate-900">Debug Information</h3>
          <Button variant="secondary" onClick={onToggleDebug} aria-expanded={showDebug}>
            {showDebug ? 'Hide Details' : 'Show Details'}
          </Button>
        </div>
        {showDebug ? (
          <pre tabIndex={0} aria-label="Debug details" className="max-h-72 overflow-auto rounded-md bg-slate-900 p-3 text-xs text-slate-100" data-testid="webhook-debug">
            {JSON.stringify(debugDetails, null, 2)}
          </pre>
        ) : null}
      </div>
    </>
  );
}

const statusStyles: Record<string, string> = {
  delivered: 'bg-green-100 text-green-800',
  failed: 'bg-red-100 text-red-800',
  rejected: 'bg-red-100 text-red-800',
  skipped: 'bg-amber-100 text-amber-900',
};

function WebhookEventItem({ entry }: { entry: WebhookEventEntry }) {
  return (
    <li className="space-y-2 rounded-md border border-slate-200 p-3" data-testid="webhook-event" data-event-id={entry.id}>
      <div className="flex flex-wrap items-center gap-2">
        <p className={`font-semibold ${entry.success ? 'text-green-800' : 'text-red-700'}`}>{entry.success ? m.entryReceived : m.entryFailed}</p>
        <time dateTime={entry.timestamp} className="text-sm text-slate-700">
          {new Date(entry.timestamp).toLocaleTimeString()}
        </time>
        {entry.status ? (
          <span data-testid="webhook-event-status" className={`rounded-full px-2 py-0.5 text-xs font-semibold ${statusStyles[entry.status] ?? 'bg-slate-200 text-slate-800'}`}>
            {entry.status}
          </span>
        ) : null}
        {entry.source === 'test' ? <span className="text-xs text-slate-700">test{entry.dryRun ? ' · dry run' : ''}</span> : null}
      </div>
      {entry.error ? <p className="text-sm text-slate-800">{entry.error}</p> : null}
      {entry.generations.length > 0 ? (
        <dl className="space-y-1 rounded-md bg-indigo-50 p-2 text-sm" data-testid="webhook-event-texts">
          {entry.generations.map((text) => (
            <div key={text.klaviyoProperty}>
              <dt className="font-medium text-slate-900">
                {text.assistantName} <span className="font-mono text-xs text-slate-700">({text.klaviyoProperty})</span>
              </dt>
              <dd className="text-slate-800">{text.text ?? text.error}</dd>
            </div>
          ))}
        </dl>
      ) : null}
      <pre tabIndex={0} aria-label="Event payload" className="max-h-64 overflow-auto rounded-md bg-slate-100 p-2 text-xs text-slate-900" data-testid="webhook-event-json">
        {JSON.stringify(entry.data, null, 2)}
      </pre>
    </li>
  );
}
