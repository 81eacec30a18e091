import { describe, expect, it } from 'vitest';
import { isSandboxEvent, sandboxProfilesPath } from '../../src/shared/sandbox/sandbox-events.ts';
import { sandboxMessages } from '../../src/shared/sandbox/sandbox-messages.ts';
import { sampleText } from '../../src/server/sandbox/sandbox-services.ts';
import { sampleProductGid, sampleProducts } from '../../src/server/sandbox/sample-shop.ts';
import { shopifyProductGid } from '../../src/server/integrations/shopify/shopify-products.ts';

describe('the sandbox', () => {
  it('marks an event as the sandbox\'s exactly when it was received inside a period', () => {
    const status = { periods: [{ startedAt: '2026-11-25T10:00:00.000Z', endedAt: '2026-11-25T11:00:00.000Z' }, { startedAt: '2026-11-25T12:00:00.000Z', endedAt: null }] };
    expect(isSandboxEvent(status, '2026-11-25T09:59:59.999Z')).toBe(false);
    expect(isSandboxEvent(status, '2026-11-25T10:00:00.000Z')).toBe(true);
    expect(isSandboxEvent(status, '2026-11-25T10:59:59.999Z')).toBe(true);
    expect(isSandboxEvent(status, '2026-11-25T11:00:00.000Z')).toBe(false);
    expect(isSandboxEvent(status, '2026-11-25T13:00:00.000Z')).toBe(true);
    expect(isSandboxEvent(undefined, '2026-11-25T13:00:00.000Z')).toBe(false);
  });

  it('labels a sample text as one and shows what OpenAI would have been sent, bounded', () => {
    const text = sampleText({ model: 'gpt-5-mini', instructions: 'Be brief.', input: 'x'.repeat(5_000) }, 'text_1');
    expect(text.startsWith(sandboxMessages.sampleTextLabel)).toBe(true);
    expect(text).toContain('Field: text_1');
    expect(text).toContain('Model: gpt-5-mini');
    expect(text).toContain('Instructions: Be brief.');
    expect(text).toContain('(2000 more characters)');
    expect(text.length).toBeLessThan(3_500);
  });

  it('gives the sample products Shopify product ids the engine looks up', () => {
    for (const product of sampleProducts) expect(shopifyProductGid(product.id)).toBe(sampleProductGid(product));
    expect(sandboxProfilesPath('a+1@example.com')).toBe('/sandbox/profiles?email=a%2B1%40example.com');
  });
});
