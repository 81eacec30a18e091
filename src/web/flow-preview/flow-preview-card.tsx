import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { ApiRequestError, callEndpoint } from '../app/api-client.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import type { Flow } from '../../shared/flows/flow-schemas.ts';
import { flowPreviewMessages as m, type FlowPreviewResponse } from '../../shared/flows/flow-preview-schemas.ts';
import { Card } from '../ui/card.tsx';
import { Button } from '../ui/button.tsx';
import { TextField } from '../ui/field.tsx';
import { Alert } from '../ui/alert.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { KlaviyoTag } from '../flows/klaviyo-tag.tsx';
import { TextCheckResults } from '../text-checks/text-check-results.tsx';

/**
 * Preview on the flow page (docs/decisions/0040-texts-checked-before-delivery.md): the
 * saved assistants write for the flow's sample event, or a past event the owner names, and
 * each text comes back with every check's verdict and the Klaviyo tag that reads it.
 * Nothing is delivered.
 */
export function FlowPreviewCard({ flow }: { flow: Flow }) {
  const [eventId, setEventId] = useState('');
  const preview = useMutation({
    mutationFn: () =>
      callEndpoint(endpoints.flows.preview, {
        params: { flowType: flow.flowType },
        body: { eventId: eventId.trim() || null, assistants: flow.assistants, textRules: flow.textRules },
      }),
  });
  const failure = preview.error ? (preview.error instanceof ApiRequestError ? preview.error.message : m.failed(String(preview.error))) : null;

  return (
    <Card>
      <section aria-labelledby="flow-preview-title" className="space-y-4">
        <div className="space-y-1">
          <h2 id="flow-preview-title" className="text-lg font-semibold text-slate-900">
            {m.title}
          </h2>
          <p className="text-sm text-slate-700">{m.hint}</p>
        </div>
        <form
          className="flex flex-wrap items-end gap-3"
          onSubmit={(event) => {
            event.preventDefault();
            preview.mutate();
          }}
        >
          <div className="min-w-64 flex-1">
            <TextField label={m.pastEventLabel} hint={m.pastEventHint} value={eventId} onChange={(event) => setEventId(event.target.value)} maxLength={200} autoComplete="off" />
          </div>
          <Button type="submit" disabled={preview.isPending}>
            {preview.isPending ? m.running : m.run}
          </Button>
        </form>
        {preview.isPending ? <Spinner label={m.running} /> : null}
        {failure ? (
          <Alert tone="error" title={m.title}>
            {failure}
          </Alert>
        ) : null}
        {preview.data && !preview.isPending ? <PreviewResults result={preview.data} /> : null}
      </section>
    </Card>
  );
}

function PreviewResults({ result }: { result: FlowPreviewResponse }) {
  return (
    <div className="space-y-3" data-testid="flow-preview-results">
      <p className="text-sm font-medium text-slate-800">{result.event.label}</p>
      <ul className="space-y-3">
        {result.texts.map((text) => (
          <li key={text.klaviyoProperty} className="space-y-2 rounded-md border border-slate-200 p-3" data-testid="flow-preview-text">
            <p className="font-medium text-slate-900">
              {text.assistantName} <span className="font-mono text-xs text-slate-600">{text.klaviyoProperty}</span>
            </p>
            {text.text ? (
              <p className="whitespace-pre-wrap rounded bg-green-50 p-2 text-sm text-slate-900">{text.text}</p>
            ) : (
              <p className="text-sm text-red-700">{text.error ?? m.nothingDelivered}</p>
            )}
            {text.checks ? <TextCheckResults checks={text.checks} /> : null}
            <KlaviyoTag property={text.klaviyoProperty} />
          </li>
        ))}
      </ul>
    </div>
  );
}
