import { useEffect, useLayoutEffect, useRef } from 'react';
import { endpointAddress } from '../../shared/api/endpoint.ts';
import { endpoints } from '../../shared/api/endpoints.ts';
import { streamChangeEventName } from '../../shared/webhooks/stream-changes.ts';
import type { FlowType } from '../../shared/flows/flow-types.ts';

/** How often a stream the browser gave up on is opened again before the view stops listening. */
export const MAX_STREAM_REOPENS = 5;
/** The pause before the first reopen; each further one waits this much longer. */
export const STREAM_REOPEN_PAUSE_MS = 1_000;

export type StreamConnection = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface EventStreamHandlers {
  /** A change of the log (`streamChangeEventName`), in order. */
  onChange?(message: MessageEvent<string>): void;
  /**
   * The server's `ready`: the stream is read from here on. `reconnected` is true for every
   * `ready` after the first, when changes may have passed while the stream was away.
   */
  onReady?(message: MessageEvent<string>, reconnected: boolean): void;
  /** The connection's state, for a view that shows it. */
  onConnection?(state: StreamConnection): void;
  /** The browser answered the stream (the first time and after each reconnect). */
  onOpen?(): void;
  /** Reopened `MAX_STREAM_REOPENS` times without a change in between: the view stops. */
  onGiveUp?(): void;
}

/** Which of the owner's streams: every flow's changes, or one flow's. */
export type StreamOf = { flowType: FlowType } | 'all';

function streamAddress(of: StreamOf, lastEventId: string | null): string {
  const query = { lastEventId: lastEventId ?? undefined };
  return of === 'all' ? endpointAddress(endpoints.stream.all, { query }) : endpointAddress(endpoints.stream.flow, { params: of, query });
}

/**
 * The one way a view follows the owner's live stream (docs/decisions/0009-live-stream.md).
 * EventSource reconnects by itself after a network drop and sends Last-Event-ID; it gives
 * up when an answer is not the stream (a proxy's 502 while the server restarts, a 429).
 * Then the stream is opened again here, a few times with growing pauses, from the last
 * cursor it saw, carried in the `lastEventId` query parameter since a new EventSource
 * cannot set the header: no change is missed across the reopen.
 *
 * `of` null means not listening; a new `session` opens the stream afresh from now.
 * Handlers may change on every render: the latest ones are called.
 */
export function useEventStream(of: StreamOf | null, handlers: EventStreamHandlers, session = 0): void {
  const latest = useRef(handlers);
  useLayoutEffect(() => {
    latest.current = handlers;
  });
  const key = of === null ? null : of === 'all' ? 'all' : of.flowType;

  useEffect(() => {
    if (key === null || typeof EventSource === 'undefined') return;
    const target: StreamOf = key === 'all' ? 'all' : { flowType: key as FlowType };
    let stream: EventSource | null = null;
    let reopenTimer: ReturnType<typeof setTimeout> | null = null;
    let seen: string | null = null;
    let readyBefore = false;
    let stopped = false;

    const open = (failures: number) => {
      const current = new EventSource(streamAddress(target, seen));
      stream = current;
      let reopens = failures;
      const remember = (message: MessageEvent<string>) => {
        if (message.lastEventId) seen = message.lastEventId;
      };
      current.addEventListener('open', () => {
        reopens = 0;
        latest.current.onConnection?.('open');
        latest.current.onOpen?.();
      });
      current.addEventListener('ready', (event) => {
        const message = event as MessageEvent<string>;
        remember(message);
        latest.current.onReady?.(message, readyBefore);
        readyBefore = true;
      });
      current.addEventListener(streamChangeEventName, (event) => {
        const message = event as MessageEvent<string>;
        remember(message);
        latest.current.onChange?.(message);
      });
      current.addEventListener('error', () => {
        if (current.readyState !== EventSource.CLOSED) {
          latest.current.onConnection?.('reconnecting');
          return;
        }
        current.close();
        if (stopped || stream !== current) return;
        if (reopens >= MAX_STREAM_REOPENS) {
          stream = null;
          latest.current.onConnection?.('closed');
          latest.current.onGiveUp?.();
          return;
        }
        latest.current.onConnection?.('reconnecting');
        reopenTimer = setTimeout(() => open(reopens + 1), STREAM_REOPEN_PAUSE_MS * (reopens + 1));
      });
    };

    latest.current.onConnection?.('connecting');
    open(0);
    return () => {
      stopped = true;
      stream?.close();
      stream = null;
      if (reopenTimer !== null) clearTimeout(reopenTimer);
    };
  }, [key, session]);
}
