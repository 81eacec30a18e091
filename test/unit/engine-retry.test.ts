import { describe, expect, it } from 'vitest';
import { defaultRetryPolicy, nextTryDelay, retryRefusal, type RetryPolicy } from '../../src/server/engine/spine/retry-policy.ts';
import { withQuickRetry } from '../../src/server/engine/spine/quick-retry.ts';
import { ServiceError } from '../../src/server/integrations/service-error.ts';
import { signShopifyBody, verifyShopifySignature } from '../../src/server/intake/shopify-signature.ts';

const policy: RetryPolicy = { tries: 4, delaysMs: [100, 400, 1_000], jitter: 0.5, maxInPlaceWaitMs: 1_000, maxRetryAfterMs: 5_000 };
const retryable = (retryAfterMs: number | null = null) => new ServiceError('openai', 'server_error', 'boom', { status: 503, retryAfterMs });

describe('the schedule of tries', () => {
  it('tries a failing service 8 times over about 4 hours, each wait longer than the one before', () => {
    const waits = Array.from({ length: defaultRetryPolicy.tries - 1 }, (_, index) => nextTryDelay(defaultRetryPolicy, index + 1, null, () => 0.5));
    expect(waits).toEqual([30_000, 120_000, 300_000, 900_000, 1_800_000, 3_600_000, 7_200_000]);
    const hours = waits.reduce((sum, wait) => sum + wait, 0) / 3_600_000;
    expect(hours).toBeGreaterThan(3.5);
    expect(hours).toBeLessThan(4.5);
  });

  it('spreads each wait by the jitter either way, and repeats the last step', () => {
    expect(nextTryDelay(policy, 1, null, () => 0)).toBe(50);
    expect(nextTryDelay(policy, 1, null, () => 1)).toBe(150);
    expect(nextTryDelay(policy, 2, null, () => 0.5)).toBe(400);
    expect(nextTryDelay(policy, 9, null, () => 0.5)).toBe(1_000);
  });

  it('never tries sooner than the service asked with Retry-After', () => {
    expect(nextTryDelay(policy, 1, 3_000, () => 1)).toBe(3_000);
    expect(nextTryDelay(policy, 3, 10, () => 0.5)).toBe(1_000);
  });

  it('gives up on permanent errors, after the last try, and when asked to wait too long', () => {
    const quota = new ServiceError('openai', 'insufficient_quota', 'quota', { status: 429 });
    expect(retryRefusal(policy, quota, 1)).toBe('permanent');
    expect(retryRefusal(policy, retryable(), 3)).toBeNull();
    expect(retryRefusal(policy, retryable(), 4)).toBe('tries_used_up');
    expect(retryRefusal(policy, retryable(60_000), 1)).toBe('wait_too_long');
  });
});

describe('waiting in place', () => {
  it('waits a short Retry-After in the worker slot and calls once more', async () => {
    const waits: number[] = [];
    let calls = 0;
    const result = await withQuickRetry(
      async () => {
        calls += 1;
        if (calls === 1) throw retryable(800);
        return 'ok';
      },
      policy,
      { sleep: async (ms: number) => void waits.push(ms) },
    );
    expect(result).toBe('ok');
    expect(waits).toEqual([800]);
  });

  it('does not sleep on anything else: no Retry-After, a long one, a second failure, a permanent error', async () => {
    const waits: number[] = [];
    const sleep = async (ms: number) => void waits.push(ms);
    await expect(withQuickRetry(() => Promise.reject(retryable()), policy, { sleep })).rejects.toThrow('OpenAI: boom');
    await expect(withQuickRetry(() => Promise.reject(retryable(1_001)), policy, { sleep })).rejects.toThrow('OpenAI: boom');
    let calls = 0;
    await expect(withQuickRetry(() => ((calls += 1), Promise.reject(retryable(500))), policy, { sleep })).rejects.toThrow('OpenAI: boom');
    expect(calls).toBe(2);
    const quota = new ServiceError('openai', 'insufficient_quota', 'quota', { status: 429, retryAfterMs: 10 });
    await expect(withQuickRetry(() => Promise.reject(quota), policy, { sleep })).rejects.toBe(quota);
    expect(waits).toEqual([500]);
  });
});

describe('Shopify signatures', () => {
  const body = Buffer.from('{"id":1}');
  it('accepts the current or the previous secret, nothing else', () => {
    const signature = signShopifyBody(body, 'old');
    expect(verifyShopifySignature(body, signature, ['new', 'old'])).toBe(true);
    expect(verifyShopifySignature(body, signature, ['new'])).toBe(false);
    expect(verifyShopifySignature(body, signature, [])).toBe(false);
    expect(verifyShopifySignature(Buffer.from('{"id":2}'), signature, ['old'])).toBe(false);
    expect(verifyShopifySignature(body, 'garbage', ['old'])).toBe(false);
  });
});
