import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/server/config.ts';
import { credentialsInputSchema } from '../../src/shared/credentials/credential-schemas.ts';
import { credentialValidationMessages } from '../../src/shared/credentials/credential-messages.ts';

/** The operator's part of one-click connections (docs/decisions/0048-connect-by-oauth.md) and the form's methods. */
describe('the OAuth apps in the configuration', () => {
  it('are off unless both halves of a pair are set, and a half alone stops the app with the reason', () => {
    const none = loadConfig({});
    expect(none.shopifyApp).toBeNull();
    expect(none.klaviyoApp).toBeNull();
    expect(none.klaviyoOAuthBaseUrl).toBe('https://www.klaviyo.com');
    expect(() => loadConfig({ SHOPIFY_API_KEY: 'client-id' })).toThrow(ConfigError);
    expect(() => loadConfig({ KLAVIYO_CLIENT_SECRET: 'secret' })).toThrow(/KLAVIYO_CLIENT_ID and KLAVIYO_CLIENT_SECRET are set together/);
    const both = loadConfig({
      SHOPIFY_API_KEY: 'client-id',
      SHOPIFY_API_SECRET: 'client-secret',
      KLAVIYO_CLIENT_ID: 'k-id',
      KLAVIYO_CLIENT_SECRET: 'k-secret',
      KLAVIYO_OAUTH_BASE_URL: 'http://127.0.0.1:9999/',
    });
    expect(both.shopifyApp).toEqual({ clientId: 'client-id', clientSecret: 'client-secret' });
    expect(both.klaviyoApp).toEqual({ clientId: 'k-id', clientSecret: 'k-secret' });
    expect(both.klaviyoOAuthBaseUrl).toBe('http://127.0.0.1:9999');
  });

  it('refuse a secret with spaces, which could not travel in a request', () => {
    expect(() => loadConfig({ SHOPIFY_API_KEY: 'client id', SHOPIFY_API_SECRET: 'x' })).toThrow(/SHOPIFY_API_KEY/);
  });
});

describe('the credentials form with connections made by OAuth', () => {
  const base = { openaiApiKey: 'sk-test', openaiModel: 'gpt-5-mini', shopifyDomain: 'acme.myshopify.com' };

  it('needs no Klaviyo key when Klaviyo is connected, and no Shopify keys when the shop is', () => {
    const parsed = credentialsInputSchema.safeParse({ ...base, klaviyoAuthMethod: 'oauth', shopifyAuthMethod: 'oauth' });
    expect(parsed.success).toBe(true);
    expect(parsed.data).toMatchObject({ klaviyoAuthMethod: 'oauth', klaviyoApiKey: '', shopifyAuthMethod: 'oauth' });
  });

  it('still needs the key on the keys path, which stays the default', () => {
    const parsed = credentialsInputSchema.safeParse({ ...base, shopifyAuthMethod: 'oauth' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues).toEqual([expect.objectContaining({ path: ['klaviyoApiKey'], message: credentialValidationMessages.klaviyoApiKeyRequired })]);
  });
});
