import { describe, expect, it } from 'vitest';
import { sseMessage } from '../../src/server/realtime/realtime-routes.ts';
import { payloadOf, payloadPreviewLimits, type EventChange } from '../../src/server/realtime/event-change-queries.ts';
import { streamChangeSchema } from '../../src/shared/webhooks/webhook-schemas.ts';
import { streamMessages } from '../../src/shared/messages.ts';

function change(payload: unknown): EventChange {
  return {
    changeId: '900-42',
    cursor: { tx: 900n, id: 42n },
    flowId: 'flow-1',
    eventId: 'event-1',
    arrival: true,
    flowType: 'abandoned_cart',
    status: 'received',
    source: 'generic',
    dryRun: false,
    receivedAt: '2026-11-20T10:00:00.000Z',
    changedAt: '2026-11-20T10:00:00.000Z',
    payload,
    error: null,
    generations: [],
  };
}

/** The data of one SSE message, parsed as the browser would. */
function dataOf(message: string) {
  const line = message.split('\n').find((part) => part.startsWith('data: '));
  return streamChangeSchema.parse(JSON.parse(line!.slice('data: '.length)));
}

function nested(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

describe('what the live console sends of an event', () => {
  it('sends a small JSON payload as parsed JSON', () => {
    const message = sseMessage(change(payloadOf('{"event_id":"evt_1","total":12.5}')));
    expect(message.startsWith('id: 900-42\nevent: change\n')).toBe(true);
    expect(dataOf(message).payload).toEqual({ event_id: 'evt_1', total: 12.5 });
  });

  it('sends a body nested thousands of levels deep as a short text preview', () => {
    const raw = nested(5_000);
    const payload = payloadOf(raw);
    expect(typeof payload).toBe('string');
    expect(payload as string).toContain(streamMessages.payloadTruncated(payloadPreviewLimits.previewChars, raw.length));
    expect(dataOf(sseMessage(change(payload))).payload).toBe(payload);
  });

  it('sends a body beyond the size limit as a preview of its start', () => {
    const raw = JSON.stringify({ note: 'x'.repeat(payloadPreviewLimits.maxChars) });
    expect((payloadOf(raw) as string).length).toBeLessThan(payloadPreviewLimits.previewChars + 200);
  });

  it('keeps text that is not JSON as text, without NUL characters', () => {
    expect(payloadOf('not json\u0000 at all')).toBe('not json at all');
  });

  it('never throws while serialising: a value JSON cannot hold becomes a placeholder', () => {
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let level = 0; level < 200_000; level += 1) {
      const next: Record<string, unknown> = {};
      deep.a = next;
      deep = next;
    }
    for (const payload of [root, { id: 10n }]) {
      let message = '';
      expect(() => (message = sseMessage(change(payload)))).not.toThrow();
      expect(message.startsWith('id: 900-42\nevent: change\n')).toBe(true);
      expect(dataOf(message).payload).toBe(streamMessages.changeUnreadable);
    }
  });
});
