import { useCallback, useId, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { toast } from '../app/toast.ts';
import { Copy, Play, Send, Square, Terminal, Trash2 } from 'lucide-react';
import { Card } from '../ui/card.tsx';
import { Button } from '../ui/button.tsx';
import { Alert } from '../ui/alert.tsx';
import { CheckboxField } from '../ui/checkbox-field.tsx';
import { ApiRequestError, callEndpoint } from '../app/api-client.ts';
import { useAuth } from '../auth/auth-context.tsx';
import { webhookConsoleParam } from '../flows/flow-status-view.tsx';
import type { Flow } from '../../shared/flows/flow-schemas.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import { sampleTestEvent, withFreshEventIdentity } from '../../shared/webhooks/sample-events.ts';
import { webhookConsoleMessages as m } from '../../shared/webhooks/webhook-messages.ts';
import { streamChangeSchema, type StreamChange, type TestWebhookResponse } from '../../shared/webhooks/webhook-schemas.ts';
import { applyChange, loadStoredEvents, MAX_STORED_EVENTS, saveStoredEvents, type WebhookEventEntry } from './webhook-event-store.ts';
import { curlCommand } from './curl-command.ts';
import { useFlowSignature } from '../flows/use-flow-signature.ts';
import { curlSignatureNote } from '../../shared/flows/flow-signature-messages.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';
import { useEventStream, type StreamConnection } from '../app/use-event-stream.ts';
import { endpoints } from '../../shared/api/endpoints.ts';

type Connection = StreamConnection;

/** What the last send came to, as the results area words it. */
type SendOutcome = { kind: 'sent' | 'duplicate'; message: string } | { kind: 'failed'; message: string };

interface DebugInfo {
  connection: Connection;
  lastEventId: string | null;
  lastChange: StreamChange | null;
  lastSend: TestWebhookResponse | { error: string } | null;
}

const emptyDebug: DebugInfo = { connection: 'closed', lastEventId: null, lastChange: null, lastSend: null };

/** Renders the console when the flow page's Test Webhook link set `?console=1`. */
export function WebhookConsoleWhenOpen({ flow }: { flow: Flow | undefined }) {
  const [searchParams] = useSearchParams();
  if (!flow || searchParams.get(webhookConsoleParam) !== '1') return null;
  return <WebhookConsole key={flow.id} flow={flow} />;
}

function defaultPayload(flowType: FlowType): string {
  return JSON.stringify(sampleTestEvent(flowType), null, 2);
}

function isValidUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * The Webhook Test Console of docs/product/specification.md §2, live through the app's
 * own server-sent events (docs/decisions/0009-live-stream.md): events are captured only
 * while listening, newest first, and the 10 newest are kept in this browser.
 */
export function WebhookConsole({ flow }: { flow: Flow }) {
  const { user } = useAuth();
  const userId = user?.id ?? 'anonymous';
  const { flowType, webhookUrl } = flow;
  const [events, setEvents] = useState<WebhookEventEntry[]>(() => loadStoredEvents(userId, flowType));
  const [listening, setListening] = useState(false);
  const [lastUpdated, setLastUpdated] = useState<Date | null>(null);
  const [payload, setPayload] = useState(() => defaultPayload(flowType));
  const [payloadError, setPayloadError] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<SendOutcome | null>(null);
  const [sending, setSending] = useState(false);
  const [dryRun, setDryRun] = useState(false);
  const [freshIdentity, setFreshIdentity] = useState(true);
  const [debug, setDebug] = useState<DebugInfo>(emptyDebug);
  const [showDebug, setShowDebug] = useState(false);
  const payloadId = useId();
  const resultsId = useId();
  const results = useRef<HTMLElement | null>(null);
  const signatureRequired = useFlowSignature(flowType).data?.required ?? false;

  // The list as last set, read synchronously by stream handlers (state updates are lazy).
  const eventsRef = useRef(events);

  const updateEvents = useCallback(
    (update: (entries: WebhookEventEntry[]) => WebhookEventEntry[]) => {
      const next = update(eventsRef.current);
      eventsRef.current = next;
      setEvents(next);
      saveStoredEvents(userId, flowType, next);
      setLastUpdated(new Date());
    },
    [userId, flowType],
  );

  const onChange = useCallback(
    (message: MessageEvent<string>) => {
      const parsed = streamChangeSchema.safeParse(JSON.parse(message.data));
      if (!parsed.success) return;
      const change = parsed.data;
      setDebug((current) => ({ ...current, lastChange: change, lastEventId: message.lastEventId }));
      const applied = applyChange(eventsRef.current, change);
      updateEvents(() => applied.entries);
      if (applied.nowFailed) toast.error(m.webhookFailed);
      else if (applied.isNew) toast.success(m.received);
    },
    [updateEvents],
  );

  const announced = useRef(false);
  // A new session opens the stream afresh: each Start listens from now on.
  const [session, setSession] = useState(0);

  useEventStream(listening ? { flowType } : null, {
    onChange,
    onConnection: (connection) => setDebug((current) => ({ ...current, connection })),
    onOpen: () => {
      if (!announced.current) {
        announced.current = true;
        toast.success(m.listening);
      }
    },
    onReady: (message) => setDebug((current) => ({ ...current, lastEventId: message.lastEventId || current.lastEventId })),
    onGiveUp: () => setListening(false),
  }, session);

  function startListening() {
    announced.current = false;
    setSession((current) => current + 1);
    setListening(true);
  }

  function stopListening() {
    setListening(false);
    setDebug((current) => ({ ...current, connection: 'closed' }));
    toast.info(m.stopped);
  }

  function clear() {
    updateEvents(() => []);
    setDebug((current) => ({ ...emptyDebug, connection: current.connection }));
    setLastUpdated(null);
    toast.success(m.cleared);
  }

  async function copyUrl() {
    if (!webhookUrl || !isValidUrl(webhookUrl)) {
      toast.error(m.invalidWebhookUrl);
      return;
    }
    try {
      await navigator.clipboard.writeText(webhookUrl);
      toast.success(m.urlCopied);
    } catch {
      toast.error(m.urlCopyFailed);
    }
  }

  async function copyCurl() {
    if (!webhookUrl || !isValidUrl(webhookUrl)) {
      toast.error(m.invalidWebhookUrl);
      return;
    }
    try {
      await navigator.clipboard.writeText(curlCommand(webhookUrl, payload, { signatureRequired }));
      toast.success(m.curlCopied);
    } catch {
      toast.error(m.curlCopyFailed);
    }
  }

  /**
   * The results sit well below the button on most screens: bring them into view and move
   * focus there, so the outcome is seen and a screen reader continues from it.
   */
  function showResults() {
    const region = results.current;
    if (!region) return;
    const reduceMotion = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    region.scrollIntoView({ block: 'start', behavior: reduceMotion ? 'auto' : 'smooth' });
    region.focus({ preventScroll: true });
  }

  async function send() {
    setOutcome(null);
    try {
      JSON.parse(payload);
    } catch {
      setPayloadError(m.invalidJson);
      toast.error(m.invalidJson);
      return;
    }
    setPayloadError(null);
    // A test is a new event each time unless the owner chose to resend this one; the box
    // shows exactly what was sent.
    const sent = freshIdentity ? withFreshEventIdentity(payload) : payload;
    if (sent !== payload) setPayload(sent);
    setSending(true);
    toast.info(m.sending);
    try {
      const result = await callEndpoint(endpoints.webhooks.testSend, { params: { flowType }, body: { payload: sent, dryRun } });
      setDebug((current) => ({ ...current, lastSend: result }));
      if (result.duplicate) {
        setOutcome({ kind: 'duplicate', message: m.duplicate });
        toast.warning(m.duplicate);
      } else {
        setOutcome({ kind: 'sent', message: m.sent });
        toast.success(m.sent);
      }
    } catch (error) {
      if (error instanceof ApiRequestError) {
        if (error.body.error === apiErrorCodes.invalid_json) setPayloadError(m.invalidJson);
        setOutcome({ kind: 'failed', message: m.sendFailedInline(error.message) });
        setDebug((current) => ({ ...current, lastSend: { error: error.message } }));
        toast.error(m.sendError(error.message));
        updateEvents((current) =>
          [
            {
              id: `send-${Date.now()}`,
              timestamp: new Date().toISOString(),
              flowType,
              data: { error: error.message },
              success: false,
              status: null,
              source: 'test' as const,
              dryRun,
              error: error.message,
              generations: [],
            },
            ...current,
          ].slice(0, MAX_STORED_EVENTS),
        );
      } else {
        setOutcome({ kind: 'failed', message: m.sendException });
        toast.error(m.sendException);
      }
    } finally {
      setSending(false);
    }
    showResults();
  }

  return (
    <Card className="space-y-6">
      <section aria-labelledby="webhook-console-heading" className="space-y-4" data-testid="webhook-console">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h2 id="webhook-console-heading" className="text-lg font-semibold">
            Webhook Test Console
          </h2>
          <div className="flex flex-wrap gap-2">
            {listening ? (
              <Button variant="secondary" onClick={stopListening}>
                <Square aria-hidden="true" className="h-4 w-4" />
                Stop Listening
              </Button>
            ) : (
              <Button onClick={startListening} disabled={!webhookUrl}>
                <Play aria-hidden="true" className="h-4 w-4" />
                Start Listening
              </Button>
            )}
            <Button variant="secondary" onClick={clear} disabled={events.length === 0}>
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
            <Button variant="secondary" onClick={() => void copyUrl()}>
              <Copy aria-hidden="true" className="h-4 w-4" />
              Copy URL
            </Button>
          </div>
        )}

        <div className="space-y-2">
          <label htmlFor={payloadId} className="block text-sm font-medium text-slate-800">
            Test Payload (JSON)
          </label>
          <textarea
            id={payloadId}
            value={payload}
            onChange={(event) => {
              setPayload(event.target.value);
              setPayloadError(null);
            }}
            rows={14}
            spellCheck={false}
            aria-invalid={payloadError ? true : undefined}
            aria-describedby={payloadError ? `${payloadId}-error` : undefined}
            className="block w-full rounded-md border border-slate-300 px-3 py-2 font-mono text-xs text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600"
          />
          {payloadError ? (
            <p id={`${payloadId}-error`} role="alert" className="text-sm text-red-700">
              {payloadError}
            </p>
          ) : null}
          <CheckboxField label={m.freshIdentityLabel} checked={freshIdentity} onChange={(event) => setFreshIdentity(event.target.checked)} />
          <CheckboxField label={m.dryRunLabel} checked={dryRun} onChange={(event) => setDryRun(event.target.checked)} />
          <div className="flex flex-wrap gap-2">
            <Button variant="secondary" onClick={() => void copyCurl()} disabled={!webhookUrl}>
              <Terminal aria-hidden="true" className="h-4 w-4" />
              Copy as cURL
            </Button>
            <Button onClick={() => void send()} busy={sending} disabled={!webhookUrl}>
              <Send aria-hidden="true" className="h-4 w-4" />
              Send Test Webhook
            </Button>
          </div>
          {signatureRequired ? (
            <p className="text-sm text-slate-700" data-testid="curl-signature-note">
              {curlSignatureNote}
            </p>
          ) : null}
        </div>

        <section
          ref={results}
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
            <Button variant="secondary" onClick={() => setShowDebug((shown) => !shown)} aria-expanded={showDebug}>
              {showDebug ? 'Hide Details' : 'Show Details'}
            </Button>
          </div>
          {showDebug ? (
            <pre tabIndex={0} aria-label="Debug details" className="max-h-72 overflow-auto rounded-md bg-slate-900 p-3 text-xs text-slate-100" data-testid="webhook-debug">
              {JSON.stringify({ flowType, webhookUrl, listening, storedEvents: events.length, ...debug }, null, 2)}
            </pre>
          ) : null}
        </div>

        <Alert tone="info" title="In production">
          {m.productionNote}
        </Alert>
      </section>
    </Card>
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
