import { describe, expect, it } from 'vitest';
import { backoffDelay, withRetries, type RetryPolicy } from '../../src/server/engine/retry-policy.ts';
import { parseRetryAfter, ServiceCallError } from '../../src/server/engine/service-call-error.ts';
import { signShopifyBody, verifyShopifySignature } from '../../src/server/webhooks/webhook-signature.ts';

const policy: RetryPolicy = { attempts: 4, baseDelayMs: 100, maxDelayMs: 1_000, maxRetryAfterMs: 5_000 };
const retryable = (retryAfterMs: number | null = null) => new ServiceCallError('openai', 'server_error', 'boom', { retryable: true, status: 503, retryAfterMs });

describe('backoff', () => {
  it('doubles up to the maximum, with jitter between half and all of it', () => {
    expect(backoffDelay(policy, 1, () => 0)).toBe(50);
    expect(backoffDelay(policy, 1, () => 1)).toBe(100);
    expect(backoffDelay(policy, 3, () => 1)).toBe(400);
    expect(backoffDelay(policy, 10, () => 1)).toBe(1_000);
    expect(backoffDelay(policy, 10, () => 0)).toBe(500);
  });
});

describe('withRetries', () => {
  it('retries retryable errors, waiting as the service asks, until it succeeds', async () => {
    const waits: number[] = [];
    let calls = 0;
    const result = await withRetries(
      async () => {
        calls += 1;
        if (calls === 1) throw retryable(1_500);
        if (calls === 2) throw retryable();
        return 'ok';
      },
      policy,
      { sleep: async (ms) => void waits.push(ms) },
    );
    expect(result).toBe('ok');
    expect(waits[0]).toBe(1_500);
    expect(waits[1]).toBeGreaterThanOrEqual(100);
    expect(waits[1]).toBeLessThanOrEqual(200);
  });

  it('gives up after the last try with the last error', async () => {
    let calls = 0;
    await expect(withRetries(async () => ((calls += 1), Promise.reject(retryable())), policy, { sleep: async () => undefined })).rejects.toThrow('OpenAI: boom');
    expect(calls).toBe(4);
  });

  it('does not retry permanent errors, or a wait longer than allowed', async () => {
    let calls = 0;
    const quota = new ServiceCallError('openai', 'insufficient_quota', 'quota', { retryable: false, status: 429 });
    await expect(withRetries(async () => ((calls += 1), Promise.reject(quota)), policy, { sleep: async () => undefined })).rejects.toBe(quota);
    await expect(withRetries(async () => ((calls += 1), Promise.reject(retryable(60_000))), policy, { sleep: async () => undefined })).rejects.toThrow();
    expect(calls).toBe(2);
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('2')).toBe(2_000);
    expect(parseRetryAfter('0.5')).toBe(500);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter('soon')).toBeNull();
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
