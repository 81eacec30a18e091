import { describe, expect, it } from 'vitest';
import { credentialsInputSchema } from '../../src/shared/credentials/credential-schemas.ts';
import { normalizeShopDomain } from '../../src/shared/credentials/shop-domain.ts';
import { credentialValidationMessages as v } from '../../src/shared/credentials/credential-messages.ts';
import { isShutDown, offeredModels, openAiPrices, priceOf } from '../../src/server/integrations/openai/openai-prices.ts';

const input = (overrides: Record<string, unknown> = {}) => ({
  klaviyoApiKey: 'pk_live_123',
  openaiApiKey: 'sk-123',
  openaiModel: 'gpt-5-mini',
  shopifyDomain: 'shop.myshopify.com',
  shopifyAuthMethod: 'access_token',
  shopifyAccessToken: 'shpat_123',
  shopifySigningSecret: 'shpss_123',
  ...overrides,
});

function fieldErrors(value: unknown): Record<string, string> {
  const result = credentialsInputSchema.safeParse(value);
  if (result.success) return {};
  const errors: Record<string, string> = {};
  for (const issue of result.error.issues) errors[issue.path.join('.')] ??= issue.message;
  return errors;
}

describe('the credentials form schema (shared by browser and server)', () => {
  it('accepts a complete access-token record and a client-credentials one without a signing secret', () => {
    expect(fieldErrors(input())).toEqual({});
    expect(fieldErrors(input({ shopifyAuthMethod: 'client_credentials', shopifyAccessToken: '', shopifySigningSecret: '', shopifyClientId: 'id', shopifyClientSecret: 'secret' }))).toEqual({});
  });

  it("words the required fields as docs/product/specification.md §5 does", () => {
    expect(fieldErrors({ shopifyAuthMethod: 'access_token', klaviyoApiKey: '', openaiApiKey: '', openaiModel: '', shopifyDomain: '' })).toEqual({
      klaviyoApiKey: 'Klaviyo API Key is required',
      openaiApiKey: 'OpenAI API Key is required',
      openaiModel: 'OpenAI model is required',
      shopifyDomain: v.shopifyDomainRequired,
      shopifyAccessToken: 'Shopify Access Token is required',
      shopifySigningSecret: v.shopifySigningSecretRequired,
    });
  });

  it('explains retired assistant and stored-prompt ids', () => {
    expect(fieldErrors(input({ openaiModel: 'asst_abc' }))).toEqual({ openaiModel: v.assistantIdRetired });
    expect(fieldErrors(input({ openaiModel: 'pmpt_abc' }))).toEqual({ openaiModel: v.storedPromptRetired });
    expect(fieldErrors(input({ openaiModel: 'gpt 5' }))).toEqual({ openaiModel: v.openaiModelInvalid });
  });

  it('normalises pasted shop addresses and refuses other domains', () => {
    expect(normalizeShopDomain(' HTTPS://My-Shop.myshopify.com/admin?x=1 ')).toBe('my-shop.myshopify.com');
    expect(credentialsInputSchema.parse(input({ shopifyDomain: 'https://My-Shop.myshopify.com/' })).shopifyDomain).toBe('my-shop.myshopify.com');
    expect(fieldErrors(input({ shopifyDomain: 'myshop.com' }))).toEqual({ shopifyDomain: v.shopifyDomainInvalid });
    expect(fieldErrors(input({ shopifyDomain: 'a.myshopify.com.evil.example' }))).toEqual({ shopifyDomain: v.shopifyDomainInvalid });
  });

  it('refuses keys with spaces or line breaks, which could not travel in a header', () => {
    expect(fieldErrors(input({ klaviyoApiKey: 'pk_live 123' }))).toEqual({ klaviyoApiKey: v.oneWord('Klaviyo API Key') });
    expect(fieldErrors(input({ shopifyAccessToken: 'shpat\n123' }))).toEqual({ shopifyAccessToken: v.oneWord('Shopify Access Token') });
  });
});

describe('models offered for writing text', () => {
  const now = new Date('2026-11-26T12:00:00Z');
  const available = (...ids: string[]) => ids.map((id) => ({ id, shutdownDate: null }));

  it('keeps models that serve Structured Outputs and drops embedding, audio, image, realtime and older chat models', () => {
    const ids = ['gpt-5', 'text-embedding-3-small', 'gpt-4o-realtime-preview', 'dall-e-3', 'o3-mini', 'gpt-5-mini', 'whisper-1', 'gpt-image-1', 'gpt-5'];
    expect(offeredModels(available(...ids, 'gpt-3.5-turbo', 'gpt-4', 'gpt-4-turbo', 'o1-mini', 'chatgpt-4o-latest', 'gpt-4o-2024-05-13'), now)).toEqual(['gpt-5', 'gpt-5-mini', 'o3-mini']);
    expect(offeredModels(available('gpt-4o-2024-08-06', 'gpt-4o-mini-2024-07-18', 'o1-2024-12-17', 'o1-preview-2024-09-12'), now)).toEqual([
      'gpt-4o-2024-08-06',
      'gpt-4o-mini-2024-07-18',
      'o1-2024-12-17',
    ]);
  });

  it('drops a model once its shutdown date has come', () => {
    const models = [
      { id: 'gpt-4.1', shutdownDate: '2026-11-26' },
      { id: 'gpt-5', shutdownDate: '2027-06-01' },
      { id: 'gpt-5-mini', shutdownDate: String(Math.floor(now.getTime() / 1000) - 60) },
    ];
    expect(offeredModels(models, now)).toEqual(['gpt-5']);
    expect(isShutDown('not a date', now)).toBe(false);
  });

  it('prices every model it offers, and budgets one it does not know at the dearest known price of each kind of token', () => {
    for (const id of offeredModels(available(...Object.keys(openAiPrices)), now)) expect(priceOf(id).known, id).toBe(true);
    const unknown = priceOf('gpt-9');
    expect(unknown).toMatchObject({ known: false, flex: false });
    for (const price of Object.values(openAiPrices)) {
      expect(unknown.inputPerMillion).toBeGreaterThanOrEqual(price.inputPerMillion);
      expect(unknown.cachedInputPerMillion).toBeGreaterThanOrEqual(price.cachedInputPerMillion);
      expect(unknown.outputPerMillion).toBeGreaterThanOrEqual(price.outputPerMillion);
    }
    // An older snapshot of a listed model is not the model: gpt-4o-2024-05-13 cost more and served no Structured Outputs.
    expect(priceOf('gpt-4o-2024-05-13').known).toBe(false);
    expect(priceOf('gpt-4o-2024-11-20')).toMatchObject({ known: true, inputPerMillion: 2.5 });
  });
});
