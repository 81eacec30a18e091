import { describe, expect, it } from 'vitest';
import { flowHealth } from '../../src/server/dashboard/dashboard-routes.ts';

const lastEvent = { receivedAt: new Date('2026-11-25T10:00:00Z'), status: 'delivered' as const };

describe("a flow's health", () => {
  it('has no events before the first one', () => {
    expect(flowHealth({ lastEvent: null, lastOutcome: null })).toBe('no_events');
  });

  it('is failing when the last event it finished in the day failed, and working when it delivered', () => {
    expect(flowHealth({ lastEvent, lastOutcome: 'failed' })).toBe('failing');
    expect(flowHealth({ lastEvent, lastOutcome: 'delivered' })).toBe('working');
  });

  it('is working when nothing finished in the day (only skips, waits or rejections)', () => {
    expect(flowHealth({ lastEvent: { ...lastEvent, status: 'skipped' }, lastOutcome: null })).toBe('working');
  });
});
