import { useCallback, useReducer, useRef } from 'react';
import { toast } from '../app/toast.ts';
import { ApiRequestError } from '../app/api-client.ts';
import { useAuth } from '../auth/auth-context.tsx';
import { useEventStream, type StreamConnection } from '../app/use-event-stream.ts';
import { useFlowSignature } from '../flows/use-flow-signature.ts';
import type { Flow } from '../../shared/flows/flow-schemas.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';
import { apiErrorCodes } from '../../shared/api/error-codes.ts';
import { sampleTestEvent, withFreshEventIdentity } from '../../shared/webhooks/sample-events.ts';
import { webhookConsoleMessages as m } from '../../shared/webhooks/webhook-messages.ts';
import type { StreamChange, TestWebhookResponse } from '../../shared/webhooks/webhook-schemas.ts';
import { isStreamChange } from '../../shared/webhooks/stream-changes.ts';
import { applyChange, loadStoredEvents, MAX_STORED_EVENTS, saveStoredEvents, type WebhookEventEntry } from './webhook-event-store.ts';
import { curlCommand } from './curl-command.ts';
import { useSendTestWebhook } from './use-webhooks.ts';

/** What the last send came to, as the results area words it. */
export type SendOutcome = { kind: 'sent' | 'duplicate'; message: string } | { kind: 'failed'; message: string };

export interface DebugInfo {
  connection: StreamConnection;
  lastEventId: string | null;
  lastChange: StreamChange | null;
  lastSend: TestWebhookResponse | { error: string } | null;
}

export const emptyDebug: DebugInfo = { connection: 'closed', lastEventId: null, lastChange: null, lastSend: null };

/** Everything the console shows; the sending itself is the send mutation's. */
export interface WebhookConsoleState {
  /** Captured events, newest first, as stored in this browser. */
  events: WebhookEventEntry[];
  lastUpdated: Date | null;
  listening: boolean;
  /** A new session opens the stream afresh: each Start listens from now on. */
  session: number;
  payload: string;
  payloadError: string | null;
  /** Each send gets a new event_id and timestamp unless the owner resends this one on purpose. */
  freshIdentity: boolean;
  dryRun: boolean;
  outcome: SendOutcome | null;
  debug: DebugInfo;
  showDebug: boolean;
}

export type WebhookConsoleAction =
  | { type: 'listeningStarted' }
  | { type: 'listeningStopped' }
  /** The stream was reopened as often as it may be: the console stops listening. */
  | { type: 'streamGaveUp' }
  | { type: 'connectionChanged'; connection: StreamConnection }
  | { type: 'streamReady'; lastEventId: string }
  | { type: 'changeReceived'; change: StreamChange; lastEventId: string }
  /** The captured list as it is now (after a change, a failed send or a clear). */
  | { type: 'eventsChanged'; events: WebhookEventEntry[]; at: Date }
  | { type: 'cleared' }
  | { type: 'payloadEdited'; payload: string }
  | { type: 'freshIdentitySet'; on: boolean }
  | { type: 'dryRunSet'; on: boolean }
  | { type: 'debugToggled' }
  /** Send pressed with a payload that is not JSON: nothing is sent. */
  | { type: 'payloadRefused' }
  /** `sent` is the payload as it goes out, which the box then shows. */
  | { type: 'sendStarted'; sent: string }
  | { type: 'sendAnswered'; result: TestWebhookResponse }
  /** The server refused the send; `invalidJson` when it found the payload not to be JSON. */
  | { type: 'sendRefused'; message: string; invalidJson: boolean }
  /** The send failed without an answer of the server's. */
  | { type: 'sendBroke' };

export function initialConsoleState(events: WebhookEventEntry[], payload: string): WebhookConsoleState {
  return {
    events,
    lastUpdated: null,
    listening: false,
    session: 0,
    payload,
    payloadError: null,
    freshIdentity: true,
    dryRun: false,
    outcome: null,
    debug: emptyDebug,
    showDebug: false,
  };
}

/** The console's state changes, pure: toasts, storage, the stream and the request are the hook's. */
export function webhookConsoleReducer(state: WebhookConsoleState, action: WebhookConsoleAction): WebhookConsoleState {
  switch (action.type) {
    case 'listeningStarted':
      return { ...state, listening: true, session: state.session + 1 };
    case 'listeningStopped':
      return { ...state, listening: false, debug: { ...state.debug, connection: 'closed' } };
    case 'streamGaveUp':
      return { ...state, listening: false };
    case 'connectionChanged':
      return { ...state, debug: { ...state.debug, connection: action.connection } };
    case 'streamReady':
      return { ...state, debug: { ...state.debug, lastEventId: action.lastEventId || state.debug.lastEventId } };
    case 'changeReceived':
      return { ...state, debug: { ...state.debug, lastChange: action.change, lastEventId: action.lastEventId } };
    case 'eventsChanged':
      return { ...state, events: action.events, lastUpdated: action.at };
    case 'cleared':
      return { ...state, events: [], lastUpdated: null, debug: { ...emptyDebug, connection: state.debug.connection } };
    case 'payloadEdited':
      return { ...state, payload: action.payload, payloadError: null };
    case 'freshIdentitySet':
      return { ...state, freshIdentity: action.on };
    case 'dryRunSet':
      return { ...state, dryRun: action.on };
    case 'debugToggled':
      return { ...state, showDebug: !state.showDebug };
    case 'payloadRefused':
      return { ...state, outcome: null, payloadError: m.invalidJson };
    case 'sendStarted':
      return { ...state, outcome: null, payloadError: null, payload: action.sent };
    case 'sendAnswered':
      return {
        ...state,
        debug: { ...state.debug, lastSend: action.result },
        outcome: action.result.duplicate ? { kind: 'duplicate', message: m.duplicate } : { kind: 'sent', message: m.sent },
      };
    case 'sendRefused':
      return {
        ...state,
        payloadError: action.invalidJson ? m.invalidJson : state.payloadError,
        outcome: { kind: 'failed', message: m.sendFailedInline(action.message) },
        debug: { ...state.debug, lastSend: { error: action.message } },
      };
    case 'sendBroke':
      return { ...state, outcome: { kind: 'failed', message: m.sendException } };
  }
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

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The Webhook Test Console's state and what its buttons do (docs/product/specification.md
 * §2), live through the app's own server-sent events (docs/decisions/0009-live-stream.md):
 * events are captured only while listening, newest first, and the 10 newest are kept in
 * this browser.
 */
