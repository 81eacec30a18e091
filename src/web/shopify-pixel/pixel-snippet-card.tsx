import { useId } from 'react';
import { toast } from '../app/toast.ts';
import { Copy, MousePointerClick } from 'lucide-react';
import { Alert } from '../ui/alert.tsx';
import { Button } from '../ui/button.tsx';
import { Card } from '../ui/card.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { describeWait } from '../../shared/flows/flow-wait.ts';
import { pixelSnippet } from '../../shared/shopify-pixel/pixel-snippet.ts';
import { pixelMessages as m } from '../../shared/shopify-pixel/pixel-messages.ts';
import { usePixelAddress } from './use-pixel-address.ts';

async function copySnippet(snippet: string) {
  try {
    await navigator.clipboard.writeText(snippet);
    toast.success(m.copied);
  } catch {
    toast.error(m.copyFailed);
  }
}

/**
 * The Browser Abandonment flow's event source (docs/product/product-rules.md §2): product
 * views have no Shopify webhook, so the owner pastes this custom pixel, built for the
 * pixel's own public address (never the flow's secret webhook URL).
 */
export function PixelSnippetCard({ waitMinutes }: { waitMinutes: number | null }) {
  const pixelAddress = usePixelAddress();
  const ids = { heading: useId(), code: useId() };

  return (
    <Card>
      <section aria-labelledby={ids.heading} className="space-y-4" data-testid="pixel-snippet-card">
        <header className="flex items-start gap-3">
          <MousePointerClick aria-hidden="true" className="mt-1 h-5 w-5 shrink-0 text-slate-600" />
          <div className="space-y-1">
            <h2 id={ids.heading} className="text-lg font-semibold text-slate-900">
              {m.title}
            </h2>
            <p className="text-sm text-slate-700">{m.description}</p>
          </div>
        </header>

        <div className="space-y-1">
          <h3 className="text-sm font-semibold text-slate-800">{m.stepsTitle}</h3>
          <ol className="list-decimal space-y-1 pl-5 text-sm text-slate-700">
            {m.steps.map((step) => (
              <li key={step}>{step}</li>
            ))}
          </ol>
        </div>

        <ul className="list-disc space-y-1 pl-5 text-sm text-slate-700">
          <li>{m.loggedInOnly}</li>
          <li>{m.cancelledBy(waitMinutes !== null ? describeWait(waitMinutes) : null)}</li>
        </ul>

        {pixelAddress.isPending ? (
          <Spinner label={m.loading} />
        ) : pixelAddress.isError ? (
          <div className="space-y-3">
            <Alert tone="error" title={m.loadFailed}>
              {pixelAddress.error.message}
            </Alert>
            <Button variant="secondary" onClick={() => void pixelAddress.refetch()}>
              {m.retry}
            </Button>
          </div>
        ) : (
          <SnippetCode snippet={pixelSnippet(pixelAddress.data)} labelId={ids.code} />
        )}
      </section>
    </Card>
  );
}

function SnippetCode({ snippet, labelId }: { snippet: string; labelId: string }) {
  return (
    <div className="space-y-2">
      <p id={labelId} className="text-sm font-medium text-slate-700">
        {m.codeLabel}
      </p>
      {/* Focusable so keyboard users can scroll it; a region so its label is announced. */}
      <pre
        role="region"
        aria-labelledby={labelId}
        tabIndex={0}
        data-testid="pixel-snippet-code"
        className="max-h-80 overflow-auto rounded-md border border-slate-200 bg-slate-50 p-3 font-mono text-xs leading-relaxed text-slate-800 focus-visible:outline-2 focus-visible:outline-indigo-600"
      >
        <code>{snippet}</code>
      </pre>
      <Button variant="secondary" onClick={() => void copySnippet(snippet)}>
        <Copy aria-hidden="true" className="h-4 w-4" />
        {m.copy}
      </Button>
    </div>
  );
}
