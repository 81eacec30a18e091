import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Shopify's webhook signature: base64 HMAC-SHA256 of the raw body bytes, keyed with the
 * app's client secret (or the store's notification key). Checked before the body is
 * parsed, in constant time, against every secret the owner has saved, because after a
 * secret change Shopify may sign with the previous one for up to an hour.
 */
export function signShopifyBody(body: Buffer | string, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('base64');
}

/** Base64 of the 32 bytes of an HMAC-SHA256, as Shopify writes it. */
const SIGNATURE_SHAPE = /^[A-Za-z0-9+/]{43}=$/;

export function verifyShopifySignature(body: Buffer, signature: string, secrets: readonly string[]): boolean {
  // Only Shopify's exact shape counts: base64 decoding skips stray characters, so a
  // repeated header ("a, b") or padding games must not be read as some other value.
  if (!SIGNATURE_SHAPE.test(signature.trim())) return false;
  const received = Buffer.from(signature.trim(), 'base64');
  let valid = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(body).digest();
    // Every secret is checked, so the time taken does not say which one matched.
    if (received.length === expected.length && timingSafeEqual(received, expected)) valid = true;
  }
  return valid;
}
