import { z } from 'zod';

/**
 * What the owner's shop would pair with the event's product, from Shopify's own
 * recommendation engine (docs/decisions/0050-recommendations-from-the-shop.md). Offered to
 * the prompts as {recommendations} and, when the flow names a profile property for them,
 * written to the shopper's Klaviyo profile as a list a template can loop over. The
 * owner's choices (intents, how many) are in recommendation-options.ts.
 */

/** One recommended product as the profile property holds it (and the text checks know it). */
export const recommendedProductSchema = z.object({
  title: z.string(),
  url: z.string(),
  image: z.string().nullable(),
  /** A decimal amount ("24.00") in `currency`. */
  price: z.string(),
  /** ISO 4217; null when the shop's currency could not be learned. */
  currency: z.string().nullable(),
});
export type RecommendedProduct = z.infer<typeof recommendedProductSchema>;

/** A value written to a Klaviyo profile property: a text, or the recommendations list. */
export type ProfilePropertyValue = string | RecommendedProduct[];
