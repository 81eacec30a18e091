import { Copy, Play, Square, Trash2 } from 'lucide-react';
import { Button } from '../ui/button.tsx';
import { Alert } from '../ui/alert.tsx';
import { webhookConsoleMessages as m } from '../../shared/webhooks/webhook-messages.ts';

interface ListenerPanelProps {
  listening: boolean;
  hasEvents: boolean;
  webhookUrl: string | null;
  onStart: () => void;
  onStop: () => void;
  onClear: () => void;
  onCopyUrl: () => void;
}

/** The console's heading with Start/Stop Listening and Clear, and the flow's webhook URL to copy. */
export function ListenerPanel({ listening, hasEvents, webhookUrl, onStart, onStop, onClear, onCopyUrl }: ListenerPanelProps) {
  return (
    <>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="webhook-console-heading" className="text-lg font-semibold">
          Webhook Test Console
        </h2>
        <div className="flex flex-wrap gap-2">
          {listening ? (
            <Button variant="secondary" onClick={onStop}>
              <Square aria-hidden="true" className="h-4 w-4" />
              Stop Listening
            </Button>
          ) : (
            <Button onClick={onStart} disabled={!webhookUrl}>
              <Play aria-hidden="true" className="h-4 w-4" />
              Start Listening
            </Button>
          )}
          <Button variant="secondary" onClick={onClear} disabled={!hasEvents}>
            <Trash2 aria-hidden="true" className="h-4 w-4" />
            Clear
          </Button>
        </div>
      </div>

      {!webhookUrl ? (
        <Alert tone="warning">{m.noWebhookUrl}</Alert>
      ) : (
        <div className="flex flex-wrap items-center gap-2">
          <p className="min-w-0 flex-1 break-all rounded-md bg-slate-100 px-3 py-2 font-mono text-sm text-slate-800" data-testid="console-webhook-url">
            {webhookUrl}
          </p>
          <Button variant="secondary" onClick={onCopyUrl}>
            <Copy aria-hidden="true" className="h-4 w-4" />
            Copy URL
          </Button>
        </div>
      )}
    </>
  );
}
