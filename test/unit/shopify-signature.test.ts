import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import '@shopify/shopify-api/adapters/node';
import { createSHA256HMAC, HashFormat } from '@shopify/shopify-api/runtime';
import { verifyShopifySignature } from '../../src/server/intake/shopify-signature.ts';

/**
 * Flowsmith's webhook signature check against the official @shopify/shopify-api's own
 * HMAC (the one its webhook validation uses): a body Shopify signed with any of the
 * owner's current secrets verifies, byte for byte, non-ASCII text included.
 */
const body = readFileSync(new URL('../fixtures/shopify/orders-create.json', import.meta.url), 'utf8');
const clientSecret = 'shpss_app_client_secret_0123456789';
const notificationsKey = '4f0c2a5d9e8b7a6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c';

describe("the webhook signature, as Shopify's library computes it", () => {
  it('verifies with the client secret and with the Notifications key, side by side', async () => {
    expect(body).toContain('Hauptstraße');
    for (const secret of [clientSecret, notificationsKey]) {
      const signature = await createSHA256HMAC(secret, body, HashFormat.Base64);
      expect(verifyShopifySignature(Buffer.from(body, 'utf8'), signature, [notificationsKey, clientSecret]), secret).toBe(true);
      expect(verifyShopifySignature(Buffer.from(body.replace('199.00', '1.00'), 'utf8'), signature, [notificationsKey, clientSecret])).toBe(false);
    }
    const stranger = await createSHA256HMAC('shpss_someone_else', body, HashFormat.Base64);
    expect(verifyShopifySignature(Buffer.from(body, 'utf8'), stranger, [notificationsKey, clientSecret])).toBe(false);
  });
});
