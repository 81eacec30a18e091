import { z } from 'zod';

/**
 * The one body shape the browsing pixel sends (and the only one its public endpoint
 * accepts). The snippet (pixel-snippet.ts) builds it from Shopify's Web Pixel events, so
 * only the fields Flowsmith uses travel, each bounded; anything else is refused
 * (docs/decisions/0011-shopper-timers.md). Titles, URLs, prices and names are still
 * accepted, from snippets pasted before they were dropped, but never stored
 * (trustedPixelEvent, docs/decisions/0013-who-may-send-what.md).
 */
export const pixelEventNames = ['product_viewed', 'product_added_to_cart', 'checkout_started'] as const;
export type PixelEventName = (typeof pixelEventNames)[number];

/** The pixel endpoint's own body limit: a checkout of 100 lines fits with room to spare. */
export const MAX_PIXEL_BODY_BYTES = 32_768;

const shortText = (max: number) => z.string().trim().max(max);
const amount = z.union([z.number().finite().nonnegative(), z.string().trim().regex(/^\d+(\.\d+)?$/).max(30)]);

export const pixelProductSchema = z
  .object({
    id: shortText(100).min(1),
    variantId: shortText(100).nullish(),
    title: shortText(500).nullish(),
    url: shortText(2_000).nullish(),
    price: amount.nullish(),
    currencyCode: shortText(10).nullish(),
    quantity: z.number().int().min(1).max(10_000).nullish(),
  })
  .strict();
export type PixelProduct = z.infer<typeof pixelProductSchema>;

export const pixelEventSchema = z
  .object({
    name: z.enum(pixelEventNames),
    /** Shopify's id of the event: a retry of the same event is kept once. */
    id: shortText(200).min(1),
    timestamp: shortText(40).min(1),
    /** Shopify's id of the browser, for telling shoppers apart when no email is known. */
    clientId: shortText(200).nullish(),
    /** The logged-in customer (init.data.customer); absent for guests. */
    customer: z
      .object({
        email: z.email().max(254),
        firstName: shortText(100).nullish(),
        lastName: shortText(100).nullish(),
      })
      .strict()
      .nullish(),
    /** The cart's token, which Shopify's carts/* webhooks carry too: how a cart finds its shopper. */
    cartToken: shortText(200).nullish(),
    url: shortText(2_000).nullish(),
    product: pixelProductSchema.nullish(),
    checkout: z
      .object({
        token: shortText(200).nullish(),
        email: z.email().max(254).nullish(),
        totalPrice: amount.nullish(),
        currencyCode: shortText(10).nullish(),
        lineItems: z.array(pixelProductSchema).max(100).nullish(),
      })
      .strict()
      .nullish(),
  })
  .strict();
export type PixelEvent = z.infer<typeof pixelEventSchema>;

/**
 * What is kept of a pixel event: what the engine may use and nothing a stranger can write
 * prose into. Anyone can post to the pixel's public address, so its titles, URLs, prices
 * and names are dropped (the engine reads products from the shop's Admin API by id, and
 * the shopper's name from their Klaviyo profile); what remains are the event's name, id
 * and time, the browser's client id, the shopper's email, cart and checkout tokens, and
 * product and variant ids with quantities. The time is stored as `time`, the believable
 * moment intake settled on (or the receipt time), so the stored body never holds a
 * sender's free-form date text either.
 */
export function trustedPixelEvent(event: PixelEvent, time: Date): PixelEvent {
  const product = (line: PixelProduct): PixelProduct => ({
    id: line.id,
    ...(line.variantId ? { variantId: line.variantId } : {}),
    ...(line.quantity ? { quantity: line.quantity } : {}),
  });
  return {
    name: event.name,
    id: event.id,
    timestamp: time.toISOString(),
    clientId: event.clientId ?? null,
    customer: event.customer ? { email: event.customer.email } : null,
    cartToken: event.cartToken ?? null,
    ...(event.product ? { product: product(event.product) } : {}),
    ...(event.checkout
      ? {
          checkout: {
            token: event.checkout.token ?? null,
            email: event.checkout.email ?? null,
            lineItems: (event.checkout.lineItems ?? []).map(product),
          },
        }
      : {}),
  };
}

/** A pixel's public key (migration 011): 32 random bytes in hex. Not the flow's URL key. */
export const pixelKeyPattern = /^[0-9a-f]{64}$/;

/**
 * The pixel's own public address, `{PUBLIC_URL}/api/pixel/{pixelKey}`, which says nothing
 * of the flow's secret webhook URL. A PUBLIC_URL ending in /api still gives one /api, as
 * for webhook URLs.
 */
export function pixelUrlOf(publicUrl: string, pixelKey: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/api/pixel/${pixelKey}`.replace(/(?:\/api)+\/pixel\//, '/api/pixel/');
}

/** GET /api/flows/browser_abandonment/pixel: the address the owner's snippet sends to. */
export const pixelAddressResponseSchema = z.object({ pixelUrl: z.string() });
export type PixelAddressResponse = z.infer<typeof pixelAddressResponseSchema>;
