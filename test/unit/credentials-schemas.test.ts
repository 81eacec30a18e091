import { describe, expect, it } from 'vitest';
import { credentialsInputSchema, normalizeShopDomain } from '../../src/shared/credentials/credential-schemas.ts';
import { credentialValidationMessages as v } from '../../src/shared/credentials/credential-messages.ts';
import { textGenerationModels } from '../../src/server/integrations/openai/openai-models.ts';

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

  it("words the required fields as SPEC.md does", () => {
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
  it('keeps text models and drops embedding, audio, image and realtime ones', () => {
    expect(textGenerationModels(['gpt-5', 'text-embedding-3-small', 'gpt-4o-realtime-preview', 'dall-e-3', 'o3-mini', 'gpt-5-mini', 'whisper-1', 'gpt-image-1', 'gpt-5'])).toEqual([
      'gpt-5',
      'gpt-5-mini',
      'o3-mini',
    ]);
  });
});
