import { describe, expect, it } from 'vitest';
import { isOldFormatWebhookUrl, newFlowId, normaliseWebhookUrl, webhookUrlFor } from '../../src/server/flows/webhook-url.ts';

describe('normaliseWebhookUrl (docs/product/specification.md §4)', () => {
  it.each([
    ['https://shop.example/api/api/webhooks/abandoned_cart/abc', 'https://shop.example/api/webhooks/abandoned_cart/abc'],
    ['https://shop.example/api/api/api/webhooks/abandoned_cart/abc', 'https://shop.example/api/webhooks/abandoned_cart/abc'],
    ['https://shop.example/webhooks/post_purchase/abc', 'https://shop.example/api/webhooks/post_purchase/abc'],
    ['https://shop.example/app/webhooks/post_purchase/abc', 'https://shop.example/app/api/webhooks/post_purchase/abc'],
    ['https://shop.example/api/webhooks/post_purchase/abc', 'https://shop.example/api/webhooks/post_purchase/abc'],
    ['https://webhooks.example/api/webhooks/post_purchase/abc', 'https://webhooks.example/api/webhooks/post_purchase/abc'],
    ['https://shop.example/somewhere/else', 'https://shop.example/somewhere/else'],
  ])('%s becomes %s', (url, expected) => {
    expect(normaliseWebhookUrl(url)).toBe(expected);
    expect(isOldFormatWebhookUrl(url)).toBe(url !== expected);
  });

  it('is idempotent', () => {
    const once = normaliseWebhookUrl('https://shop.example/api/api/webhooks/x/y');
    expect(normaliseWebhookUrl(once)).toBe(once);
  });
});

describe('webhookUrlFor', () => {
  it('builds {PUBLIC_URL}/api/webhooks/{flowType}/{flowId}', () => {
    expect(webhookUrlFor('https://flows.example', 'abandoned_cart', 'abc_-1')).toBe('https://flows.example/api/webhooks/abandoned_cart/abc_-1');
  });

  it('keeps a single /api when PUBLIC_URL already ends in /api or a slash', () => {
    expect(webhookUrlFor('https://flows.example/api', 'post_purchase', 'id')).toBe('https://flows.example/api/webhooks/post_purchase/id');
    expect(webhookUrlFor('https://flows.example/', 'post_purchase', 'id')).toBe('https://flows.example/api/webhooks/post_purchase/id');
  });
});

describe('newFlowId', () => {
  it('carries at least 128 random bits, URL-safe, and does not repeat', () => {
    const ids = Array.from({ length: 1000 }, () => newFlowId());
    for (const id of ids) {
      expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(Buffer.from(id, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });
});
