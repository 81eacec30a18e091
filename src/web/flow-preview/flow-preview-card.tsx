import { useState } from 'react';
import { ApiRequestError } from '../app/api-client.ts';
import type { Flow } from '../../shared/flows/flow-schemas.ts';
import type { FlowPreviewResponse } from '../../shared/flows/flow-preview-schemas.ts';
import { flowPreviewMessages as m } from '../../shared/flows/flow-preview-messages.ts';
import type { RecommendedProduct } from '../../shared/flows/recommendation-schemas.ts';
import { Card } from '../ui/card.tsx';
import { Button } from '../ui/button.tsx';
import { TextField } from '../ui/field.tsx';
import { Alert } from '../ui/alert.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { KlaviyoTag } from '../flows/klaviyo-tag.tsx';
import { TextCheckResults } from '../text-checks/text-check-results.tsx';
import { useFlowPreview } from './use-flow-preview.ts';

/**
 * Preview on the flow page (docs/decisions/0040-texts-checked-before-delivery.md): the
 * saved assistants write for the flow's sample event, or a past event the owner names, and
 * each text comes back with every check's verdict and the Klaviyo tag that reads it.
 * Nothing is delivered.
 */
export function FlowPreviewCard({ flow }: { flow: Flow }) {
  const [eventId, setEventId] = useState('');
  const preview = useFlowPreview(flow);
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
            preview.mutate(eventId);
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
        {preview.data && !preview.isPending ? <PreviewResults result={preview.data} profileProperty={flow.recommendations.profileProperty} /> : null}
      </section>
    </Card>
  );
}

function PreviewResults({ result, profileProperty }: { result: FlowPreviewResponse; profileProperty: string | null }) {
  return (
    <div className="space-y-3" data-testid="flow-preview-results">
      <p className="text-sm font-medium text-slate-800">{result.event.label}</p>
      {result.recommendations ? <PreviewRecommendations products={result.recommendations} profileProperty={profileProperty} /> : null}
      <ul className="space-y-3">
        {result.texts.map((text) => (
          <li key={text.klaviyoProperty} className="space-y-2 rounded-md border border-slate-200 p-3" data-testid="flow-preview-text">
            <p className="font-medium text-slate-900">
              {text.assistantName} <span className="font-mono text-xs text-slate-600">{text.klaviyoProperty}</span>
            </p>
            {/* The prompt as filled in for this event, so the owner sees what the shopper's context (history, predictions, recommendations) put into it. */}
            <p className="text-xs font-semibold text-slate-600">Prompt</p>
            <p className="whitespace-pre-wrap text-sm text-slate-800" data-testid="flow-preview-prompt">
              {text.prompt || '(empty)'}
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

/** A product's price as the shop gives it: the amount and, when known, its currency. */
function priceOf(product: RecommendedProduct): string {
  return product.currency ? `${product.price} ${product.currency}` : product.price;
}

/**
 * What the shop recommended for this event's product and shopper, as the prompts and the
 * profile get it. No product images: the page's Content-Security-Policy (img-src 'self'
 * data:) would block the shop's CDN and log a violation for each.
 */
function PreviewRecommendations({ products, profileProperty }: { products: RecommendedProduct[]; profileProperty: string | null }) {
  return (
    <section aria-labelledby="flow-preview-recommendations" className="space-y-2 rounded-md border border-slate-200 p-3" data-testid="flow-preview-recommendations">
      <h3 id="flow-preview-recommendations" className="text-sm font-semibold text-slate-900">
        {m.recommendationsTitle}
      </h3>
      {products.length === 0 ? (
        <p className="text-sm text-slate-700">{m.noRecommendations}</p>
      ) : (
        <ul className="space-y-2">
          {products.map((product, index) => (
            <li key={`${index}:${product.url}`} className="flex flex-wrap items-baseline gap-x-3 text-sm" data-testid="flow-preview-recommendation">
              <a href={product.url} target="_blank" rel="noreferrer" className="font-medium text-indigo-700 hover:underline">
                {product.title}
              </a>
              <span className="text-slate-700">{priceOf(product)}</span>
            </li>
          ))}
        </ul>
      )}
      {profileProperty ? <p className="text-xs text-slate-600">{m.recommendationsProperty(profileProperty)}</p> : null}
    </section>
  );
}