export function useWebhookConsole(flow: Flow) {
  const { user } = useAuth();
  const userId = user?.id ?? 'anonymous';
  const { flowType, webhookUrl } = flow;
  const [state, dispatch] = useReducer(webhookConsoleReducer, null, () => initialConsoleState(loadStoredEvents(userId, flowType), defaultPayload(flowType)));
  const sendTest = useSendTestWebhook(flowType);
  const signatureRequired = useFlowSignature(flowType).data?.required ?? false;
  const results = useRef<HTMLElement | null>(null);

  // The list as last set, read synchronously by stream handlers (state updates are lazy).
  const eventsRef = useRef(state.events);

  const updateEvents = useCallback(
    (update: (entries: WebhookEventEntry[]) => WebhookEventEntry[]) => {
      const next = update(eventsRef.current);
      eventsRef.current = next;
      saveStoredEvents(userId, flowType, next);
      dispatch({ type: 'eventsChanged', events: next, at: new Date() });
    },
    [userId, flowType],
  );

  const onChange = useCallback(
    (message: MessageEvent<string>) => {
      const change: unknown = JSON.parse(message.data);
      if (!isStreamChange(change)) return;
      dispatch({ type: 'changeReceived', change, lastEventId: message.lastEventId });
      const applied = applyChange(eventsRef.current, change);
      updateEvents(() => applied.entries);
      if (applied.nowFailed) toast.error(m.webhookFailed);
      else if (applied.isNew) toast.success(m.received);
    },
    [updateEvents],
  );

  const announced = useRef(false);

  useEventStream(
    state.listening ? { flowType } : null,
    {
      onChange,
      onConnection: (connection) => dispatch({ type: 'connectionChanged', connection }),
      onOpen: () => {
        if (!announced.current) {
          announced.current = true;
          toast.success(m.listening);
        }
      },
      onReady: (message) => dispatch({ type: 'streamReady', lastEventId: message.lastEventId }),
      onGiveUp: () => dispatch({ type: 'streamGaveUp' }),
    },
    state.session,
  );

  function startListening() {
    announced.current = false;
    dispatch({ type: 'listeningStarted' });
  }

  function stopListening() {
    dispatch({ type: 'listeningStopped' });
    toast.info(m.stopped);
  }

  function clear() {
    updateEvents(() => []);
    dispatch({ type: 'cleared' });
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
      await navigator.clipboard.writeText(curlCommand(webhookUrl, state.payload, { signatureRequired }));
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
    const { payload, freshIdentity, dryRun } = state;
    if (!isJson(payload)) {
      dispatch({ type: 'payloadRefused' });
      toast.error(m.invalidJson);
      return;
    }
    // A test is a new event each time unless the owner chose to resend this one; the box
    // shows exactly what was sent.
    const sent = freshIdentity ? withFreshEventIdentity(payload) : payload;
    dispatch({ type: 'sendStarted', sent });
    toast.info(m.sending);
    try {
      const result = await sendTest.mutateAsync({ payload: sent, dryRun });
      dispatch({ type: 'sendAnswered', result });
      if (result.duplicate) toast.warning(m.duplicate);
      else toast.success(m.sent);
    } catch (error) {
      if (error instanceof ApiRequestError) {
        dispatch({ type: 'sendRefused', message: error.message, invalidJson: error.body.error === apiErrorCodes.invalid_json });
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
        dispatch({ type: 'sendBroke' });
        toast.error(m.sendException);
      }
    }
    showResults();
  }

  return {
    state,
    flowType,
    webhookUrl,
    sending: sendTest.isPending,
    signatureRequired,
    /** The results region, brought into view and focused after each send. */
    results,
    startListening,
    stopListening,
    clear,
    copyUrl,
    copyCurl,
    send,
    editPayload: (payload: string) => dispatch({ type: 'payloadEdited', payload }),
    setFreshIdentity: (on: boolean) => dispatch({ type: 'freshIdentitySet', on }),
    setDryRun: (on: boolean) => dispatch({ type: 'dryRunSet', on }),
    toggleDebug: () => dispatch({ type: 'debugToggled' }),
  };
}
