import { describe, expect, it } from 'vitest';
import { checkRequestAddress } from '../../src/server/platform/input-guards.ts';
import { createFaultPolicy } from '../../src/server/platform/process-faults.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';
import { endpointAddress } from '../../src/shared/api/endpoint.ts';

describe('request addresses', () => {
  it.each([
    endpointAddress(endpoints.events.detail, { params: { eventId: 'abc' } }),
    endpointAddress(endpoints.events.list, { query: { flowType: 'abandoned_cart', limit: 10 } }),
    '/api/webhooks/abandoned_cart/AbC-_123?x=caf%C3%A9+cr%C3%A8me',
    endpointAddress(endpoints.stream.flow, { params: { flowType: 'abandoned_cart' }, query: { lastEventId: 12 } }),
  ])('lets %s through', (url) => {
    expect(checkRequestAddress(url)).toBeNull();
  });

  // Malformed on purpose, byte by byte: endpointAddress would encode each of these away.
  it.each([
    ['a NUL byte in the path', '/api/events/abc%00def', 'control_characters'],
    ['a NUL byte in the query', '/api/events?before=%00', 'control_characters'],
    ['a line break in the query', '/api/events?before=a%0Ab', 'control_characters'],
    ['half of a surrogate pair', '/api/events/%ED%A0%80', 'malformed_address'],
    ['a broken escape', '/api/events?before=%E2%82', 'malformed_address'],
    ['a stray percent sign', '/api/events/100%', 'malformed_address'],
  ])('refuses %s with 400', (_name, url, code) => {
    const refusal = checkRequestAddress(url);
    expect(refusal?.statusCode).toBe(400);
    expect(refusal?.code).toBe(code);
  });
});

describe('errors nobody caught', () => {
  function policy() {
    const clock = new ManualClock();
    const lines: Array<{ level: string; message: string }> = [];
    const reasons: string[] = [];
    const logger = {
      error: (_context: unknown, message: string) => lines.push({ level: 'error', message }),
      warn: (_context: unknown, message: string) => lines.push({ level: 'warn', message }),
      fatal: (_context: unknown, message: string) => lines.push({ level: 'fatal', message }),
    };
    const faults = createFaultPolicy({ logger: logger as never, clock, giveUp: (reason) => reasons.push(reason), maxFaults: 3, windowMs: 60_000 });
    return { clock, lines, reasons, faults };
  }

  it('logs a stray error and carries on', () => {
    const { lines, reasons, faults } = policy();
    faults.onUncaughtException(new RangeError('Maximum call stack size exceeded'), 'uncaughtException');
    faults.onUnhandledRejection(new Error('a forgotten promise'));
    expect(reasons).toEqual([]);
    expect(lines.map((line) => line.level)).toEqual(['error', 'error']);
  });

  it('carries on through any number of lost database connections', () => {
    const { reasons, faults } = policy();
    for (let index = 0; index < 50; index += 1) faults.onUncaughtException(new Error('Connection terminated unexpectedly'));
    expect(reasons).toEqual([]);
  });

  it('gives up when errors keep escaping within the window, not when they are spread out', () => {
    const spread = policy();
    for (let index = 0; index < 10; index += 1) {
      spread.faults.onUncaughtException(new Error('now and then'));
      spread.clock.advance(30_000);
    }
    expect(spread.reasons).toEqual([]);

    const storm = policy();
    for (let index = 0; index < 4; index += 1) storm.faults.onUncaughtException(new Error('again and again'));
    expect(storm.reasons).toHaveLength(1);
  });

  it('gives up at once when the embedded database failed', () => {
    const { reasons, faults } = policy();
    faults.onUncaughtException(new WebAssembly.RuntimeError('unreachable'));
    expect(reasons).toEqual(['the embedded database failed']);
  });
});
