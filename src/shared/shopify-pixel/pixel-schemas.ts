import { z } from 'zod';

/**
 * The one body shape the browsing pixel sends (and the only one its public endpoint
 * accepts). The snippet (pixel-snippet.ts) builds it from Shopify's Web Pixel events, so
 * only the fields Flowsmith uses travel, each bounded; anything else is refused
 * (docs/decisions/0011-shopper-timers.md).
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

/** The pixel's address: the flow's webhook URL with `/pixel` after it. */
export function pixelUrlOf(webhookUrl: string): string {
  return `${webhookUrl.replace(/\/+$/, '')}/pixel`;
}
