import { describe, expect, it } from 'vitest';
import {
  emptyDebug,
  initialConsoleState,
  webhookConsoleReducer,
  type WebhookConsoleAction,
  type WebhookConsoleState,
} from '../../src/web/webhooks/use-webhook-console.ts';
import type { WebhookEventEntry } from '../../src/web/webhooks/webhook-event-store.ts';
import { webhookConsoleMessages as m } from '../../src/shared/webhooks/webhook-messages.ts';
import type { StreamChange, TestWebhookResponse } from '../../src/shared/webhooks/webhook-schemas.ts';

const entry: WebhookEventEntry = {
  id: 'evt_1',
  timestamp: new Date(0).toISOString(),
  flowType: 'abandoned_cart',
  data: { event_id: 'evt_1' },
  success: true,
  status: 'delivered',
  source: 'test',
  dryRun: false,
  error: null,
  generations: [],
};

const start = initialConsoleState([entry], '{"event_id": "evt_1"}');

/** The state after `actions`, one after another, from `from`. */
function after(actions: WebhookConsoleAction[], from: WebhookConsoleState = start): WebhookConsoleState {
  return actions.reduce(webhookConsoleReducer, from);
}

describe('the webhook console reducer', () => {
  it('starts with the stored events and the sample payload, not listening, each send a new event', () => {
    expect(start).toMatchObject({ events: [entry], listening: false, session: 0, freshIdentity: true, dryRun: false, outcome: null, payloadError: null, showDebug: false, debug: emptyDebug });
  });

  it('opens a new stream session on each start, and is closed by a stop', () => {
    const listening = after([{ type: 'listeningStarted' }, { type: 'connectionChanged', connection: 'open' }]);
    expect(listening).toMatchObject({ listening: true, session: 1, debug: { connection: 'open' } });
    const stopped = after([{ type: 'listeningStopped' }], listening);
    expect(stopped).toMatchObject({ listening: false, debug: { connection: 'closed' } });
    expect(after([{ type: 'listeningStarted' }], stopped).session).toBe(2);
  });

  it('stops listening when the stream gives up, leaving the connection to the stream to report', () => {
    const reconnecting = after([{ type: 'listeningStarted' }, { type: 'connectionChanged', connection: 'reconnecting' }]);
    expect(after([{ type: 'streamGaveUp' }], reconnecting)).toMatchObject({ listening: false, debug: { connection: 'reconnecting' } });
  });

  it('keeps the last cursor the stream named, and a ready without one keeps the one before', () => {
    const change = { eventId: 'evt_1', status: 'delivered' } as unknown as StreamChange;
    const changed = after([{ type: 'changeReceived', change, lastEventId: '7' }]);
    expect(changed.debug).toMatchObject({ lastChange: change, lastEventId: '7' });
    expect(after([{ type: 'streamReady', lastEventId: '' }], changed).debug.lastEventId).toBe('7');
    expect(after([{ type: 'streamReady', lastEventId: '9' }], changed).debug.lastEventId).toBe('9');
  });

  it('shows the events as they are now, with when they changed; Clear empties them and the debug details but the connection', () => {
    const at = new Date(1_000);
    const second = { ...entry, id: 'evt_2' };
    const updated = after([{ type: 'listeningStarted' }, { type: 'connectionChanged', connection: 'open' }, { type: 'eventsChanged', events: [second, entry], at }]);
    expect(updated).toMatchObject({ events: [second, entry], lastUpdated: at });
    const cleared = after([{ type: 'changeReceived', change: {} as StreamChange, lastEventId: '3' }, { type: 'cleared' }], updated);
    expect(cleared).toMatchObject({ events: [], lastUpdated: null, listening: true, debug: { ...emptyDebug, connection: 'open' } });
  });

  it('takes the edited payload and forgets its error; toggles the options and the debug details', () => {
    const refused = after([{ type: 'payloadRefused' }]);
    expect(refused.payloadError).toBe(m.invalidJson);
    expect(after([{ type: 'payloadEdited', payload: '{}' }], refused)).toMatchObject({ payload: '{}', payloadError: null });
    expect(after([{ type: 'freshIdentitySet', on: false }, { type: 'dryRunSet', on: true }, { type: 'debugToggled' }])).toMatchObject({
      freshIdentity: false,
      dryRun: true,
      showDebug: true,
    });
    expect(after([{ type: 'debugToggled' }, { type: 'debugToggled' }]).showDebug).toBe(false);
  });

  it('refuses a payload that is not JSON without an outcome, and clears the last outcome when a send starts', () => {
    const sent = after([{ type: 'sendStarted', sent: start.payload }, { type: 'sendAnswered', result: { duplicate: false } as TestWebhookResponse }]);
    expect(sent.outcome).toEqual({ kind: 'sent', message: m.sent });
    expect(after([{ type: 'payloadRefused' }], sent)).toMatchObject({ outcome: null, payloadError: m.invalidJson });
    expect(after([{ type: 'sendStarted', sent: '{"event_id": "test_2"}' }], sent)).toMatchObject({ outcome: null, payloadError: null, payload: '{"event_id": "test_2"}' });
  });

  it('words an answer as sent or as a duplicate, and keeps it for the debug details', () => {
    const duplicate = { duplicate: true } as TestWebhookResponse;
    expect(after([{ type: 'sendAnswered', result: duplicate }])).toMatchObject({ outcome: { kind: 'duplicate', message: m.duplicate }, debug: { lastSend: duplicate } });
  });

  it("words a refusal with the server's message, marking the payload only when the server found it not JSON", () => {
    const refused = after([{ type: 'sendRefused', message: 'Flow is not active', invalidJson: false }]);
    expect(refused).toMatchObject({ outcome: { kind: 'failed', message: m.sendFailedInline('Flow is not active') }, payloadError: null, debug: { lastSend: { error: 'Flow is not active' } } });
    expect(after([{ type: 'sendRefused', message: 'Invalid JSON', invalidJson: true }]).payloadError).toBe(m.invalidJson);
  });

  it('says a send that got no answer failed, and leaves the debug details as they were', () => {
    expect(after([{ type: 'sendBroke' }])).toMatchObject({ outcome: { kind: 'failed', message: m.sendException }, debug: emptyDebug });
  });

  it('never changes the state it is given', () => {
    const frozen = Object.freeze({ ...start, debug: Object.freeze({ ...start.debug }), events: Object.freeze([...start.events]) as WebhookEventEntry[] });
    const next = after([{ type: 'listeningStarted' }, { type: 'sendRefused', message: 'no', invalidJson: true }, { type: 'cleared' }], frozen);
    expect(next).not.toBe(frozen);
    expect(frozen).toEqual(start);
  });
});
