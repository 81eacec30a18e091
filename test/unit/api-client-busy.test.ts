import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiRequestError, apiRequest, busyState, isBusyError, retryDelayFor, retryOnceOrWhenBusy, retryWhenBusy } from '../../src/web/app/api-client.ts';
import { requestMessages } from '../../src/shared/messages.ts';
import { endpoints } from '../../src/shared/api/endpoints.ts';
import { endpointAddress } from '../../src/shared/api/endpoint.ts';

const limited = (seconds: number) => new ApiRequestError(429, { error: 'rate_limited', message: requestMessages.rateLimited, retryAfterSeconds: seconds });
const broken = new ApiRequestError(500, { error: 'internal', message: requestMessages.internal });

afterEach(() => vi.unstubAllGlobals());

describe('waiting out a busy answer', () => {
  it('retries a rate limit or a busy server after the wait it names, up to five times, and notes until when', () => {
    expect(isBusyError(limited(12))).toBe(true);
    expect(isBusyError(new ApiRequestError(503, { error: 'database_unavailable', message: requestMessages.databaseUnavailable, retryAfterSeconds: 5 }))).toBe(true);
    expect(isBusyError(new ApiRequestError(429, { error: 'locked_out', message: 'locked' }))).toBe(false);
    const before = Date.now();
    expect(retryWhenBusy(0, limited(12))).toBe(true);
    expect(busyState.until()).toBeGreaterThanOrEqual(before + 12_000);
    expect(retryDelayFor(0, limited(12))).toBe(12_000);
    expect(retryDelayFor(0, limited(3600))).toBe(60_000);
    expect(retryWhenBusy(4, limited(1))).toBe(true);
    expect(retryWhenBusy(5, limited(1))).toBe(false);
  });

  it('does not retry other failures where the query asked for none, and once by default', () => {
    expect(retryWhenBusy(0, broken)).toBe(false);
    expect(retryOnceOrWhenBusy(0, broken)).toBe(true);
    expect(retryOnceOrWhenBusy(1, broken)).toBe(false);
    expect(retryOnceOrWhenBusy(3, limited(2))).toBe(true);
  });

  it('reads the wait from Retry-After when the body does not give it', async () => {
    vi.stubGlobal('fetch', () => Promise.resolve(new Response('busy', { status: 503, headers: { 'retry-after': '7' } })));
    const error = await apiRequest('GET', endpointAddress(endpoints.flows.list)).catch((caught: unknown) => caught);
    expect(isBusyError(error)).toBe(true);
    expect((error as ApiRequestError).body.retryAfterSeconds).toBe(7);
  });
});
